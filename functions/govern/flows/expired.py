"""reap_expired's flow: read every governed workload, stop those whose expiry date has passed."""

from __future__ import annotations

from datetime import date
from typing import Final

from govern import decide, execute
from govern.actions import StopInstance, StopNotebook, StopTpuNode
from govern.execute import Runner
from govern.flows import scoped
from govern.flows.base import Flow, inventory
from govern.models import Report
from govern.ports import (
    LIST_INSTANCES,
    LIST_NOTEBOOKS,
    LIST_TPU_NODES,
    PUBLISH_WORK,
    SEARCH_PROJECTS,
    Ports,
)

REAP_EXPIRED: Final = Flow(
    "reap_expired",
    reads=(SEARCH_PROJECTS, PUBLISH_WORK, LIST_INSTANCES, LIST_NOTEBOOKS, LIST_TPU_NODES),
    actions=(StopInstance, StopNotebook, StopTpuNode),
)


def reap_expired(ports: Ports, runner: Runner, today: date) -> Report:
    """Stop governed workloads whose `mlgov-expires-on` date lies before `today` (UTC).

    The policy's scopes are resolved first (flows/scoped.py): their projects are reaped too.
    """
    scoped.govern_scopes(runner, ports, tuple(runner.policy.scopes))
    policy = runner.policy
    workloads = inventory(runner, ports, sorted(policy.projects))
    actions = decide.reap_expired(workloads, policy, today)
    results = execute.apply(
        actions, ports, runner, REAP_EXPIRED.entry_point, dry_run=policy.dry_run
    )
    return execute.report(REAP_EXPIRED.entry_point, results, runner)
