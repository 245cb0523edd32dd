"""The budget cap's read of queued capacity: TPU queued resources in the governed zones.

One `queuedResources.list` per governed project and zone, or one over every zone (`locations/-`)
for a project found through a scope (like the TPU nodes list, scopes.zones_to_list); what to
withdraw and what to name as not capped is govern/queued.py's decision, the delete
actions/queued.py's. Compute VMs PENDING on a flex-start request come with the instances list
(flows/base.inventory) and are stopped with the other VMs (decide.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from govern import queued, scopes
from govern.actions import Action, WithdrawQueuedResource
from govern.execute import ReadCall, Runner
from govern.models import QueuedResource
from govern.ports import LIST_QUEUED_RESOURCES, Ports, Read

QUEUED_READS: Final[tuple[Read, ...]] = (LIST_QUEUED_RESOURCES,)
QUEUED_ACTIONS: Final[tuple[type[Action], ...]] = (WithdrawQueuedResource,)


def plan(runner: Runner, ports: Ports, projects: Sequence[str], reason: str) -> queued.QueuedPlan:
    """Read the projects' queued resources (every governed zone), then decide."""
    policy = runner.policy
    reads = [
        ReadCall[QueuedResource](
            "tpu queued resources list", p, ports.tpus.list_queued_resources, (p, zone)
        )
        for p in projects
        for zone in scopes.zones_to_list(policy, p)
    ]
    found = [r for chunk in runner.gather_all(reads) for r in chunk]
    return queued.withdraw_waiting(found, policy, reason)
