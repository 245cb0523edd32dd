"""`budget`: the stack's monthly budget (component: governance/components/budgets.py).

`problems` guards billing unlink (confirmed, never in prod, only after stopping) and keeps the
thresholds ascending; `threshold_warnings` points out stop levels the budget's own alerts do not
mark.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Final, Protocol

from pydantic import Field

from governance.settings.base import Fraction, Model, Problem
from governance.settings.scopes import ScopeKey, billing_unlink_possible

if TYPE_CHECKING:
    from governance.settings.automation import AutomationSettings
    from governance.settings.base import Environment


CURRENCY: Final = "USD"
"""The budget's currency (`amount_usd`); notifications name it as currencyCode."""
MAX_AMOUNT: Final = 1_000_000_000_000
"""Largest budget accepted: Google documents no maximum beyond Money's int64 `units`; a trillion
a month is far above any bill and keeps the amount exact where the functions divide by it (the
same bound as spend caps)."""
PERIOD: Final = "MONTH"
"""The budget's calendar period; the functions judge each notification within it."""


class BudgetSettings(Model):
    """The monthly budget for the stack's project."""

    amount_usd: Annotated[int, Field(gt=0, le=MAX_AMOUNT)]
    thresholds: tuple[Fraction, ...] = (0.5, 0.9, 1.0)  # fractions of the budget, actual
    forecast_thresholds: tuple[Fraction, ...] = (1.0,)  # fractions, forecast spend
    stop_at: Fraction | None = 1.0  # stop governed workloads at this fraction (actual)
    disable_billing_at: Fraction | None = None  # unlink billing at this fraction (actual)
    # Folders or organizations (declared in automation.scopes) whose spend the budget counts
    # and whose projects its cap stops, instead of the stack's project.
    scopes: tuple[ScopeKey, ...] = ()


class _BudgetStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one).

    Also what scopes.py's `billing_unlink_possible` reads, since the check asks it.
    """

    @property
    def environment(self) -> Environment: ...

    @property
    def is_prod(self) -> bool: ...

    @property
    def project(self) -> str: ...

    @property
    def automation(self) -> AutomationSettings: ...

    @property
    def budget(self) -> BudgetSettings: ...


def problems(s: _BudgetStack) -> Iterator[Problem]:
    """Billing unlink safety and threshold order."""
    b = s.budget
    if b.disable_billing_at is not None:
        if s.is_prod:
            yield (
                "budget.disable_billing_at",
                "unlinking billing stops every service in the project; it is never allowed in "
                "prod: remove it",
            )
        elif b.scopes and not billing_unlink_possible(s):
            yield (
                "budget.disable_billing_at",
                "unlinking billing stops every service in each project and may delete resources; "
                "no scope of budget.scopes allows it: set allow_billing_disable: true on the "
                "scope (automation.scopes) to confirm",
            )
        elif not b.scopes and not s.automation.allow_billing_disable:
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


def threshold_warnings(b: BudgetSettings) -> list[Problem]:
    """Warnings (key path, message) for a stop level that is not one of `thresholds`.

    The cap still fires there: it acts on costAmount / the budget amount, and notifications
    arrive several times a day whether or not a threshold was crossed. But no console or email
    alert marks the moment, so the people watching the budget see it only in the logs.
    """
    warnings: list[Problem] = []
    levels = (
        ("stop_at", b.stop_at, "stops workloads"),
        ("disable_billing_at", b.disable_billing_at, "unlinks billing"),
    )
    for key, level, does in levels:
        if level is not None and not any(math.isclose(level, t) for t in b.thresholds):
            warnings.append(
                (
                    f"budget.{key}",
                    f"{level:g} is not among budget.thresholds {list(b.thresholds)}: the cap "
                    f"still {does} at {level:.0%} of the budget, but no budget alert (console, "
                    f"email) marks that moment; add {level:g} to budget.thresholds",
                )
            )
    return warnings
