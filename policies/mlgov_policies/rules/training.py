"""Training-capacity rules: GPU/TPU capacity is spot, scales to zero and cannot run forever.

Covers the three places accelerators appear: GKE node pools, TPU VMs and standalone Compute
Engine VMs (`has_accelerators` also serves gke.py's default-pool rule). CPU-only capacity is
left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.compat.gpus import has_built_in_gpus
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, as_list, as_mapping, as_number, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule

# GKE TPU machine types (ct4p-, ct5lp-, ct5p-, ct6e-, tpu7x-):
# https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus
_TPU_MACHINE = re.compile(r"(ct\d|tpu\d)")


def has_accelerators(accelerators: object, machine_type: object) -> bool:
    """True when `guestAccelerators` asks for any GPU or the machine type has GPUs/TPUs built in."""
    for accelerator in as_list(accelerators):
        count = as_number(dig(accelerator, "count"))
        if count is None or count > 0:
            return True
    machine = as_str(machine_type) or ""
    return has_built_in_gpus(machine) or bool(_TPU_MACHINE.match(machine))


def _accelerated(type_: str, props: Mapping[str, Any]) -> bool:
    """True when the resource carries GPUs or TPUs (TPU VMs always do)."""
    if type_ == v.TPU_VM:
        return True
    if type_ == v.GKE_NODE_POOL:
        return has_accelerators(
            dig(props, "nodeConfig", "guestAccelerators"), dig(props, "nodeConfig", "machineType")
        )
    if type_ == v.COMPUTE_INSTANCE:
        return has_accelerators(dig(props, "guestAccelerators"), dig(props, "machineType"))
    return False


def spot(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """GPU/TPU node pools, TPU VMs and GPU VMs run on spot (or preemptible) capacity."""
    del config
    if not _accelerated(type_, props):
        return
    if type_ == v.GKE_NODE_POOL:
        is_spot, preemptible = (
            dig(props, "nodeConfig", "spot"),
            dig(props, "nodeConfig", "preemptible"),
        )
        where = "nodeConfig.spot"
    elif type_ == v.TPU_VM:
        is_spot = dig(props, "schedulingConfig", "spot")
        preemptible = dig(props, "schedulingConfig", "preemptible")
        where = "schedulingConfig.spot"
    else:
        model = dig(props, "scheduling", "provisioningModel")
        is_spot = True if model == "SPOT" else (model if is_unknown(model) else None)
        preemptible = dig(props, "scheduling", "preemptible")
        where = "scheduling.provisioningModel=SPOT"
    if is_unknown(is_spot) or is_unknown(preemptible):
        return
    if as_bool(is_spot) is not True and as_bool(preemptible) is not True:
        yield f"GPU/TPU capacity is on-demand: set {where} (60-91% cheaper, no SLA)"


SPOT = ResourceRule(
    name="mlgov-training-spot",
    check=spot,
    types=frozenset({v.GKE_NODE_POOL, v.TPU_VM, v.COMPUTE_INSTANCE}),
    enforcement="mandatory",
    why="Spot GPUs/TPUs are 60-91% cheaper; training jobs checkpoint and tolerate preemption.",
    remediation="Node pools: nodeConfig.spot = true. TPU VMs: schedulingConfig.spot = true. "
    "GPU VMs: scheduling.provisioningModel = 'SPOT' (preemptible = true, "
    "automaticRestart = false).",
)


def scale_from_zero(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """GPU/TPU node pools autoscale and can scale down to zero nodes."""
    del config
    if not _accelerated(type_, props):
        return
    autoscaling = dig(props, "autoscaling")
    if is_unknown(autoscaling):
        return
    scaling = as_mapping(autoscaling)
    if not isinstance(autoscaling, Mapping):
        yield "GPU/TPU node pool has no autoscaling block: it keeps its nodes when idle"
    else:
        minimum: object = None
        for key in ("totalMinNodeCount", "minNodeCount"):
            value = dig(scaling, key)
            if value is not None:
                minimum = value
                break
        number = as_number(minimum)
        if not is_unknown(minimum) and number is not None and number > 0:
            yield f"autoscaling minimum is {number:g}: GPU/TPU pools must scale down to 0"
    for key in ("initialNodeCount", "nodeCount"):
        count = as_number(dig(props, key))
        if count is not None and count > 0:
            yield f"{key} is {count:g}: GPU/TPU pools start empty and grow on demand"


SCALE_FROM_ZERO = ResourceRule(
    name="mlgov-training-scale-from-zero",
    check=scale_from_zero,
    types=frozenset({v.GKE_NODE_POOL}),
    enforcement="mandatory",
    why="A GPU/TPU pool that keeps one node bills that accelerator 24x7 with no work on it.",
    remediation="Set autoscaling.totalMinNodeCount (or minNodeCount) = 0 with a max, and "
    "initialNodeCount = 0; drop a fixed nodeCount.",
)


def max_run_duration(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Standalone GPU VMs stop themselves after a bounded run time."""
    del config
    if not _accelerated(type_, props):
        return
    duration = dig(props, "scheduling", "maxRunDuration")
    if is_unknown(duration):
        return
    seconds = dig(duration, "seconds")
    if is_unknown(seconds):
        return
    number = as_number(seconds)
    if number is None or number <= 0:
        yield "scheduling.maxRunDuration.seconds is not set: a forgotten GPU VM runs forever"


MAX_RUN_DURATION = ResourceRule(
    name="mlgov-training-max-run-duration",
    check=max_run_duration,
    types=frozenset({v.COMPUTE_INSTANCE}),
    enforcement="mandatory",
    why="Standalone GPU VMs are the classic forgotten resource; a run-time cap bounds the damage.",
    remediation="Set scheduling.maxRunDuration.seconds (e.g. 28800) with "
    "instanceTerminationAction = 'STOP'.",
)
