"""Whether a budget notification is the stack's own and about its budget's current period (pure).

A notification acts only when its `billingAccountId` and `currencyCode` match what MLGOV_POLICY
says of the budget its `budgetId` names, and its `costIntervalStart` lies in the budget's
current period (periods.py). Anything else is acknowledged without acting on anything: a
mismatch or an undated message is an ERROR naming both values (someone else's message on our
topic, or a stack that no longer matches its budget), a message of an earlier period a WARNING
(a late redelivery: October's 120% must not stop November's workloads). An absent policy key is
not checked, and `unchecked` says so once per invocation. How far a genuine notification goes is
decide.budget_scope's job; the flow (flows/budget.py) runs these first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, Literal

from govern import periods
from govern.models import BudgetAlert, BudgetPolicy

Verdict = Literal["acts", "mismatch", "previous period", "undated"]
DEFAULT_PERIOD: Final[periods.Period] = "MONTH"


@dataclass(frozen=True)
class Judgement:
    """What to make of one notification before deciding how far it goes.

    `mismatches`: field -> (the message's value, the stack's value), for the log line.
    """

    verdict: Verdict
    reason: str = ""
    mismatches: Mapping[str, tuple[str, str]] = field(default_factory=dict[str, tuple[str, str]])

    @property
    def acts(self) -> bool:
        """True when the notification may act."""
        return self.verdict == "acts"

    @property
    def severity(self) -> str:
        """ERROR for a message that is not ours (or cannot be placed), WARNING for a late one."""
        return {"acts": "INFO", "previous period": "WARNING"}.get(self.verdict, "ERROR")


def _shown(value: str) -> str:
    return repr(value) if value else "(absent)"


def judge(alert: BudgetAlert, budget: BudgetPolicy, now: datetime) -> Judgement:
    """Check `alert` against the stack's `budget` (the one its budgetId names) at `now`."""
    pairs = (
        ("billingAccountId", "billing_account", alert.billing_account_id, budget.billing_account),
        ("currencyCode", "currency", alert.currency, budget.currency),
    )
    mismatches = {
        name: (sent, expected)
        for name, _key, sent, expected in pairs
        if expected is not None and sent.strip().upper() != expected.upper()
    }
    if mismatches:
        what = "; ".join(
            f"{name} {_shown(sent)} is not the stack's {expected!r}"
            for name, (sent, expected) in mismatches.items()
        )
        return Judgement(
            "mismatch",
            f"notification for budget {alert.budget_id} does not match the stack's budget: "
            f"{what}; not acted on",
            mismatches,
        )
    period = budget.period if budget.period is not None else DEFAULT_PERIOD
    try:
        began = periods.parse_instant(alert.cost_interval_start)
    except periods.PeriodError:
        return Judgement(
            "undated",
            f"costIntervalStart {_shown(alert.cost_interval_start)} does not say which period "
            f"the notification reports on; not acted on",
        )
    if periods.before_period(began, period, now):
        start = periods.period_start(period, now)
        return Judgement(
            "previous period",
            f"previous period: costIntervalStart {alert.cost_interval_start} is before the "
            f"current {periods.describe(period)} period of budget {alert.budget_id}, which "
            f"began {start:%Y-%m-%dT%H:%M:%SZ} (midnight US/Pacific); a late delivery, "
            "acknowledged without acting",
        )
    return Judgement("acts")


def unchecked(budget_id: str, budget: BudgetPolicy) -> str | None:
    """The one warning an invocation logs when the policy leaves parts of a message unchecked."""
    absent = budget.absent()
    if not absent:
        return None
    consequences = {
        "billing_account": "billingAccountId is not checked",
        "amount": "the spend ratio uses the message's own budgetAmount",
        "currency": "currencyCode is not checked",
        "period": "periods are taken to be calendar months",
    }
    return (
        f"MLGOV_POLICY.budgets.{budget_id} has no {', '.join(absent)}: "
        + "; ".join(consequences[k] for k in absent)
        + " (redeploy the stack to render them)"
    )


def amount_differs(alert: BudgetAlert, budget: BudgetPolicy) -> str | None:
    """A warning when the message's budgetAmount is not the amount the stack configured."""
    if budget.amount is None or abs(alert.budget_amount - budget.amount) < 0.005:
        return None
    return (
        f"budget {alert.budget_id}: the message's budgetAmount {alert.budget_amount:g} is not the "
        f"stack's amount {budget.amount:g}; the spend ratio uses the stack's (the deployed budget "
        "was changed outside the stack, or the message is not genuine)"
    )
