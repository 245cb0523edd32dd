"""How many worker instances, and how many items each runs at once: arithmetic from the quotas.

Pure and deployment-free: fan_out.py deploys `on_work_item` with the size computed here, and the
policy carries the instance count (`fan_out.worker_instances`) so each worker process paces its
calls against organization-level quotas by it. The quotas and limits are Google's documented
ones, as recorded in FACTS.md ("Added 2026-11-28").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

DESIGN_PROJECTS: Final = 10_000
"""The organization size the fan-out is sized for (issue 29's goal)."""
ISSUE_WITHIN_S: Final = 60.0
"""Every stop issued within a minute of the alert, at DESIGN_PROJECTS."""
ITEM_ISSUE_S: Final = 10.0
"""Seconds one work item needs to read a project and issue its stops. The functions hold each
project to 10 calls a second (MLGOV_POLICY `max_requests_per_second_per_project`, under GKE's
3,000 a minute per project), and the budget cap makes about 120 calls for a project with a
dozen accelerator pools (bench/RESULTS.md, `bench/functions_cap.py`), half of them before the
last stop is issued: about 6 s at the limiter's pace, 10 s with Google's latency."""
EVENT_TIMEOUT_S: Final = 540
"""What an event-driven function may run; the worker keeps to it (Pub/Sub's push ack deadline
is at most 600 s, and an item still running then would be delivered a second time)."""
REPORT_MARGIN_S: Final = 60
"""Left to an item after its work budget, to log and answer."""
ORG_QUOTA_PER_MIN: Final = 975.0
"""The smallest organization-wide quota a work item calls: the Cloud Billing API, 975 calls a
minute per organization (Asset Inventory allows 1,500)."""
QUOTA_SHARE: Final = 0.5
"""All workers together use at most half of an organization-level quota."""
ORG_CALLS_PER_ITEM: Final = 2
"""Cloud Billing calls of the costliest item: read the project's billing, then unlink it."""
ITEMS_PER_INSTANCE: Final = 16
"""Items one instance runs at once (1 vCPU; each item's calls wait on the network, not CPU)."""
ACK_DEADLINE_S: Final = 600
"""The work subscription's ack deadline: Pub/Sub's maximum, above the worker's timeout."""


@dataclass(frozen=True)
class WorkerSize:
    """The worker function's max instances and per-instance concurrency."""

    instances: int
    concurrency: int
    timeout_seconds: int
    time_budget_seconds: float


def worker_size(
    *,
    projects: int = DESIGN_PROJECTS,
    issue_within_s: float = ISSUE_WITHIN_S,
    item_issue_s: float = ITEM_ISSUE_S,
    org_quota_per_min: float = ORG_QUOTA_PER_MIN,
    quota_share: float = QUOTA_SHARE,
    org_calls_per_item: int = ORG_CALLS_PER_ITEM,
    items_per_instance: int = ITEMS_PER_INSTANCE,
) -> WorkerSize:
    """Size the worker so stops are issued in time without passing half of an org quota.

    With the defaults (10,000 projects, stops within 60 s, 10 s per item, Cloud Billing's 975
    calls a minute per organization, 16 items per instance):

        time budget   = 540 s timeout - 60 s margin                   = 480 s per item
        wanted        = ceil(10,000 projects x 10 s / 60 s)            = 1,667 items at once
        quota ceiling = 50% x 975/min x 480 s / 60 s / 2 calls an item = 1,950 items at once
        in flight     = min(wanted, quota ceiling)                     = 1,667
        instances     = ceil(1,667 / 16)                               = 105
        (at 50,000 projects the ceiling binds: ceil(1,950 / 16) = 122 instances of 15 items)

    The quota ceiling holds whatever the split between instances: each process paces its
    organization-level calls to 50% x 975/min / instances (DESIGN.md section 5), so its 16 items
    share 0.5 x 975 x 8 / 105 = 37 Cloud Billing calls per item budget, and 16 unlinking items
    need 32. More items in flight than the ceiling would wait on the pacer past their timeout
    and be delivered again; fewer than wanted would issue the last stops late. The per-project
    quotas (GKE 3,000 a minute and 5 concurrent operations per cluster, Vertex AI 60
    long-running operations a minute per region) do not bind here: one item is one project.
    """
    budget_s = EVENT_TIMEOUT_S - REPORT_MARGIN_S
    wanted = math.ceil(projects * item_issue_s / issue_within_s)
    ceiling = math.floor(quota_share * org_quota_per_min * (budget_s / 60.0) / org_calls_per_item)
    in_flight = max(1, min(wanted, ceiling))
    concurrency = min(items_per_instance, in_flight)
    instances = math.ceil(in_flight / concurrency)
    # Rounding instances up must not lift the items in flight past the quota ceiling.
    concurrency = max(1, min(concurrency, ceiling // instances))
    return WorkerSize(
        instances=instances,
        concurrency=concurrency,
        timeout_seconds=EVENT_TIMEOUT_S,
        time_budget_seconds=float(budget_s),
    )
