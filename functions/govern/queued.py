"""Queued capacity at the budget cap: requests that start billing the moment capacity arrives.

Two kinds wait in a queue rather than run, so a cap that only stops what runs lets them start
billing after it:

- Cloud TPU queued resources (TPU v2 `projects.locations.queuedResources`): a request for TPU
  VMs that waits in CREATING, ACCEPTED or WAITING_FOR_RESOURCES ("It will remain in this state
  until there are sufficient free resources", tpu v2 discovery document, QueuedResourceState).
  The cap withdraws it: `queuedResources.delete` without `force` (force would delete running
  nodes too; a waiting request has none). One PROVISIONING (capacity arriving now) is not
  deleted: its TPU VMs are being created, so it is named in `not_capped`, and the next alert
  stops them as TPU VMs. ACTIVE ones are TPU VMs that run: the nodes list finds them.
- Compute VMs PENDING on a flex-start request (compute v1 Instance.status PENDING: "waiting
  for available capacity from Dynamic Workload Scheduler"): stopped like any VM, so capacity
  that arrives does not start it (decide.py; the stop is confirmed by its operation).

Pure decisions; the read is flows/queued.py's, the delete actions/queued.py's. Standard
library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from govern import scopes
from govern.actions import Action, Skip, WithdrawQueuedResource
from govern.models import ActionPolicy, QueuedResource

WAITING: Final = frozenset({"CREATING", "ACCEPTED", "WAITING_FOR_RESOURCES"})
"""States of a request still waiting for capacity: nothing runs yet, withdrawing loses nothing."""
PROVISIONING: Final = "PROVISIONING"


@dataclass(frozen=True)
class QueuedPlan:
    """What the cap does with the queued requests it read, and what it cannot reach."""

    actions: list[Action]
    not_capped: list[str]


def withdraw_waiting(
    resources: Iterable[QueuedResource], policy: ActionPolicy, reason: str
) -> QueuedPlan:
    """Withdraw every governed, non-exempt queued resource still waiting for capacity."""
    actions: list[Action] = []
    not_capped: list[str] = []
    for r in sorted(resources, key=lambda r: r.target):
        if not scopes.governs_zone(policy, r.project, r.zone):
            continue
        if policy.is_exempt(r.labels):
            key, value = policy.exempt_label
            actions.append(Skip(r.target, f"exempt ({key}={value} on its nodes)"))
        elif r.state in WAITING:
            why = f"{reason}; queued for capacity ({r.state}): it would bill once capacity arrives"
            actions.append(WithdrawQueuedResource(r.target, why, resource=r))
        elif r.state == PROVISIONING:
            not_capped.append(
                f"{r.target}: TPU queued resource PROVISIONING (capacity arriving): not "
                "withdrawn, its TPU VMs are stopped by the next alert once listed"
            )
    return QueuedPlan(actions, not_capped)
