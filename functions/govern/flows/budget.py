"""on_budget_alert's flow: how far the alert goes, read what it covers, stop, then unlink billing.

Stops come first (with Vertex AI cancels and GKE NAP limits), then GKE accelerator pools are
scaled to zero (flows/cap.py) while each stop is confirmed by its operation; billing state is
read only then (Cloud Billing is an organization-level quota, paced per worker: it must not hold
any stop back), and unlinking billing (the last resort, opted into per project) runs last. An
alert from a spend cap's alerts-only budget only reports the cap's state (flows/spend_caps.py).
Decisions are decide.py's and cap.py's; this module only sequences reads and actions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from govern import decide, execute, notifications, resolve
from govern.actions import (
    Action,
    ConfirmStop,
    DisableBilling,
    StopInstance,
    StopNotebook,
    StopTpuNode,
)
from govern.cap import NotCapped, OutsideZones
from govern.execute import ReadCall, Runner
from govern.flows import cap, queued, scoped
from govern.flows.base import Flow, inventory, together
from govern.flows.spend_caps import SpendCapNotice, spend_cap_alert
from govern.models import BudgetAlert, BudgetPolicy, Report
from govern.ports import (
    GET_BILLING_INFO,
    GET_SPEND_CAP,
    LIST_INSTANCES,
    LIST_NOTEBOOKS,
    LIST_TPU_NODES,
    PUBLISH_WORK,
    SEARCH_PROJECTS,
    Ports,
)

BUDGET_ALERT: Final = Flow(
    "on_budget_alert",
    reads=(
        LIST_INSTANCES,
        LIST_NOTEBOOKS,
        LIST_TPU_NODES,
        GET_BILLING_INFO,
        *cap.CAP_READS,
        *queued.QUEUED_READS,
        GET_SPEND_CAP,
        SEARCH_PROJECTS,
        PUBLISH_WORK,
    ),
    actions=(
        StopInstance,
        StopNotebook,
        StopTpuNode,
        ConfirmStop,
        DisableBilling,
        *cap.CAP_ACTIONS,
        *queued.QUEUED_ACTIONS,
    ),
)


@dataclass(frozen=True)
class Quiet:
    """The alert acts on nothing; `reason` says why, `verdict` names the case for the log.

    `severity`: INFO (below stop_at, forecast only...), WARNING (a notification that contradicts
    itself, or one of an earlier period), ERROR (not the stack's budget, or undated).
    `details`: extra fields for the log line (a mismatch's values, message and stack side).
    """

    reason: str
    severity: str = "INFO"
    verdict: str = "no action"
    details: Mapping[str, Any] = field(default_factory=dict[str, Any])


@dataclass(frozen=True)
class Judged:
    """A notification of the stack's budget, about its current period, that reaches stop_at."""

    alert: BudgetAlert
    budget: BudgetPolicy
    level: decide.BudgetLevel

    @property
    def reached(self) -> float:
        """The highest policy level the ratio reached (stop_at, or disable_billing_at)."""
        return self.level.level if self.level.level is not None else self.budget.stop_at


def judge(alert: BudgetAlert, ports: Ports, runner: Runner) -> Judged | Quiet | SpendCapNotice:
    """How far one alert goes, before any project is read: its budget, period, thresholds.

    An alert of a spend cap's alerts-only pair only reports the cap's state (read-only). For the
    stack's budgets: first whether it is the stack's own and of the current period
    (notifications.py), then how far it goes (decide.budget_level).

    Raises:
        decide.DecisionError: the alert's budget is not in the policy.
    """
    policy = runner.policy
    if (capped := policy.spend_caps.get(alert.budget_id)) is not None:
        return spend_cap_alert(alert, capped, ports, runner)
    budget = decide.budget_of(alert, policy)
    if warning := notifications.unchecked(alert.budget_id, budget):
        execute.log("WARNING", warning, budget_id=alert.budget_id, unchecked=list(budget.absent()))
    judgement = notifications.judge(alert, budget, runner.time.wall())
    if not judgement.acts:
        details: dict[str, Any] = {"cost_interval_start": alert.cost_interval_start}
        if judgement.mismatches:
            details["mismatches"] = {
                name: {"message": sent, "stack": expected}
                for name, (sent, expected) in judgement.mismatches.items()
            }
        return Quiet(judgement.reason, judgement.severity, judgement.verdict, details)
    if warning := notifications.amount_differs(alert, budget):
        execute.log("WARNING", warning, budget_id=alert.budget_id)
    level = decide.budget_level(alert, budget)
    if not level.stops:
        severity = "WARNING" if level.inconsistent else "INFO"
        return Quiet(level.reason, severity, "inconsistent" if level.inconsistent else "no action")
    return Judged(alert, budget, level)


def in_reach(
    judged: Judged, ports: Ports, runner: Runner
) -> tuple[decide.BudgetScope, resolve.Resolution]:
    """The projects the judged alert stops and unlinks, and what each scope resolved to.

    runner.policy is rebuilt with the projects the budget's scopes govern (flows/scoped.py): its
    listed projects and its scopes'. A scope that fails or finds nothing acts on nothing and
    fails the run.
    """
    resolution = scoped.govern_scopes(runner, ports, judged.budget.scopes)
    budget = runner.policy.budgets[judged.alert.budget_id]
    return decide.level_scope(judged.level, budget, runner.policy), resolution


def budget_alert(
    alert: BudgetAlert, ports: Ports, runner: Runner
) -> Report | Quiet | SpendCapNotice:
    """Act on one budget alert under runner.policy, at the runner's clock's time, in one run.

    Raises:
        decide.DecisionError: the alert's budget is not in the policy.
    """
    judged = judge(alert, ports, runner)
    if not isinstance(judged, Judged):
        return judged
    scope, _resolution = in_reach(judged, ports, runner)
    return act_on_projects(scope, ports, runner)


def act_on_projects(scope: decide.BudgetScope, ports: Ports, runner: Runner) -> Report:
    """Read what `scope` covers, stop it, cap GKE and Vertex AI, then unlink billing.

    The act part of a budget alert: the single-invocation path runs it over every project in
    reach, a fan-out worker over the one project of its work item.
    """
    policy, entry_point = runner.policy, BUDGET_ALERT.entry_point
    # VMs, Workbench and TPU VMs; GKE pools and NAP, Vertex AI (flows/cap.py): read side by side.
    workloads, (reach, waiting) = together(
        lambda: inventory(runner, ports, scope.stop_projects),
        lambda: together(
            lambda: cap.plan(runner, ports, scope.stop_projects, scope.reason),
            # Queued capacity (TPU queued resources): withdrawn with the stops.
            lambda: queued.plan(runner, ports, scope.stop_projects, scope.reason),
        ),
    )
    stops = decide.budget_stops(scope, workloads, policy)

    # Every stop and first cap step is requested while the pools' sizes (their record for
    # restore) are read. The pools are then scaled to zero WHILE the stops' operations are
    # confirmed: a stop that takes minutes to confirm must neither keep GPU pools up nor push
    # their scaling past the time budget (to a redelivery). Log lines keep the actions' order.
    first = stops + waiting.actions + reach.first
    started, later = together(
        lambda: execute.start(first, ports, runner, dry_run=policy.dry_run),
        lambda: cap.sized(runner, ports, reach.later),
    )
    # Billing state is read only now, beside the confirmations: Cloud Billing is an
    # organization-level quota that each worker paces (pacing.py), so a read made before the
    # stops would hold every stop of the item back behind the pacing.
    (confirmed, scaled), billing_state = together(
        lambda: together(
            lambda: execute.finish(started, runner),
            lambda: execute.finish(
                execute.start(later, ports, runner, dry_run=policy.dry_run), runner
            ),
        ),
        lambda: billing_enabled(scope, ports, runner),
    )
    results = confirmed + scaled
    execute.log_results(results, entry_point)
    # Unlinking billing, the last resort, only once every stop is confirmed or has failed.
    unlinks = decide.disable_billing(billing_state, scope) if scope.stop_projects else []
    actions = [*stops, *unlinks]
    results += execute.apply(unlinks, ports, runner, entry_point, dry_run=policy.dry_run)
    autopilot = tuple(a.target for a in reach.first if isinstance(a, NotCapped))
    if autopilot:
        execute.log(
            "WARNING",
            f"{entry_point}: {len(autopilot)} Autopilot cluster(s) cannot be capped (GKE "
            "provisions their nodes; there are no node pools or NAP limits to set) and keep "
            "running; stop their workloads by hand or label them mlgov-exempt to silence this",
            entry_point=entry_point,
            not_capped=list(autopilot),
        )
    if waiting.not_capped:
        execute.log(
            "WARNING",
            f"{entry_point}: {len(waiting.not_capped)} queued request(s) for capacity are not "
            "withdrawn and may start billing",
            entry_point=entry_point,
            not_capped=waiting.not_capped,
        )
    outside = outside_reach([*actions, *reach.first], runner, scope)
    not_capped = (*autopilot, *waiting.not_capped, *outside)
    report = execute.report(entry_point, results, runner)
    return dataclasses.replace(report, not_capped=not_capped)


def billing_enabled(scope: decide.BudgetScope, ports: Ports, runner: Runner) -> dict[str, bool]:
    """Whether billing is linked, for each project whose billing the alert may unlink.

    Only `scope.billing_projects` (the projects that opted in, at or past disable_billing_at);
    a read that failed leaves its project out (the failure is a run error, reported).
    """
    billing = ports.billing

    def enabled(project: str) -> list[bool]:
        return [billing.billing_enabled(project)]

    reads = [ReadCall("billing get", p, enabled, (p,)) for p in scope.billing_projects]
    state: dict[str, bool] = {}
    for read, found in zip(reads, runner.gather_all(reads), strict=True):
        if found:
            state[read.project] = found[0]
    return state


def outside_reach(
    actions: list[Action], runner: Runner, scope: decide.BudgetScope
) -> tuple[str, ...]:
    """What runs in a governed project but is left by the cap's zones, named (never silent).

    A running workload in a zone the project's policy does not list (cap.OutsideZones), and,
    once per run, Vertex AI outside the regions read for projects found through a scope.
    """
    entry_point = BUDGET_ALERT.entry_point
    outside = tuple(a.target for a in actions if isinstance(a, OutsideZones))
    if outside:
        execute.log(
            "WARNING",
            f"{entry_point}: {len(outside)} running workload(s) in governed projects are "
            "outside their governed zones and were not stopped (the report's not_capped and "
            "actions name each, with the zones); add the zones to the project's policy, or "
            "govern it through a scope (every zone)",
            entry_point=entry_point,
            not_capped=list(outside),
        )
    every_zone = [p for p in scope.stop_projects if runner.policy.projects[p].every_zone]
    if every_zone:
        return (*outside, VERTEX_NOT_READ)
    return outside


VERTEX_NOT_READ: Final = "vertex ai outside vertex_regions not read"
"""not_capped's entry, once per run, when a project governed in every zone was capped: Vertex AI
has no `locations/-`, so its jobs were read only in the scope's vertex_regions."""
