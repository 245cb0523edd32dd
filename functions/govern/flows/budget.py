"""on_budget_alert's flow: how far the alert goes, read what it covers, stop, then unlink billing.

Stops come first (with Vertex AI cancels and GKE NAP limits), then GKE accelerator pools are
scaled to zero (flows/cap.py) while each stop is confirmed by its operation; unlinking billing
(the last resort, opted into per project) runs last. An alert from a spend cap's alerts-only
budget only reports the cap's state (flows/spend_caps.py). Decisions are decide.py's and
cap.py's; this module only sequences reads and actions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from govern import decide, execute, notifications
from govern.actions import ConfirmStop, DisableBilling, StopInstance, StopNotebook, StopTpuNode
from govern.cap import NotCapped
from govern.execute import ReadCall, Runner
from govern.flows import cap, queued
from govern.flows.base import Flow, inventory, together
from govern.flows.spend_caps import SpendCapNotice, spend_cap_alert
from govern.models import BudgetAlert, Report
from govern.ports import (
    GET_BILLING_INFO,
    GET_SPEND_CAP,
    LIST_INSTANCES,
    LIST_NOTEBOOKS,
    LIST_TPU_NODES,
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


def budget_alert(
    alert: BudgetAlert, ports: Ports, runner: Runner
) -> Report | Quiet | SpendCapNotice:
    """Act on one budget alert under runner.policy, at the runner's clock's time.

    An alert of a spend cap's alerts-only pair only reports the cap's state (read-only). For the
    stack's budgets: first whether it is the stack's own and of the current period
    (notifications.py), then how far it goes (decide.budget_scope).

    Raises:
        decide.DecisionError: the alert's budget is not in the policy.
    """
    policy, entry_point = runner.policy, BUDGET_ALERT.entry_point
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
    scope = decide.budget_scope(alert, policy)
    if not scope.stop_projects:
        severity = "WARNING" if scope.inconsistent else "INFO"
        return Quiet(scope.reason, severity, "inconsistent" if scope.inconsistent else "no action")
    # VMs, Workbench and TPU VMs; GKE pools and NAP, Vertex AI (flows/cap.py): read side by side.
    workloads, (reach, waiting) = together(
        lambda: inventory(runner, ports, scope.stop_projects),
        lambda: together(
            lambda: cap.plan(runner, ports, scope.stop_projects, scope.reason),
            # Queued capacity (TPU queued resources): withdrawn with the stops.
            lambda: queued.plan(runner, ports, scope.stop_projects, scope.reason),
        ),
    )
    billing_state: dict[str, bool] = {}
    if scope.billing_projects:
        billing = ports.billing

        def enabled(project: str) -> list[bool]:
            return [billing.billing_enabled(project)]

        reads = [ReadCall("billing get", p, enabled, (p,)) for p in scope.billing_projects]
        for read, state in zip(reads, runner.gather_all(reads), strict=True):
            if state:
                billing_state[read.project] = state[0]
    actions = decide.on_budget(scope, workloads, billing_state, policy)
    stops = [a for a in actions if not isinstance(a, DisableBilling)]
    unlinks = [a for a in actions if isinstance(a, DisableBilling)]

    # Every stop and first cap step is requested while the pools' sizes (their record for
    # restore) are read. The pools are then scaled to zero WHILE the stops' operations are
    # confirmed: a stop that takes minutes to confirm must neither keep GPU pools up nor push
    # their scaling past the time budget (to a redelivery). Log lines keep the actions' order.
    first = stops + waiting.actions + reach.first
    started, later = together(
        lambda: execute.start(first, ports, runner, dry_run=policy.dry_run),
        lambda: cap.sized(runner, ports, reach.later),
    )
    confirmed, scaled = together(
        lambda: execute.finish(started, runner),
        lambda: execute.finish(execute.start(later, ports, runner, dry_run=policy.dry_run), runner),
    )
    results = confirmed + scaled
    execute.log_results(results, entry_point)
    # Unlinking billing, the last resort, only once every stop is confirmed or has failed.
    results += execute.apply(unlinks, ports, runner, entry_point, dry_run=policy.dry_run)
    not_capped = tuple(a.target for a in reach.first if isinstance(a, NotCapped))
    if not_capped:
        execute.log(
            "WARNING",
            f"{entry_point}: {len(not_capped)} Autopilot cluster(s) cannot be capped (GKE "
            "provisions their nodes; there are no node pools or NAP limits to set) and keep "
            "running; stop their workloads by hand or label them mlgov-exempt to silence this",
            entry_point=entry_point,
            not_capped=list(not_capped),
        )
    if waiting.not_capped:
        execute.log(
            "WARNING",
            f"{entry_point}: {len(waiting.not_capped)} queued request(s) for capacity are not "
            "withdrawn and may start billing",
            entry_point=entry_point,
            not_capped=waiting.not_capped,
        )
    report = execute.report(entry_point, results, runner)
    return dataclasses.replace(report, not_capped=(*not_capped, *waiting.not_capped))
