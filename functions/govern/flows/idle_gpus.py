"""reap_idle_gpus's flow: list GPU VMs, read their GPU utilization, stop the idle ones.

Workbench-backed GPU VMs are stopped through the Notebooks API (decide.py says so); utilization
is read only for candidates, one Monitoring query per project.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from govern import decide, execute
from govern.actions import StopInstance, StopNotebook
from govern.execute import ReadCall, Runner
from govern.flows.base import Flow, inventory
from govern.models import Report
from govern.ports import LIST_INSTANCES, LIST_TIME_SERIES, Ports

REAP_IDLE_GPUS: Final = Flow(
    "reap_idle_gpus",
    reads=(LIST_INSTANCES, LIST_TIME_SERIES),
    actions=(StopInstance, StopNotebook),
)


def reap_idle_gpus(ports: Ports, runner: Runner) -> Report:
    """Stop GPU VMs (workload label in idle_gpu.workloads) whose GPUs stayed idle."""
    policy = runner.policy
    instances = inventory(runner, ports, sorted(policy.projects), kinds=("compute",))
    candidates = decide.gpu_candidates(instances, policy)
    utilization: dict[str, float] = {}
    by_project: dict[str, list[str]] = {}
    for w in candidates:
        by_project.setdefault(w.project, []).append(w.instance_id)
    if candidates:
        monitoring = ports.monitoring
        window = policy.idle_gpu.window_minutes

        def utilization_of(project: str) -> list[Mapping[str, float]]:
            return [monitoring.gpu_utilization(project, window, by_project[project])]

        reads = [ReadCall("monitoring read", p, utilization_of, (p,)) for p in sorted(by_project)]
        for chunk in runner.gather_all(reads):
            for found in chunk:
                utilization.update(found)
    actions = decide.reap_idle_gpus(candidates, utilization, policy)
    results = execute.apply(
        actions, ports, runner, REAP_IDLE_GPUS.entry_point, dry_run=policy.dry_run
    )
    return execute.report(REAP_IDLE_GPUS.entry_point, results, runner)
