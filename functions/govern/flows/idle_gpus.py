"""reap_idle_gpus's flow: stop idle accelerators, GPU VMs and TPU VMs, from Cloud Monitoring.

GPU VMs: `agent.googleapis.com/gpu/utilization` (the Ops Agent's NVML metrics; SpotTrainingPools
installs the agent on the GPU VMs it creates). TPU VMs: the built-in
`tpu.googleapis.com/accelerator/duty_cycle` (no agent needed). Workbench-backed GPU VMs are
stopped through the Notebooks API (decide.py says so). Metrics are read only for candidates, one
Monitoring query per project and metric. An accelerator is judged only over a window it has run
for whole: a GPU VM that started (lastStartTimestamp) or a TPU VM created within it, or whose
data does not cover it, is left running. A governed accelerator without data (or with data in
another unit than the documented one) is never stopped, and the run says so once: one WARNING
line and the report's `no_data` list.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from govern import blast, decide, execute
from govern.actions import ConfirmStop, StopInstance, StopNotebook, StopTpuNode
from govern.execute import ReadCall, Runner
from govern.flows import scoped
from govern.flows.base import Flow, inventory
from govern.flows.guarded import SINGLE_RUN, Bounds, reap
from govern.models import Report, Usage, Workload
from govern.ports import (
    COUNT_CANDIDATES,
    LIST_INSTANCES,
    LIST_TIME_SERIES,
    LIST_TPU_NODES,
    PUBLISH_WORK,
    SEARCH_PROJECTS,
    Ports,
)

REAP_IDLE_GPUS: Final = Flow(
    "reap_idle_gpus",
    reads=(
        SEARCH_PROJECTS,
        COUNT_CANDIDATES,
        PUBLISH_WORK,
        LIST_INSTANCES,
        LIST_TPU_NODES,
        LIST_TIME_SERIES,
    ),
    actions=(StopInstance, StopNotebook, StopTpuNode, ConfirmStop),
)

Reader = Callable[[str, int, Sequence[str]], Mapping[str, Usage]]


def _measure(
    runner: Runner, candidates: Sequence[Workload], reader: Reader, window: int, key: str
) -> dict[str, Usage]:
    """One Monitoring read per project for `candidates` (by their `key` attribute)."""
    by_project: dict[str, list[str]] = {}
    for w in candidates:
        by_project.setdefault(w.project, []).append(getattr(w, key))

    def values_of(project: str) -> list[Mapping[str, Usage]]:
        return [reader(project, window, by_project[project])]

    reads = [ReadCall("monitoring read", p, values_of, (p,)) for p in sorted(by_project)]
    found: dict[str, Usage] = {}
    for chunk in runner.gather_all(reads):
        for values in chunk:
            found.update(values)
    return found


def reap_idle_gpus(ports: Ports, runner: Runner, bounds: Bounds = SINGLE_RUN) -> Report:
    """Stop GPU VMs and TPU VMs (workload label in idle_gpu/idle_tpu.workloads) left idle.

    The policy's scopes are resolved first (flows/scoped.py): their projects are reaped too.
    Within the blast-radius limits (flows/guarded.py), plus what `bounds` adds.
    """
    scoped.govern_scopes(runner, ports, tuple(runner.policy.scopes))
    policy, entry_point = runner.policy, REAP_IDLE_GPUS.entry_point
    workloads = inventory(runner, ports, sorted(policy.projects), kinds=("compute", "tpu"))
    gpus = decide.gpu_candidates(workloads, policy)
    tpus = decide.tpu_candidates(workloads, policy)
    utilization: dict[str, Usage] = {}
    duty_cycle: dict[str, Usage] = {}
    if gpus:
        monitoring = ports.monitoring
        window = policy.idle_gpu.window_minutes
        utilization = _measure(runner, gpus, monitoring.gpu_utilization, window, "instance_id")
    if tpus:
        monitoring = ports.monitoring
        window = policy.idle_tpu.window_minutes
        duty_cycle = _measure(runner, tpus, monitoring.tpu_duty_cycle, window, "name")
    now = runner.time.wall()
    actions = decide.reap_idle_gpus(gpus, utilization, policy, now)
    actions += decide.reap_idle_tpus(tpus, duty_cycle, policy, now)
    no_data = tuple(a.target for a in actions if isinstance(a, decide.NoData))
    if no_data:
        execute.log(
            "WARNING",
            f"{entry_point}: {len(no_data)} governed accelerator(s) reported no utilization "
            "data and were not stopped (GPU VMs need the Ops Agent; TPU VMs report duty cycle "
            "only while running a workload)",
            entry_point=entry_point,
            no_data=list(no_data),
        )
    running = blast.running_estate(workloads, policy)
    report = reap(entry_point, actions, ports, runner, running=running, bounds=bounds)
    return dataclasses.replace(report, no_data=no_data)
