"""TPU runtime versions, zones and GKE TPU topologies the Cloud TPU and GKE APIs accept.

A TPU VM (`gcp:tpu/v2Vm:V2Vm`) needs a runtime version of its accelerator's generation and a zone
that offers that generation; a GKE TPU node pool needs a `placementPolicy.tpuTopology` its
machine type can form and node locations that offer the generation. Facts and verdicts live in
compat/tpus.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from mlgov_policies import vocabulary as v
from mlgov_policies.compat import sources
from mlgov_policies.compat.tpus import (
    DEFAULT_ACCELERATOR_TYPE,
    gke_tpu_zone_problem,
    tpu_runtime_problem,
    tpu_topology_problem,
    tpu_zone_problem,
)
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule


def _tpu_vm_accelerator(props: Mapping[str, Any]) -> tuple[str, str] | None:
    """(property path, accelerator) of a TPU VM; pulumi-gcp's default when neither is set."""
    accelerator_type = dig(props, "acceleratorType")
    config_type = dig(props, "acceleratorConfig", "type")
    if is_unknown(accelerator_type) or is_unknown(config_type):
        return None
    if as_str(accelerator_type):
        return "acceleratorType", accelerator_type
    if as_str(config_type):
        return "acceleratorConfig.type", config_type
    if accelerator_type is None and dig(props, "acceleratorConfig") is None:
        return "acceleratorType (not set, pulumi-gcp default)", DEFAULT_ACCELERATOR_TYPE
    return None


def tpu_runtime_version(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """TPU VMs use a runtime version made for their accelerator's TPU generation."""
    del type_, config
    accelerator = _tpu_vm_accelerator(props)
    runtime = as_str(dig(props, "runtimeVersion"))
    if accelerator is None or runtime is None:
        return
    where, value = accelerator
    problem = tpu_runtime_problem(value, runtime)
    if problem:
        yield f"runtimeVersion with {where} {value!r}: {problem}"


def tpu_zone(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """TPU VMs and GKE TPU node pools sit in zones that offer their TPU generation."""
    del config
    if type_ == v.TPU_VM:
        accelerator = _tpu_vm_accelerator(props)
        zone = as_str(dig(props, "zone"))
        if accelerator is None or zone is None:
            return
        where, value = accelerator
        problem = tpu_zone_problem(value, zone)
        if problem:
            yield f"zone {zone!r} with {where} {value!r}: {problem}"
        return
    machine_type = as_str(dig(props, "nodeConfig", "machineType"))
    if not machine_type:
        return
    for index, location in enumerate(as_list(dig(props, "nodeLocations"))):
        zone = as_str(location)
        problem = gke_tpu_zone_problem(machine_type, zone) if zone else None
        if problem:
            yield (
                f"nodeLocations[{index}] {zone!r} with nodeConfig.machineType {machine_type!r}: "
                f"{problem}"
            )


def gke_tpu_topology(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """GKE TPU node pools ask for a TPU topology their machine type can form."""
    del type_, config
    machine_type = as_str(dig(props, "nodeConfig", "machineType"))
    topology = as_str(dig(props, "placementPolicy", "tpuTopology"))
    if not machine_type or not topology:
        return
    problem = tpu_topology_problem(machine_type, topology)
    if problem:
        yield f"placementPolicy.tpuTopology with nodeConfig.machineType {machine_type!r}: {problem}"


RUNTIME_RULE: Final = ResourceRule(
    name="mlgov-tpu-runtime-version-compatible",
    check=tpu_runtime_version,
    types=frozenset({v.TPU_VM}),
    enforcement="mandatory",
    why="A TPU VM with a runtime version of another generation fails to create (or boots without "
    "a usable TPU), after the preview looked fine.",
    remediation="Use the runtime of the accelerator's generation: v2-alpha-tpuv6e (v6e), "
    "v2-alpha-tpuv5 (v5p), v2-alpha-tpuv5-lite (v5e), tpu-ubuntu2204-base (v4 and older).",
    source=sources.short(sources.TPU_RUNTIMES),
)
ZONE_RULE: Final = ResourceRule(
    name="mlgov-tpu-zone-offered",
    check=tpu_zone,
    types=frozenset({v.TPU_VM, v.GKE_NODE_POOL}),
    enforcement="mandatory",
    why="Each TPU generation exists only in some zones (TPU v4 only in us-central2-b; v5e, v5p "
    "and v6e in the zones Google lists); elsewhere the create call fails. Judged in North America "
    "and for v4 everywhere; other zones not on mlgov's list are not refused.",
    remediation="Place the TPU VM or node pool in a zone that offers its generation, or pick a "
    "generation offered in the stack's region.",
    source=sources.short(sources.TPU_ZONES),
)
TOPOLOGY_RULE: Final = ResourceRule(
    name="mlgov-gke-tpu-topology-valid",
    check=gke_tpu_topology,
    types=frozenset({v.GKE_NODE_POOL}),
    enforcement="mandatory",
    why="GKE refuses a TPU slice whose topology its machine type cannot form (wrong number of "
    "dimensions, or a chip count that is not whole nodes).",
    remediation="Use an AxB topology for v5e/v6e (ct5lp-/ct6e-) and AxBxC for v4/v5p "
    "(ct4p-/ct5p-), with a chip count that is a multiple of the machine type's chips per node.",
    source=sources.short(sources.GKE_TPUS),
)
RULES: Final = (RUNTIME_RULE, ZONE_RULE, TOPOLOGY_RULE)
