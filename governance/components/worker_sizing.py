"""How many worker instances, and how many items each runs at once: arithmetic from the model.

Pure and deployment-free: automation.py deploys `on_work_item` with the size computed here, and
the policy carries the instance count (`fan_out.worker_instances`) so each worker process paces
its calls against organization-level quotas by it (the quotas are Google's documented ones,
listed in functions/govern/pacing.py). The figures come from the discrete-event simulation of
a fanned-out budget alert at 10,000 projects (bench/RESULTS.md, "Worker sizing: the budget alert
at 10,000 projects", `bench/org_sim.py --only sizing`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

DESIGN_PROJECTS: Final = 10_000
"""The organization size the fan-out is sized for (issue 29's goal)."""
HEADROOM: Final = 1.25
"""Slots beyond one per project: duplicates and redeliveries hold slots too."""
ITEMS_PER_INSTANCE: Final = 80
"""Items one instance runs at once. An item starts at most 8 calls at once and confirms up to 32
operations at once, asleep between polls (functions/govern/flows/work.py): 80 items of
bench/org_fanout.py's projects in one process peaked at 435 threads and 174 MB, and the worst
case, 80 x (8 + 32) threads, is mostly asleep on the one vCPU (bench/RESULTS.md, "per-item
concurrency")."""
MAX_INSTANCES: Final = 487
"""The most worker instances that still leave each one a whole call a minute of half the
tightest organization-level quota, Cloud Billing's 975: floor(975 x 0.5) = 487. Each worker
paces itself to floor(quota x 0.5 / instances) calls a minute (functions/govern/pacing.py);
past this, its share of Cloud Billing would round to none. tests/contract pins the two."""
EVENT_TIMEOUT_S: Final = 540
"""What an event-driven function may run; the worker keeps to it (Pub/Sub's push ack deadline
is at most 600 s, and an item still running then would be delivered a second time)."""
REPORT_MARGIN_S: Final = 60
"""Left to an item after its work budget, to log and answer."""
ACK_DEADLINE_S: Final = 600
"""The work subscription's ack deadline: Pub/Sub's maximum, above the worker's timeout."""
MAX_DELIVERY_ATTEMPTS: Final = 20
"""The default delivery bound: a 429 from a worker with no free slot counts as an attempt, so a
burst must wait through backoff rather than be dead-lettered (the simulation: 5 attempts
dead-lettered 7,692 of 10,000 items on a worker too small for the burst)."""


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
    headroom: float = HEADROOM,
    items_per_instance: int = ITEMS_PER_INSTANCE,
) -> WorkerSize:
    """Size the worker so a budget alert's burst finds a slot for every project at once.

    A delivery holds its slot until its project's stops are confirmed (a VM stop takes 20-90 s),
    so by Little's law starting 10,000 items within seconds needs about 10,000 slots; with fewer,
    the worker answers 429 and Pub/Sub backs off, and the last stops are requested minutes late
    (bench/RESULTS.md: 100 x 10 slots dead-lettered 5,449 items, 300 x 80 requested every VM and
    TPU stop within 41 s and confirmed them within 129 s). With the defaults:

        slots     = ceil(10,000 projects x 1.25)  = 12,500
        instances = ceil(12,500 / 80 per instance) = 157
        budget    = 540 s timeout - 60 s margin   = 480 s per item

    The size does not bound the organization-level quotas; the pacing does: each worker process
    starts at most floor(50% of a quota / `instances`) calls in any minute
    (functions/govern/pacing.py), so all of them together never pass half of it (Cloud Billing's 975
    a minute: 3 calls a minute per instance, 471 for the 157). More than MAX_INSTANCES would leave
    an instance no Cloud Billing call at all: a larger organization gets more items per instance
    instead. What binds a run that unlinks billing is that quota, whatever the size: 10,000 unlinks
    need 20,000 Cloud Billing calls, over 42 minutes at the 471 a minute the 157 instances may make.
    The per-project limits (GKE 3,000 requests a minute, one cluster-level operation or one per node
    pool at a time; Vertex AI 60 long-running operations a minute per region) do not depend on it
    either: one item is one project.
    """
    slots = math.ceil(projects * headroom)
    concurrency = max(1, min(items_per_instance, slots))
    if math.ceil(slots / concurrency) > MAX_INSTANCES:
        # A larger organization packs more items into each instance instead (50,000 projects:
        # 129 per instance on 485 instances), so the pacing share stays a whole call.
        concurrency = math.ceil(slots / MAX_INSTANCES)
    budget_s = EVENT_TIMEOUT_S - REPORT_MARGIN_S
    return WorkerSize(
        instances=math.ceil(slots / concurrency),
        concurrency=concurrency,
        timeout_seconds=EVENT_TIMEOUT_S,
        time_budget_seconds=float(budget_s),
    )
