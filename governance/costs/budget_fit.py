"""Budget fit: stack-level findings when the estimate does not fit the stack's budget.

Two rules over the plan's `gcp:billing/budget:Budget` resources (those on all services: a budget
filtered to some services bounds only theirs) and a `CostReport`:
`mlgov-cost-budget-exceeded` (mandatory) when the estimate is above budget x (1 - headroom), and
`mlgov-cost-budget-near` (advisory) when it is above budget x warn_ratio. With no budget resource
there is nothing to fit (a missing budget is the policy pack's own rule).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from governance.costs.errors import CostError
from governance.costs.estimate import CostReport
from governance.costs.inputs import text
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_list, as_mapping, as_number, dig

DEFAULT_HEADROOM = 0.1
DEFAULT_WARN_RATIO = 0.8


def _amount_part(name: str, specified: Mapping[str, Any], key: str) -> float:
    value = specified.get(key)
    if not value:
        return 0.0
    found = as_number(value)
    if found is None:
        raise CostError(f"budget {name!r}: amount.specifiedAmount.{key} is not a number")
    return found


def budget_amount(name: str, inputs: Mapping[str, Any]) -> float:
    """Monthly USD of a budget's specifiedAmount (units + nanos); CostError if unreadable."""
    specified = as_mapping(dig(inputs, "amount", "specifiedAmount"))
    if not specified:
        raise CostError(f"budget {name!r}: amount.specifiedAmount is missing")
    where = f"budget {name!r}: amount.specifiedAmount.currencyCode"
    currency = text(specified.get("currencyCode"), "USD", where)
    if currency != "USD":
        raise CostError(f"budget {name!r} is in {currency}; the cost estimate is in USD")
    return _amount_part(name, specified, "units") + _amount_part(name, specified, "nanos") / 1e9


def budget_violations(
    resources: Sequence[Mapping[str, Any]],
    report: CostReport,
    headroom: float = DEFAULT_HEADROOM,
    warn_ratio: float = DEFAULT_WARN_RATIO,
    stack: str = "stack",
) -> list[dict[str, Any]]:
    """Violation dicts (policy, resource, type, enforcement, message, why, remediation)."""
    if not 0 <= headroom < 1:
        raise ValueError(f"headroom must be in [0, 1), got {headroom}")
    if not 0 < warn_ratio <= 1:
        raise ValueError(f"warn_ratio must be in (0, 1], got {warn_ratio}")
    estimate = round(report.monthly_usd, 2)
    baseline = round(report.baseline_monthly_usd, 2)
    found: list[dict[str, Any]] = []
    for res in resources:
        if res.get("type") != v.BUDGET:
            continue
        if as_list(dig(res.get("inputs"), "budgetFilter", "services")):
            # A budget on some services (e.g. a spend cap's alerts-only pair) bounds only their
            # spend, not the stack's whole estimate.
            continue
        name = str(res.get("name", ""))
        amount = budget_amount(name, as_mapping(res.get("inputs")))
        limit = amount * (1 - headroom)
        ratio = estimate / amount if amount else float("inf")
        common = {"resource": stack, "type": v.STACK}
        if estimate > limit:
            found.append(
                {
                    **common,
                    "policy": "mlgov-cost-budget-exceeded",
                    "enforcement": "mandatory",
                    "message": (
                        f"estimated ${estimate:,.2f}/month is {ratio:.0%} of budget {name!r} "
                        f"(${amount:,.2f}); the limit with {headroom:.0%} headroom is ${limit:,.2f}"
                    ),
                    "why": "the estimate leaves no room for usage above the assumptions, so the "
                    "budget guard would stop workloads mid-month",
                    "remediation": "raise the budget, lower usage assumptions you can defend, or "
                    "shrink the plan (spot, smaller machines, autoscale from 0); "
                    f"ungoverned baseline for comparison: ${baseline:,.2f}",
                }
            )
        elif estimate > amount * warn_ratio:
            found.append(
                {
                    **common,
                    "policy": "mlgov-cost-budget-near",
                    "enforcement": "advisory",
                    "message": (
                        f"estimated ${estimate:,.2f}/month is {ratio:.0%} of budget {name!r} "
                        f"(${amount:,.2f}), above the {warn_ratio:.0%} warning ratio"
                    ),
                    "why": "little room is left for growth before the budget guard acts",
                    "remediation": "review the largest resources in the cost breakdown",
                }
            )
    return found
