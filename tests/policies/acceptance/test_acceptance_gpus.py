"""GPU/machine pairing rules on Workbench, Compute and GKE inputs."""

from __future__ import annotations

from acceptance_support import DELETE, changed, run, shipped

from mlgov_policies import vocabulary as v
from mlgov_policies.props import UNKNOWN_SENTINELS

GPU_DOC = "GPU machine types https://cloud.google.com/compute/docs/gpus"
AO_DOC = "Accelerator-optimized machine family https://cloud.google.com/compute/docs/accelerator-optimized-machines"
UNKNOWN = next(iter(UNKNOWN_SENTINELS))
WORKBENCH = "mlgov-workbench-gpu-machine-compatible"
COMPUTE = "mlgov-compute-gpu-machine-compatible"
GKE = "mlgov-gke-gpu-machine-compatible"
L4_ONLY_ON = (
    "it runs only on g2-standard-4, g2-standard-8, g2-standard-12, g2-standard-16, "
    "g2-standard-24, g2-standard-32, g2-standard-48, g2-standard-96"
)


# --- Workbench ------------------------------------------------------------------------------------
def test_workbench_t4_on_n1_passes() -> None:
    assert run(WORKBENCH, v.WORKBENCH_INSTANCE, shipped("dev", "notebooks-alice")) == []


def test_workbench_without_gpu_passes() -> None:
    assert run(WORKBENCH, v.WORKBENCH_INSTANCE, shipped("dev", "notebooks-bob")) == []


def test_workbench_l4_on_g2_passes() -> None:
    props = shipped("staging", "notebooks-pipelines")
    assert (
        run(
            WORKBENCH, v.WORKBENCH_INSTANCE, changed(props, "gceSetup.machineType", "g2-standard-8")
        )
        == []
    )


def test_workbench_t4_on_e2_fails() -> None:
    props = changed(shipped("dev", "notebooks-alice"), "gceSetup.machineType", "e2-standard-4")
    assert run(WORKBENCH, v.WORKBENCH_INSTANCE, props) == [
        "gceSetup.acceleratorConfigs[0].type 'NVIDIA_TESLA_T4' on gceSetup.machineType "
        "'e2-standard-4': NVIDIA T4 (nvidia-tesla-t4) cannot attach to e2-standard-4: it runs only "
        f"on n1-* (source: {GPU_DOC})"
    ]


def test_workbench_t4_count_three_fails() -> None:
    props = changed(
        shipped("dev", "notebooks-alice"), "gceSetup.acceleratorConfigs.0.coreCount", "3"
    )
    assert run(WORKBENCH, v.WORKBENCH_INSTANCE, props) == [
        "gceSetup.acceleratorConfigs[0].type 'NVIDIA_TESLA_T4' on gceSetup.machineType "
        "'n1-standard-4': 3 x nvidia-tesla-t4 on n1-standard-4: N1 takes nvidia-tesla-t4 in "
        f"counts [1, 2, 4] (source: {GPU_DOC})"
    ]


def test_workbench_unknown_machine_type_is_skipped() -> None:
    props = changed(shipped("staging", "notebooks-pipelines"), "gceSetup.machineType", UNKNOWN)
    assert run(WORKBENCH, v.WORKBENCH_INSTANCE, props) == []


def test_workbench_unknown_gpu_enum_is_skipped() -> None:
    props = changed(
        shipped("dev", "notebooks-alice"), "gceSetup.acceleratorConfigs.0.type", "NVIDIA_RTX6000"
    )
    assert run(WORKBENCH, v.WORKBENCH_INSTANCE, props) == []


# --- Compute -------------------------------------------------------------------------------------
def test_compute_l4_on_g2_passes() -> None:
    assert run(COMPUTE, v.COMPUTE_INSTANCE, shipped("staging", "training-nightly-eval")) == []


