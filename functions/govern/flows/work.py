"""on_work_item's flow: one project's part of a budget alert or a reaper run, with the same flows.

The item is checked against the policy first (admission.py: it never widens what the policy
allows), then the project's part runs exactly as in one invocation, under a policy of that one
project: the budget cap's act part (flows/budget.act_on_projects) or the reaper's flow. Live
state decides, so a redelivered or duplicated item makes no new write (a stopped VM is skipped,
a pool at 0 is not written, billing already unlinked is skipped, a recommendation already
claimed or succeeded is left). Organization-level quotas are paced per process (pacing.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from govern import periods
from govern.admission import Admitted, Refused, admit
from govern.execute import Runner
from govern.flows import budget
from govern.flows.base import Flow
from govern.flows.expired import REAP_EXPIRED, reap_expired
from govern.flows.idle_gpus import REAP_IDLE_GPUS, reap_idle_gpus
from govern.flows.idle_vms import REAP_IDLE_VMS, reap_idle_vms
from govern.models import Report
from govern.ports import GET_SPEND_CAP, PUBLISH_WORK, SEARCH_PROJECTS, Ports
from govern.workitems import BudgetItem, WorkItem

ItemOutcome = Literal["done", "nothing to do", "duplicate", "failed", "refused"]
_DISPATCHERS = (budget.BUDGET_ALERT, REAP_IDLE_VMS, REAP_EXPIRED, REAP_IDLE_GPUS)
ON_WORK_ITEM: Final = Flow(
    "on_work_item",
    # What the four flows read and do in one project; never a scope search, a publish, or a
    # spend cap (a spend cap's alert is only reported, by the budget function itself).
    reads=tuple(
        dict.fromkeys(
            r
            for f in _DISPATCHERS
            for r in f.reads
            if r not in (SEARCH_PROJECTS, PUBLISH_WORK, GET_SPEND_CAP)
        )
    ),
    actions=tuple(dict.fromkeys(a for f in _DISPATCHERS for a in f.actions)),
)
ON_DEAD_LETTER: Final = Flow("on_dead_letter", reads=(), actions=())
"""It only logs (one CRITICAL line per dead-lettered item): no API call, no permission."""


def outcome(report: Report) -> ItemOutcome:
    """An item's outcome from its report: failed, done (something done or simulated), or not."""
    if report.failed:
        return "failed"
    counts = report.counts()
    return "done" if counts.get("done") or counts.get("simulated") else "nothing to do"


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
    runner.policy = admitted.policy
    if isinstance(item, BudgetItem):
        if admitted.scope is None:
            raise ValueError("admission gave a budget item no scope")  # a bug, not an input
        return budget.act_on_projects(admitted.scope, ports, runner)
    # TODO(lead, issue 29): enforce item.allowance (the item's share of the run's blast-radius
    # ceiling) once blast_radius is parsed (NAME=safety's govern/blast.py): today it is carried
    # and checked for shape only, and the dispatcher sends null.
    started = periods.parse_instant(item.started)
    if item.job == "reap_expired":
        # The dispatcher's day: a redelivery after midnight still judges the run's dates.
        return reap_expired(ports, runner, started.date())
    if item.job == "reap_idle_vms":
        # Claims carry this delivery's run id and time, so a later run judges them as usual.
        return reap_idle_vms(ports, runner, runner.time.wall())
    return reap_idle_gpus(ports, runner)
