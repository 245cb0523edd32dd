"""reap_expired's flow: read every governed workload, stop those whose expiry date has passed."""

from __future__ import annotations

from datetime import date
from typing import Final

from govern import blast, decide
from govern.actions import ConfirmStop, StopInstance, StopNotebook, StopTpuNode
from govern.execute import Runner
from govern.flows import scoped
from govern.flows.base import Flow, inventory
from govern.flows.guarded import SINGLE_RUN, Bounds, reap
from govern.models import Report
from govern.ports import (
    COUNT_CANDIDATES,
    LIST_INSTANCES,
    LIST_NOTEBOOKS,
    LIST_TPU_NODES,
    PUBLISH_WORK,
    SEARCH_PROJECTS,
    Ports,
)

REAP_EXPIRED: Final = Flow(
    "reap_expired",
    reads=(
        SEARCH_PROJECTS,
        COUNT_CANDIDATES,
        PUBLISH_WORK,
        LIST_INSTANCES,
        LIST_NOTEBOOKS,
        LIST_TPU_NODES,
    ),
    actions=(StopInstance, StopNotebook, StopTpuNode, ConfirmStop),
)


def reap_expired(ports: Ports, runner: Runner, today: date, bounds: Bounds = SINGLE_RUN) -> Report:
    """Stop governed workloads whose `mlgov-expires-on` date lies before `today` (UTC).

    The policy's scopes are resolved first (flows/scoped.py): their projects are reaped too.
    Within the blast-radius limits (flows/guarded.py), plus what `bounds` adds.
    """
    scoped.govern_scopes(runner, ports, tuple(runner.policy.scopes))
    policy = runner.policy
    workloads = inventory(runner, ports, sorted(policy.projects))
    actions = decide.reap_expired(workloads, policy, today)
    running = blast.running_estate(workloads, policy)
    return reap(REAP_EXPIRED.entry_point, actions, ports, runner, running=running, bounds=bounds)