def test_compute_gpu_given_as_url_passes() -> None:
    props = changed(
        shipped("staging", "training-nightly-eval"),
        "guestAccelerators.0.type",
        "projects/acme-ml-staging/zones/us-central1-a/acceleratorTypes/nvidia-l4",
    )
    assert run(COMPUTE, v.COMPUTE_INSTANCE, props) == []


def test_compute_built_in_type_omitted_passes() -> None:
    props = changed(shipped("staging", "training-nightly-eval"), "guestAccelerators", DELETE)
    assert run(COMPUTE, v.COMPUTE_INSTANCE, props) == []


def test_compute_wrong_l4_count_on_g2_fails() -> None:
    props = changed(shipped("staging", "training-nightly-eval"), "machineType", "g2-standard-24")
    assert run(COMPUTE, v.COMPUTE_INSTANCE, props) == [
        "guestAccelerators[0].type 'nvidia-l4' on machineType 'g2-standard-24': g2-standard-24 "
        "comes with 2 x nvidia-l4 built in; an explicit accelerator must match it, got "
        f"1 x nvidia-l4 (source: {AO_DOC})"
    ]


def test_instance_template_l4_on_n1_fails() -> None:
    props = changed(shipped("staging", "training-nightly-eval"), "machineType", "n1-standard-8")
    assert run(COMPUTE, v.COMPUTE_INSTANCE_TEMPLATE, props) == [
        "guestAccelerators[0].type 'nvidia-l4' on machineType 'n1-standard-8': NVIDIA L4 "
        f"(nvidia-l4) cannot attach to n1-standard-8: {L4_ONLY_ON} (source: {GPU_DOC})"
    ]


# --- GKE -----------------------------------------------------------------------------------------
def test_gke_pools_as_shipped_pass() -> None:
    for stack, name in [("dev", "training-t4-spot"), ("staging", "training-l4-spot"),
                        ("prod", "training-l4-spot"), ("prod", "training-tpu-v5e"),
                        ("prod", "gke-system")]:  # fmt: skip
        assert run(GKE, v.GKE_NODE_POOL, shipped(stack, name)) == [], (stack, name)


def test_gke_pool_t4_on_g2_fails() -> None:
    props = changed(shipped("dev", "training-t4-spot"), "nodeConfig.machineType", "g2-standard-8")
    assert run(GKE, v.GKE_NODE_POOL, props) == [
        "nodeConfig.guestAccelerators[0].type 'nvidia-tesla-t4' on nodeConfig.machineType "
        "'g2-standard-8': g2-standard-8 comes with 1 x nvidia-l4 built in; an explicit "
        f"accelerator must match it, got 1 x nvidia-tesla-t4 (source: {AO_DOC})"
    ]


def test_gke_cluster_inline_pool_fails_with_its_path() -> None:
    pool = {"name": "gpu", "nodeConfig": {"machineType": "n1-standard-8",
            "guestAccelerators": [{"type": "nvidia-l4", "count": 1.0}]}}  # fmt: skip
    props = changed(shipped("dev", "gke-cluster"), "nodePools", [pool])
    assert run(GKE, v.GKE_CLUSTER, props) == [
        "nodePools[0].nodeConfig.guestAccelerators[0].type 'nvidia-l4' on nodeConfig.machineType "
        f"'n1-standard-8': NVIDIA L4 (nvidia-l4) cannot attach to n1-standard-8: {L4_ONLY_ON} "
        f"(source: {GPU_DOC})"
    ]


def test_gke_cluster_default_pool_is_checked() -> None:
    props = changed(
        shipped("dev", "gke-cluster"),
        "nodeConfig",
        {
            "machineType": "e2-standard-4",
            "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1.0}],
        },
    )
    (message,) = run(GKE, v.GKE_CLUSTER, props)
    assert message.startswith(
        "nodeConfig.guestAccelerators[0].type 'nvidia-tesla-t4' on nodeConfig.machineType 'e2-standard-4'"
    )
    assert run(GKE, v.GKE_CLUSTER, shipped("dev", "gke-cluster")) == []
