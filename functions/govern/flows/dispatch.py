"""Fan-out dispatchers: judge, resolve the projects, publish one work item per project, answer.

With MLGOV_WORK_TOPIC set, on_budget_alert and the three reapers do this and nothing more; each
project's part is then done by on_work_item (flows/work.py), many at a time. A budget alert is
judged exactly as in one invocation (its budget, account, period, thresholds: flows/budget.py's
`judge`); scopes are resolved (flows/scoped.py); items go out at most 1,000 a request, the
requests concurrently. The run succeeds only when every item is published: a failed publish (or
a failed scope) fails it, so the alert is redelivered or the scheduled run retried, and the
retry publishes every item again with the same keys (the worker's idempotence absorbs them).
One log line per run says what was published: `"dispatch": {"job", "run", "items", "projects"}`
(what `mlgov cap status` counts pending items against), and for a reaper `"blast_radius"`: how
its ceiling was split.

A reaper run keeps its blast radius when fanned out (`reaper`): the dispatcher counts the
candidates in Cloud Asset Inventory where it can (govern/census.py), holds the whole run when
the expired workloads it counted already exceed the ceiling, and otherwise gives each item its
share of the ceiling (`allowance`, blast.split_ceiling) and the acting_reapers verdict
(`dry_run`). With a canary, it acts on the canary projects itself before publishing the rest.
The budget kill switch is exempt from all of this.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, Final

from govern import blast, census, clock, execute, resolve, workitems
from govern.admission import period_stamp
from govern.execute import Runner
from govern.flows import budget, scoped
from govern.flows.expired import reap_expired
from govern.flows.guarded import Bounds
from govern.flows.idle_gpus import reap_idle_gpus
from govern.flows.idle_vms import reap_idle_vms
from govern.flows.spend_caps import SpendCapNotice
from govern.models import BudgetAlert, BudgetPolicy, Report, Result, Workload
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

    Within the run's blast radius (blast.py): the index counts the candidates where it can
    (census.py) and the run's ceiling is split across the items (`allowance`); counted
    expired workloads above the ceiling hold the whole run (nothing published, paged, 2xx).
    Each item's `dry_run` is the acting_reapers verdict. An acting run with a canary acts on
    the canary projects here first, in this invocation; if any of that fails, nothing else is
    published (paged, non-2xx, so the run is retried).
    """
    resolution = scoped.govern_scopes(runner, ports, tuple(runner.policy.scopes))
    policy, entry_point = runner.policy, DISPATCH_ENTRY_POINTS[job]
    projects = sorted(policy.projects)
    simulate = blast.simulates(job, policy)
    counts = count(job, ports, runner, resolution, now.date())
    split = blast.split_ceiling(
        projects,
        counts.candidates,
        policy.blast_radius,
        counts.running,
        hold_over=job == "reap_expired",
    )
    limits = {
        "ceiling": split.ceiling,
        "ceiling_source": split.source,
        "counted_projects": len(counts.candidates),
        "counted_candidates": split.counted,
        "bound": split.bound,
        "dry_run": simulate,
    }
    if split.hold is not None:
        runner.hold(split.hold, page=not simulate, entry_point=entry_point, **limits)
        report = publish(runner, ports, topic, job, [], blast_radius=limits)
        return dataclasses.replace(report, dry_run=simulate)
    done: list[Result] = []
    if policy.blast_radius.canary and not simulate:
        done, rest = canary_first(job, ports, runner, now, projects, split)
        if rest is None:
            return publish(runner, ports, topic, job, [], results=done, blast_radius=limits)
        projects = rest
    started = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    items: list[WorkItem] = [
        ReaperItem(
            job=job,
            project=project,
            run=runner.run_id,
            key=workitems.reaper_key(job, runner.run_id, project),
            scope=resolve.scope_of(policy, project),
            allowance=split.allowances[project],
            dry_run=simulate,
            started=started,
        )
        for project in projects
    ]
    report = publish(runner, ports, topic, job, items, results=done, blast_radius=limits)
    return dataclasses.replace(report, dry_run=simulate)  # what the items will do


