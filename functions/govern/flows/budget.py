"""on_budget_alert's flow: how far the alert goes, read what it covers, stop, then unlink billing.

Stops come first (with Vertex AI cancels and GKE NAP limits), then GKE accelerator pools are
scaled to zero (flows/cap.py); unlinking billing (the last resort, opted into per project) runs
last. An alert from a spend cap's alerts-only budget only reports the cap's state
(flows/spend_caps.py). Decisions are decide.py's and cap.py's; this module only sequences reads
and actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from govern import decide, execute
from govern.actions import DisableBilling, StopInstance, StopNotebook, StopTpuNode
from govern.execute import ReadCall, Runner
from govern.flows import cap
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
        GET_SPEND_CAP,
    ),
    actions=(StopInstance, StopNotebook, StopTpuNode, DisableBilling, *cap.CAP_ACTIONS),
)


@dataclass(frozen=True)
class Quiet:
    """The alert asks for nothing (below stop_at, forecast only...); `reason` says why.

    `inconsistent`: the notification contradicts itself (logged as a warning, not acted on).
    """

    reason: str
    inconsistent: bool = False


def budget_alert(
    alert: BudgetAlert, ports: Ports, runner: Runner
) -> Report | Quiet | SpendCapNotice:
    """Act on one budget alert under runner.policy (a spend cap's pair: report its state only).

    Raises:
        decide.DecisionError: the alert's budget is not in the policy.
    """
    policy, entry_point = runner.policy, BUDGET_ALERT.entry_point
    if (capped := policy.spend_caps.get(alert.budget_id)) is not None:
        return spend_cap_alert(alert, capped, ports, runner)
    scope = decide.budget_scope(alert, policy)
    if not scope.stop_projects:
        return Quiet(scope.reason, scope.inconsistent)
    # VMs, Workbench and TPU VMs; GKE pools and NAP, Vertex AI (flows/cap.py): read side by side.
    workloads, reach = together(
        lambda: inventory(runner, ports, scope.stop_projects),
        lambda: cap.plan(runner, ports, scope.stop_projects, scope.reason),
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
    results = execute.apply(stops + reach.first, ports, runner, entry_point, dry_run=policy.dry_run)
    results += execute.apply(reach.later, ports, runner, entry_point, dry_run=policy.dry_run)
    results += execute.apply(unlinks, ports, runner, entry_point, dry_run=policy.dry_run)
    return execute.report(entry_point, results, runner)
