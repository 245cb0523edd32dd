"""TPU runtime version, zone and GKE topology rules on TPU VM and node pool inputs."""

from __future__ import annotations

from acceptance_support import DELETE, changed, run, shipped

from mlgov_policies import vocabulary as v
from mlgov_policies.props import UNKNOWN_SENTINELS

RUNTIMES_DOC = "TPU software versions https://cloud.google.com/tpu/docs/runtimes"
ZONES_DOC = "TPU regions and zones https://cloud.google.com/tpu/docs/regions-zones"
GKE_DOC = "Plan TPUs in GKE https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus"
RUNTIME = "mlgov-tpu-runtime-version-compatible"
ZONE = "mlgov-tpu-zone-offered"
TOPOLOGY = "mlgov-gke-tpu-topology-valid"
UNKNOWN = next(iter(UNKNOWN_SENTINELS))


def v5e() -> dict:
    return shipped("prod", "training-research-v5e")


def test_shipped_v5e_vm_passes() -> None:
    assert run(RUNTIME, v.TPU_VM, v5e()) == []
    assert run(ZONE, v.TPU_VM, v5e()) == []


def test_v5e_with_v5p_runtime_fails() -> None:
    assert run(RUNTIME, v.TPU_VM, changed(v5e(), "runtimeVersion", "v2-alpha-tpuv5")) == [
        "runtimeVersion with acceleratorType 'v5litepod-8': runtime version 'v2-alpha-tpuv5' is "
        "for TPU v5p, not v5litepod-8 (TPU v5e); use v2-alpha-tpuv5-lite "
        f"(source: {RUNTIMES_DOC})"
    ]


def test_accelerator_config_is_read_when_no_type() -> None:
    props = changed(v5e(), "acceleratorType", DELETE)
    props = changed(props, "acceleratorConfig", {"type": "V6E", "topology": "2x2"})
    assert run(RUNTIME, v.TPU_VM, props) == [
        "runtimeVersion with acceleratorConfig.type 'V6E': runtime version 'v2-alpha-tpuv5-lite' "
        f"is for TPU v5e, not V6E (TPU v6e); use v2-alpha-tpuv6e (source: {RUNTIMES_DOC})"
    ]


def test_pulumi_default_accelerator_is_v2_8() -> None:
    props = changed(v5e(), "acceleratorType", DELETE)
    assert run(RUNTIME, v.TPU_VM, props) == [
        "runtimeVersion with acceleratorType (not set, pulumi-gcp default) 'v2-8': runtime "
        "version 'v2-alpha-tpuv5-lite' is for TPU v5e, not v2-8 (TPU v2); use "
        f"tpu-ubuntu2204-base, tpu-vm-base (source: {RUNTIMES_DOC})"
    ]


def test_unknown_runtime_is_skipped() -> None:
    assert run(RUNTIME, v.TPU_VM, changed(v5e(), "runtimeVersion", UNKNOWN)) == []
    assert run(RUNTIME, v.TPU_VM, changed(v5e(), "acceleratorType", UNKNOWN)) == []


def test_tpu_v4_vm_outside_us_central2_b_fails() -> None:
    props = changed(
        changed(v5e(), "acceleratorType", "v4-8"), "runtimeVersion", "tpu-ubuntu2204-base"
    )
    assert run(RUNTIME, v.TPU_VM, props) == []
    assert run(ZONE, v.TPU_VM, props) == [
        "zone 'europe-west4-b' with acceleratorType 'v4-8': TPU v4 (v4-8) is offered only in "
        f"us-central2-b, not in europe-west4-b (source: {ZONES_DOC})"
    ]
    assert run(ZONE, v.TPU_VM, changed(props, "zone", "us-central2-b")) == []


def test_gke_v4_pool_outside_us_central2_b_fails() -> None:
    props = changed(
        shipped("prod", "training-tpu-v5e"), "nodeConfig.machineType", "ct4p-hightpu-4t"
    )
    assert run(ZONE, v.GKE_NODE_POOL, props) == [
        "nodeLocations[0] 'europe-west4-b' with nodeConfig.machineType 'ct4p-hightpu-4t': TPU v4 "
        f"(v4-4) is offered only in us-central2-b, not in europe-west4-b (source: {ZONES_DOC})"
    ]
    assert run(ZONE, v.GKE_NODE_POOL, shipped("prod", "training-tpu-v5e")) == []


def test_gke_topology() -> None:
    pool = shipped("prod", "training-tpu-v5e")
    assert run(TOPOLOGY, v.GKE_NODE_POOL, pool) == []  # single host: no topology
    good = changed(pool, "placementPolicy", {"type": "COMPACT", "tpuTopology": "2x4"})
    assert run(TOPOLOGY, v.GKE_NODE_POOL, good) == []
    bad = changed(pool, "placementPolicy", {"type": "COMPACT", "tpuTopology": "2x2x2"})
    assert run(TOPOLOGY, v.GKE_NODE_POOL, bad) == [
        "placementPolicy.tpuTopology with nodeConfig.machineType 'ct5lp-hightpu-4t': tpuTopology "
        f"'2x2x2' does not fit ct5lp-hightpu-4t: TPU v5e topologies are AxB (source: {GKE_DOC})"
    ]