def count(
    job: ReaperJob, ports: Ports, runner: Runner, resolution: resolve.Resolution, today: date
) -> census.Census:
    """What the index holds for `job` in the projects the scopes found (census.py).

    One search per resolved scope, concurrently, every page. A search that fails leaves its
    scope's projects uncounted (one WARNING): the run still goes out, its ceiling shared
    evenly over them, since an index that is down must not stop the reapers.
    """
    search = census.search_for(job, runner.policy)
    if search is None or not resolution.projects:
        return census.Census()
    keys = sorted(resolution.projects)

    def read(key: str) -> list[Workload]:
        return runner.call(
            key, ports.assets.search_workloads, key, search.asset_types, search.query
        )

    def searched(key: str) -> list[Workload] | None:
        try:
            return read(key)
        except (PortError, clock.OutOfTime) as err:
            execute.log(
                "WARNING",
                f"{job}: candidates under {key} not counted ({err}); its projects share the "
                "rest of the blast-radius ceiling evenly",
                scope=key,
            )
            return None

    answers = runner.map(searched, keys, project=lambda key: key)
    found: dict[str, Workload] = {}
    counted: set[str] = set()
    for key, answer in zip(keys, answers, strict=True):
        if answer is None:
            continue
        counted.update(resolution.projects[key])
        found.update((w.target, w) for w in answer)  # a scope inside another finds it twice
    return census.census(job, search, found.values(), runner.policy, counted, today)


REAPERS: Final[dict[ReaperJob, Callable[[Ports, Runner, datetime, Bounds], Report]]] = {
    "reap_expired": lambda p, r, now, b: reap_expired(p, r, now.date(), b),
    "reap_idle_vms": reap_idle_vms,
    "reap_idle_gpus": lambda p, r, _now, b: reap_idle_gpus(p, r, b),
}
"""Each reaper's single-invocation flow, as the dispatcher runs it over the canary projects."""


def canary_first(
    job: ReaperJob,
    ports: Ports,
    runner: Runner,
    now: datetime,
    projects: Sequence[str],
    split: blast.Split,
) -> tuple[list[Result], list[str] | None]:
    """Act on the canary projects here, as one invocation would; (their results, the rest).

    The rest is None when nothing else may be published: a canary action failed (or the
    canary run failed otherwise: an error, the breaker, the time budget), or a canary folder
    could not be resolved. Then the canary's hold pages and the run answers non-2xx.
    """
    limits = runner.policy.blast_radius
    canary = blast.canary_projects(limits, scoped.canary_resolver(runner, ports))
    first = [p for p in projects if p in canary.projects]
    rest = [p for p in projects if p not in canary.projects]
    results: list[Result] = []
    failed: list[str] = []
    if first:
        whole, errors = runner.policy, len(runner.errors)
        # The canary projects alone, under the run's policy; their share of its ceiling.
        runner.policy = dataclasses.replace(
            whole, projects={p: whole.projects[p] for p in first}, scopes={}
        )
        bounds = Bounds(allowance=sum(split.allowances[p] for p in first), canary_first=False)
        try:
            report = REAPERS[job](ports, runner, now, bounds)
        finally:
            runner.policy = whole
        results = list(report.results)
        failed = [r.target for r in results if r.outcome == "failed"]
        failed += list(report.unfinished) + runner.errors[errors:]
        if any(h.kind == "breaker" for h in runner.holds):
            failed.append("error-rate breaker")
    if not (failed or canary.unresolved):
        return results, rest
    hold = blast.canary_hold(failed, canary.unresolved)
    runner.hold(
        hold,
        entry_point=DISPATCH_ENTRY_POINTS[job],
        canary=first,
        canary_failed=failed,
        unresolved=list(canary.unresolved),
        not_published=len(rest),
    )
    return results, None


def publish(
    runner: Runner,
    ports: Ports,
    topic: str,
    job: str,
    items: Sequence[WorkItem],
    not_capped: tuple[str, ...] = (),
    *,
    results: Sequence[Result] = (),
    blast_radius: Mapping[str, Any] | None = None,
) -> Report:
    """Publish `items` (<= 1,000 a request, the requests concurrently); the run's Report.

    A request that still fails after its retries is a run error: the run fails and is retried.
    `results`: what this invocation did itself (a reaper's canary projects). `blast_radius`:
    how a reaper run's ceiling was split (in the dispatch line and report).
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
        **({"blast_radius": dict(blast_radius)} if blast_radius is not None else {}),
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
    report = execute.report(entry_point, results, runner)
    return dataclasses.replace(report, dispatch=dispatch, not_capped=not_capped)
