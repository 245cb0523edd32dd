"""`budget`: the stack's monthly budget (component: governance/components/budgets.py).

`problems` guards billing unlink (confirmed, never in prod, only after stopping) and keeps the
thresholds ascending.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from governance.settings.base import Fraction, Model, Positive, Problem

if TYPE_CHECKING:
    from governance.settings.root import Settings


class BudgetSettings(Model):
    """The monthly budget for the stack's project."""

    amount_usd: Positive
    thresholds: tuple[Fraction, ...] = (0.5, 0.9, 1.0)  # fractions of the budget, actual
    forecast_thresholds: tuple[Fraction, ...] = (1.0,)  # fractions, forecast spend
    stop_at: Fraction | None = 1.0  # stop governed workloads at this fraction (actual)
    disable_billing_at: Fraction | None = None  # unlink billing at this fraction (actual)


def problems(s: Settings) -> Iterator[Problem]:
    """Billing unlink safety and threshold order."""
    b = s.budget
    if b.disable_billing_at is not None:
        if s.is_prod:
            yield (
                "budget.disable_billing_at",
                "unlinking billing stops every service in the project; it is never allowed in "
                "prod: remove it",
            )
        elif not s.automation.allow_billing_disable:
            yield (
                "budget.disable_billing_at",
                "unlinking billing stops every service in the project and may delete resources; "
                "set automation.allow_billing_disable: true to confirm",
            )
        if b.stop_at is not None and b.disable_billing_at < b.stop_at:
            yield (
                "budget.disable_billing_at",
                f"{b.disable_billing_at} is below stop_at {b.stop_at}; unlink only after stopping",
            )
    if s.is_prod and s.automation.allow_billing_disable:
        yield "automation.allow_billing_disable", "billing unlink is never enabled for prod"
    if list(b.thresholds) != sorted(set(b.thresholds)):
        yield "budget.thresholds", "thresholds must be distinct and ascending, e.g. [0.5, 0.9, 1.0]"
