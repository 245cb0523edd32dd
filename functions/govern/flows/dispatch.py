"""Fan-out dispatchers: judge, resolve the projects, publish one work item per project, answer.

With MLGOV_WORK_TOPIC set, on_budget_alert and the three reapers do this and nothing more; each
project's part is then done by on_work_item (flows/work.py), many at a time. A budget alert is
judged exactly as in one invocation (its budget, account, period, thresholds: flows/budget.py's
`judge`); scopes are resolved (flows/scoped.py); items go out at most 1,000 a request, the
requests concurrently. The run succeeds only when every item is published: a failed publish (or
a failed scope) fails it, so the alert is redelivered or the scheduled run retried, and the
retry publishes every item again with the same keys (the worker's idempotence absorbs them).
One log line per run says what was published: `"dispatch": {"job", "run", "items", "projects"}`
(what `mlgov cap status` counts pending items against).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from govern import clock, execute, resolve, workitems
from govern.admission import period_stamp
from govern.execute import Runner
from govern.flows import budget, scoped
from govern.flows.spend_caps import SpendCapNotice
from govern.models import BudgetAlert, BudgetPolicy, Report
from govern.notifications import DEFAULT_PERIOD
from govern.periods import period_start
from govern.ports import PortError, Ports
from govern.workitems import BudgetItem, Message, ReaperItem, ReaperJob, WorkItem

DISPATCH_ENTRY_POINTS: Final[dict[str, str]] = {
    "budget": "on_budget_alert",
    "reap_idle_vms": "reap_idle_vms",
    "reap_expired": "reap_expired",
    "reap_idle_gpus": "reap_idle_gpus",
}


def budget_alert(
    alert: BudgetAlert, ports: Ports, runner: Runner, topic: str
) -> Report | budget.Quiet | SpendCapNotice:
    """Judge one budget alert and publish one item per project it stops.

    Raises:
        decide.DecisionError: the alert's budget is not in the policy.
    """
    judged = budget.judge(alert, ports, runner)
    if not isinstance(judged, budget.Judged):
        return judged
    scope, resolution = budget.in_reach(judged, ports, runner)
    policy, level = runner.policy, judged.reached
    began = period_stamp(period_start(judged.budget.period or DEFAULT_PERIOD, runner.time.wall()))
    items: list[WorkItem] = [
        BudgetItem(
            project=project,
            run=runner.run_id,
            key=workitems.budget_key(alert.budget_id, began, level, project),
            scope=covered_through(judged.budget, resolution, project),
            budget_id=alert.budget_id,
            ratio=scope.fraction,
            period_start=began,
            stop=True,
            unlink=project in scope.billing_projects,
        )
        for project in scope.stop_projects
    ]
    every_zone = any(policy.projects[p].every_zone for p in scope.stop_projects)
    not_capped = (budget.VERTEX_NOT_READ,) if every_zone else ()
    return publish(runner, ports, topic, "budget", items, not_capped)


def covered_through(
    covering: BudgetPolicy, resolution: resolve.Resolution, project: str
) -> str | None:
    """The scope through which a budget covers `project` (None: the budget lists it).

    A listed project the budget covers only through a scope carries that scope, so the worker
    can tell the budget covers it (admission.py); its own policy entry still governs it.
    """
    if project in covering.projects:
        return None
    return next((k for k in covering.scopes if project in resolution.projects.get(k, ())), None)


def reaper(job: ReaperJob, ports: Ports, runner: Runner, now: datetime, topic: str) -> Report:
    """Resolve the policy's projects and publish one item of `job` per project.

    TODO(lead, issue 29): `allowance` is null (no per-item ceiling) and `dry_run` is the
    policy's. Once blast_radius is parsed (NAME=safety), set allowance from the run's ceiling
    split over its projects and dry_run from acting_reapers (a reaper not listed simulates).
    """
    scoped.govern_scopes(runner, ports, tuple(runner.policy.scopes))
    policy, started = runner.policy, now.strftime("%Y-%m-%dT%H:%M:%SZ")
    items: list[WorkItem] = [
        ReaperItem(
            job=job,
            project=project,
            run=runner.run_id,
            key=workitems.reaper_key(job, runner.run_id, project),
            scope=resolve.scope_of(policy, project),
            allowance=None,
            dry_run=policy.dry_run,
            started=started,
        )
        for project in sorted(policy.projects)
    ]
    return publish(runner, ports, topic, job, items)


def publish(
    runner: Runner,
    ports: Ports,
    topic: str,
    job: str,
    items: Sequence[WorkItem],
    not_capped: tuple[str, ...] = (),
) -> Report:
    """Publish `items` (<= 1,000 a request, the requests concurrently); the run's Report.

    A request that still fails after its retries is a run error: the run fails and is retried.
    """
    entry_point = DISPATCH_ENTRY_POINTS[job]
    messages = [workitems.message(item) for item in items]
    groups = workitems.batches(messages)
    by_message = {id(m): item for m, item in zip(messages, items, strict=True)}

    def send(batch: list[Message]) -> list[WorkItem]:
        try:
            runner.call(topic, ports.work.publish, topic, batch)
        except (PortError, clock.OutOfTime) as err:
            runner.error(f"publish to {topic}: {err}", topic=topic, items=len(batch))
            return []
        return [by_message[id(m)] for m in batch]

    answers = runner.map(send, groups, project=lambda _batch: topic)
    published = [item for answer in answers for item in answer or []]
    for batch, answer in zip(groups, answers, strict=True):
        if answer is None:
            runner.error(f"publish to {topic}: {execute.LEFT_REASON}", items=len(batch))
    dispatch: dict[str, Any] = {
        "job": job,
        "run": runner.run_id,
        "items": len(published),
        "projects": [item.project for item in published],
    }
    unpublished = len(items) - len(published)
    execute.log(
        "ERROR" if unpublished else "INFO",
        f"{entry_point}: {len(published)} work item(s) published to {topic}"
        + (f", {unpublished} NOT published (the run is retried)" if unpublished else ""),
        dispatch=dispatch,
        topic=topic,
        unpublished=unpublished,
    )
    report = execute.report(entry_point, [], runner)
    return dataclasses.replace(report, dispatch=dispatch, not_capped=not_capped)
