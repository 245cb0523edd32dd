"""on_work_item's flow: one project's part of a budget alert or a reaper run, with the same flows.

The item is checked against the policy first (admission.py: it never widens what the policy
allows), then the project's part runs exactly as in one invocation, under a policy of that one
project: the budget cap's act part (flows/budget.act_on_projects) or the reaper's flow, within
the item's share of the run's blast radius (item_bounds). Live
state decides, so a redelivered or duplicated item makes no new write (a stopped VM is skipped,
a pool at 0 is not written, billing already unlinked is skipped, a recommendation already
claimed or succeeded is left). Organization-level quotas are paced per process (pacing.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from govern import periods
from govern.admission import Admitted, Refused, admit
from govern.execute import Runner
from govern.flows import budget
from govern.flows.base import Flow
from govern.flows.expired import REAP_EXPIRED, reap_expired
from govern.flows.guarded import Bounds
from govern.flows.idle_gpus import REAP_IDLE_GPUS, reap_idle_gpus
from govern.flows.idle_vms import REAP_IDLE_VMS, reap_idle_vms
from govern.models import ActionPolicy, Report
from govern.ports import COUNT_CANDIDATES, GET_SPEND_CAP, PUBLISH_WORK, SEARCH_PROJECTS, Ports
from govern.workitems import BudgetItem, ReaperItem, WorkItem

ItemOutcome = Literal["done", "nothing to do", "duplicate", "failed", "refused"]
ITEM_CONCURRENCY: Final = 8
"""Calls one work item starts at once (each read, action and size read phase), in place of the
policy's max_concurrency (16; 64 as deployed), which sizes one invocation over every project.
Dozens of items share a worker instance (governance/components/worker_sizing.py) and its one
vCPU: an item is one project, whose widest step in the measured profile is 13 actions (an
accelerated project's 6 VM and TPU VM stops, a job cancel, 6 clusters' NAP steps) and 12
accelerator pools; 8 starts every stop in two rounds of ~0.2 s calls and keeps every NAP chain
of up to 7 clusters running at once (bench/RESULTS.md, "per-item concurrency")."""
ITEM_WAITS: Final = 32
"""Operations one work item confirms at once (execute.Runner.wait_concurrency): a wait sleeps
between polls (an idle thread measured 16 KB of memory), and confirming a project's pools and
VMs together keeps a drain of minutes from waiting for another."""
_DISPATCHERS = (budget.BUDGET_ALERT, REAP_IDLE_VMS, REAP_EXPIRED, REAP_IDLE_GPUS)
ON_WORK_ITEM: Final = Flow(
    "on_work_item",
    # What the four flows read and do in one project; never a scope search, a candidate count,
    # a publish, or a spend cap (a spend cap's alert is only reported, by the budget function).
    reads=tuple(
        dict.fromkeys(
            r
            for f in _DISPATCHERS
            for r in f.reads
            if r not in (SEARCH_PROJECTS, COUNT_CANDIDATES, PUBLISH_WORK, GET_SPEND_CAP)
        )
    ),
    actions=tuple(dict.fromkeys(a for f in _DISPATCHERS for a in f.actions)),
)
ON_DEAD_LETTER: Final = Flow("on_dead_letter", reads=(), actions=())
"""It only logs (one CRITICAL line per dead-lettered item): no API call, no permission."""


def outcome(report: Report) -> ItemOutcome:
    """An item's outcome from its report: failed, done (something done or simulated), or not.

    An item a blast-radius limit held (and paged) is done: it decided, and the hold is its
    result (the outcome line's `held` says which); it is not retried.
    """
    if report.failed:
        return "failed"
    counts = report.counts()
    acted = counts.get("done") or counts.get("simulated") or report.holds
    return "done" if acted else "nothing to do"


@dataclass(frozen=True)
class Worked:
    """What one delivery of an item came to."""

    outcome: ItemOutcome
    report: Report | None = None
    reason: str = ""


def work_item(item: WorkItem, ports: Ports, runner: Runner, now: datetime) -> Worked:
    """Do `item`'s project's part under runner.policy (the policy as deployed), at `now`.

    runner.policy is replaced by the one-project policy admission gives the item.
    """
    verdict = admit(item, runner.policy, now)
    if isinstance(verdict, Refused):
        return Worked("refused", reason=verdict.reason)
    report = _run(item, verdict, ports, runner)
    return Worked(outcome(report), report)


def _run(item: WorkItem, admitted: Admitted, ports: Ports, runner: Runner) -> Report:
    runner.policy = dataclasses.replace(
        admitted.policy,
        max_concurrency=min(admitted.policy.max_concurrency, ITEM_CONCURRENCY),
    )
    runner.wait_concurrency = ITEM_WAITS
    if isinstance(item, BudgetItem):
        if admitted.scope is None:
            raise ValueError("admission gave a budget item no scope")  # a bug, not an input
        return budget.act_on_projects(admitted.scope, ports, runner)
    started = periods.parse_instant(item.started)
    bounds = item_bounds(item, runner.policy)
    if item.job == "reap_expired":
        # The dispatcher's day: a redelivery after midnight still judges the run's dates.
        return reap_expired(ports, runner, started.date(), bounds)
    if item.job == "reap_idle_vms":
        # Claims carry this delivery's run id and time, so a later run judges them as usual.
        return reap_idle_vms(ports, runner, runner.time.wall(), bounds)
    return reap_idle_gpus(ports, runner, bounds)


def item_bounds(item: ReaperItem, policy: ActionPolicy) -> Bounds:
    """What a reaper item adds to the policy's blast-radius limits (flows/guarded.py).

    Its `allowance` (its share of the run's ceiling) replaces the run's ceiling: planned stops
    beyond it are all held and paged, never dropped. It is never more than the policy's
    max_stops_per_run (no honest share is; a hand-made item cannot widen it); null leaves the
    policy's own ceiling. Its `dry_run` can only make it drier (acting_reapers and the policy's
    dry_run still apply). The canary is not its to wait for: the dispatcher acted on the
    canary projects before it published any item. The breaker is the item's own: it counts
    this invocation's calls.
    """
    most = policy.blast_radius.max_stops_per_run
    allowance = None if item.allowance is None else min(item.allowance, most)
    return Bounds(dry_run=item.dry_run, allowance=allowance, canary_first=False)
