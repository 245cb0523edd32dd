"""The Budget API v1 `Budget` body of a spend cap, and its alerts-only pair's filter (pure).

One function renders what mlgov declares for a cap: one project (by number, as the API answers
it), one eligible service, MONTH, gross cost (EXCLUDE_ALL_CREDITS), the amount with no currency
(Google uses the billing account's), the three CURRENT_SPEND thresholds, project-level recipients
and nothing else, `spendCap.inputState: CONFIGURED`. It satisfies every rule of
mlgov_policies.compat.spend_caps (tests/spend_caps pin that). The paired alerts-only budget
(governance/components/spend_caps.py) watches the same project and service the same way.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

from mlgov_policies.compat.spend_caps import SPEND_CAP_THRESHOLDS

NANOS: Final = 1_000_000_000


def money(amount: float) -> dict[str, Any]:
    """`google.type.Money` for a non-negative amount: `units` (int64 as a string) and `nanos`.

    Decimal of the float's shortest repr, so 0.1 is 100000000 nanos, not 100000000.000000005.
    """
    exact = Decimal(repr(float(amount)))
    units = int(exact)
    nanos = int((exact - units) * NANOS)
    body: dict[str, Any] = {"units": str(units)}
    if nanos:
        body["nanos"] = nanos
    return body


def budget_filter(project_number: str, service: str) -> dict[str, Any]:
    """What a cap (and its alerts-only pair) counts: one project, one service, gross, monthly."""
    return {
        "projects": [f"projects/{project_number}"],
        "services": [service],
        "creditTypesTreatment": "EXCLUDE_ALL_CREDITS",
        "calendarPeriod": "MONTH",
    }


def cap_body(
    *, display_name: str, project_number: str, service: str, amount: float
) -> dict[str, Any]:
    """The `Budget` body of one spend cap, as created (camelCase, as the REST API takes it)."""
    return {
        "displayName": display_name,
        "budgetFilter": budget_filter(project_number, service),
        "amount": {"specifiedAmount": money(amount)},
        "thresholdRules": [
            {"thresholdPercent": t, "spendBasis": "CURRENT_SPEND"} for t in SPEND_CAP_THRESHOLDS
        ],
        "notificationsRule": {"enableProjectLevelRecipients": True},
        "ownershipScope": "ALL_USERS",
        "spendCap": {"inputState": "CONFIGURED"},
    }
