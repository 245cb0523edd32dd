"""GPU and machine type pairings Compute Engine accepts, on every resource type that sets both.

Workbench instances (`gceSetup.machineType` + `gceSetup.acceleratorConfigs[]`, Workbench enum
names), Compute instances and instance templates (`machineType` + `guestAccelerators[]`, names or
URLs), GKE node pools (`nodeConfig`) and GKE clusters' default pool and inline `nodePools`. The
facts and the one-pair verdict live in compat/gpus.py; these checks only find the pairs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from mlgov_policies import vocabulary as v
from mlgov_policies.acceptance.paths import accelerators
from mlgov_policies.compat import sources
from mlgov_policies.compat.gpus import gpu_problem
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, as_str, dig
from mlgov_policies.rule import ResourceRule

# Everything that describes a Compute VM's machine type, accelerators and scheduling.
COMPUTE_VM_TYPES: Final = frozenset(
    {v.COMPUTE_INSTANCE, v.COMPUTE_INSTANCE_TEMPLATE, v.COMPUTE_REGION_INSTANCE_TEMPLATE}
)

_SOURCE: Final = sources.short(sources.GPU_MACHINE_TYPES)


def _pairs(
    props: Mapping[str, Any],
    machine_path: tuple[str, ...],
    accelerator_path: tuple[str, ...],
    *,
    type_key: str = "type",
    count_key: str = "count",
) -> Iterator[str]:
    machine = as_str(dig(props, *machine_path))
    if not machine:
        return  # unknown or unset machine type: nothing to pair with
    where = ".".join(machine_path)
    for path, kind, count in accelerators(
        props, *accelerator_path, type_key=type_key, count_key=count_key
    ):
        problem = gpu_problem(machine, kind, count)
        if problem:
            yield f"{path}.{type_key} {kind!r} on {where} {machine!r}: {problem}"


def workbench_gpu_machine(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Workbench GPUs attach only to machine types that take that GPU model and count."""
    del type_, config
    yield from _pairs(
        props,
        ("gceSetup", "machineType"),
        ("gceSetup", "acceleratorConfigs"),
        count_key="coreCount",
    )


def compute_gpu_machine(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Compute VM GPUs attach only to machine types that take that GPU model and count."""
    del type_, config
    yield from _pairs(props, ("machineType",), ("guestAccelerators",))


def gke_gpu_machine(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """GKE node GPUs attach only to machine types that take that GPU model and count."""
    del config
    yield from _pairs(props, ("nodeConfig", "machineType"), ("nodeConfig", "guestAccelerators"))
    if type_ != v.GKE_CLUSTER:
        return
    for index, pool in enumerate(as_list(dig(props, "nodePools"))):
        for message in _pairs(
            pool, ("nodeConfig", "machineType"), ("nodeConfig", "guestAccelerators")
        ):
            yield f"nodePools[{index}].{message}"


_WHY = (
    "Compute Engine refuses a GPU on a machine type that cannot carry it (L4 only on G2, A100 "
    "only on A2, T4/V100/P4/P100 only on N1 within vCPU and memory limits), and the error comes "
    "minutes into `pulumi up`, after the preview looked fine."
)

WORKBENCH_RULE: Final = ResourceRule(
    name="mlgov-workbench-gpu-machine-compatible",
    check=workbench_gpu_machine,
    types=frozenset({v.WORKBENCH_INSTANCE}),
    enforcement="mandatory",
    why=_WHY,
    remediation="Pair the GPU with a machine type that takes it: NVIDIA_TESLA_T4 on n1-standard-* "
    "(1, 2 or 4), NVIDIA_L4 on g2-standard-* with the count the G2 type carries (1 on "
    "g2-standard-4 to -16 and -32, 2 on -24, 4 on -48, 8 on -96).",
    source=_SOURCE,
)
COMPUTE_RULE: Final = ResourceRule(
    name="mlgov-compute-gpu-machine-compatible",
    check=compute_gpu_machine,
    types=COMPUTE_VM_TYPES,
    enforcement="mandatory",
    why=_WHY,
    remediation="Attach T4/P4/V100/P100 only to N1 machine types within the documented vCPU and "
    "memory maxima; on A2/A3/A4/G2/G4 types omit guestAccelerators or give exactly the built-in "
    "GPU type and count.",
    source=_SOURCE,
)
GKE_RULE: Final = ResourceRule(
    name="mlgov-gke-gpu-machine-compatible",
    check=gke_gpu_machine,
    types=frozenset({v.GKE_NODE_POOL, v.GKE_CLUSTER}),
    enforcement="mandatory",
    why=_WHY,
    remediation="Give nodeConfig.guestAccelerators the GPU type and count the machine type takes "
    "(nvidia-l4 x1 on g2-standard-8, nvidia-tesla-t4 x1/2/4 on n1-standard-*).",
    source=_SOURCE,
)
RULES: Final = (WORKBENCH_RULE, COMPUTE_RULE, GKE_RULE)
