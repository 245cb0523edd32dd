"""Compute VM scheduling combinations the Compute Engine API accepts.

Spot and preemptible VMs cannot restart automatically or live-migrate; a preemptible VM must use
the SPOT provisioning model; a run-time limit (`maxRunDuration`, `terminationTime`) needs a
termination action and a duration between 30 s and 120 days, and is not for legacy preemptible
VMs; a VM with GPUs cannot live-migrate. Applies to Compute instances and instance templates.
Workbench instances have no scheduling block in the Notebooks v2 API, so they are not covered.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from mlgov_policies.acceptance.gpus import COMPUTE_VM_TYPES
from mlgov_policies.acceptance.paths import accelerators
from mlgov_policies.compat import sources
from mlgov_policies.compat.gpus import has_built_in_gpus
from mlgov_policies.compat.limits import TERMINATION_ACTIONS, VM_RUN_DURATION
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, as_mapping, as_number, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule, shown

_SPOT: Final = sources.short(sources.SPOT_SCHEDULING)
_RUNTIME: Final = sources.short(sources.LIMIT_RUNTIME)
_MIGRATION: Final = sources.short(sources.LIVE_MIGRATION)


def _has_gpus(props: Mapping[str, Any]) -> bool:
    machine = as_str(dig(props, "machineType"))
    if machine and has_built_in_gpus(machine):
        return True
    return any(
        count is None or count > 0 for _, _, count in accelerators(props, "guestAccelerators")
    )


def _restart_and_migration(
    scheduling: Mapping[str, Any], model: str | None, preemptible: bool | None
) -> Iterator[str]:
    label = "provisioningModel 'SPOT'" if model == "SPOT" else "preemptible true"
    restart = scheduling.get("automaticRestart")
    if not is_unknown(restart) and as_bool(restart) is not False:
        default = " (pulumi-gcp default true)" if restart is None else ""
        yield (
            f"scheduling.automaticRestart is {shown(restart)}{default} with scheduling.{label}: "
            f"Spot and preemptible VMs cannot restart automatically; set it to false "
            f"(source: {_SPOT})"
        )
    maintenance = scheduling.get("onHostMaintenance")
    if as_str(maintenance) == "MIGRATE":
        yield (
            f"scheduling.onHostMaintenance is 'MIGRATE' with scheduling.{label}: Spot and "
            f"preemptible VMs can only TERMINATE (source: {_SPOT})"
        )
    if preemptible and model == "STANDARD":
        yield (
            "scheduling.preemptible is true with scheduling.provisioningModel 'STANDARD': for "
            f"preemptible VMs the only allowed provisioning model is SPOT (source: {_SPOT})"
        )


def _run_time_limit(
    scheduling: Mapping[str, Any], model: str | None, preemptible: bool | None
) -> Iterator[str]:
    duration = scheduling.get("maxRunDuration")
    termination_time = scheduling.get("terminationTime")
    if is_unknown(duration) or is_unknown(termination_time):
        return
    if duration is None and termination_time is None:
        return
    limit = "scheduling.maxRunDuration" if duration is not None else "scheduling.terminationTime"
    action = scheduling.get("instanceTerminationAction")
    if not is_unknown(action) and as_str(action) not in TERMINATION_ACTIONS:
        yield (
            f"{limit} is set but scheduling.instanceTerminationAction is {shown(action)}: a "
            f"time-limited VM needs STOP or DELETE (source: {_RUNTIME})"
        )
    if preemptible and model != "SPOT":
        yield (
            f"{limit} is set on a legacy preemptible VM (preemptible true without "
            f"provisioningModel 'SPOT'): time limits need a Spot or standard VM "
            f"(source: {_RUNTIME})"
        )
    seconds = as_number(dig(duration, "seconds")) if duration is not None else None
    if seconds is not None:
        problem = VM_RUN_DURATION.problem(seconds)
        if problem:
            yield f"scheduling.maxRunDuration.seconds: {problem}"


def _flex_start(scheduling: Mapping[str, Any]) -> Iterator[str]:
    # pulumi-gcp's documented FLEX_START contract: no restart, DELETE at the end, a run-time limit.
    restart = scheduling.get("automaticRestart")
    if not is_unknown(restart) and as_bool(restart) is not False:
        yield (
            f"scheduling.automaticRestart is {shown(restart)} with provisioningModel "
            f"'FLEX_START': set it to false (source: {_SPOT})"
        )
    action = scheduling.get("instanceTerminationAction")
    if not is_unknown(action) and as_str(action) != "DELETE":
        yield (
            f"scheduling.instanceTerminationAction is {shown(action)} with provisioningModel "
            f"'FLEX_START': it must be DELETE (source: {_SPOT})"
        )
    if scheduling.get("maxRunDuration") is None:
        yield (
            "scheduling.maxRunDuration is not set with provisioningModel 'FLEX_START': Flex-start "
            f"VMs need one (source: {_SPOT})"
        )


def compute_scheduling(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Spot, preemptible, time-limited and GPU VMs use scheduling options Compute accepts."""
    del type_, config
    raw = dig(props, "scheduling")
    if is_unknown(raw):
        return
    scheduling = as_mapping(raw)
    model_raw = scheduling.get("provisioningModel")
    preemptible_raw = scheduling.get("preemptible")
    if is_unknown(model_raw) or is_unknown(preemptible_raw):
        return
    model = as_str(model_raw)
    preemptible = as_bool(preemptible_raw)
    if model == "SPOT" or preemptible:
        yield from _restart_and_migration(scheduling, model, preemptible)
    if model == "FLEX_START":
        yield from _flex_start(scheduling)
    yield from _run_time_limit(scheduling, model, preemptible)
    maintenance = scheduling.get("onHostMaintenance")
    interruptible = model in ("SPOT", "FLEX_START") or preemptible
    migrates = not is_unknown(maintenance) and as_str(maintenance) != "TERMINATE"
    if not interruptible and migrates and _has_gpus(props):
        default = " (default MIGRATE)" if maintenance is None else ""
        yield (
            f"scheduling.onHostMaintenance is {shown(maintenance)}{default} on a VM with GPUs: "
            f"instances with guest accelerators do not support live migration; set it to "
            f"TERMINATE (source: {_MIGRATION})"
        )


RULE: Final = ResourceRule(
    name="mlgov-compute-scheduling-valid",
    check=compute_scheduling,
    types=COMPUTE_VM_TYPES,
    enforcement="mandatory",
    why="Compute Engine refuses contradictory scheduling (a Spot VM that restarts or migrates, a "
    "run-time limit without a termination action, a GPU VM that live-migrates) at create time.",
    remediation="Spot: provisioningModel SPOT, automaticRestart false, onHostMaintenance "
    "TERMINATE, preemptible true. Run-time limits: maxRunDuration 30 s to 120 days with "
    "instanceTerminationAction STOP or DELETE. GPU VMs: onHostMaintenance TERMINATE.",
    source=sources.short(sources.SPOT_VMS),
)
RULES: Final = (RULE,)
