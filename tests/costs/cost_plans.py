"""Plan-document resources shaped like the ones the mlgov program emits (RESOURCES.md).

The resources are bench/cost_plan.py's (`full_plan` and its parts, which bench/cost_bench.py
grows too), re-exported here. Also the helpers every cost-model test uses: `price` (a list price
from the shipped catalog, so expected amounts read as quantity x catalog price), `one` (estimate
a single resource, optionally among others that give it context) and `unpriced` (why one has no
price).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from bench.cost_plan import full_plan, node_pool, notebook, office_hours
from governance.costs.assumptions import UsageAssumptions
from governance.costs.catalog import default_catalog
from governance.costs.estimate import ResourceCost, estimate_resources

__all__ = [
    "AS_OF",
    "USAGE",
    "full_plan",
    "node_pool",
    "notebook",
    "office_hours",
    "one",
    "partial",
    "price",
    "unpriced",
    "usage_lines",
]

AS_OF = date(2026, 11, 1)
USAGE = UsageAssumptions(as_of=AS_OF)


def price(key: str, region: str = "us-central1", usage: str = "ondemand") -> float:
    """USD per unit of `key` in the shipped catalog."""
    return default_catalog().price(key, region, usage).usd


def one(
    resource: dict[str, Any],
    usage: UsageAssumptions = USAGE,
    others: Sequence[dict[str, Any]] = (),
) -> ResourceCost:
    """The cost of `resource`, estimated in a plan that also holds `others`."""
    report = estimate_resources([resource, *others], usage)
    return report.get(resource["name"], resource["type"])


def unpriced(
    resource: dict[str, Any],
    usage: UsageAssumptions = USAGE,
    others: Sequence[dict[str, Any]] = (),
) -> str:
    """Why `resource` has no price (it must have none: $0, no baseline, a stated reason)."""
    cost = one(resource, usage, others)
    assert (cost.monthly_usd, cost.baseline_monthly_usd) == (0, 0), cost
    assert cost.unpriced and cost.lines == (f"unpriced: {cost.unpriced}",)
    return cost.unpriced


def partial(
    resource: dict[str, Any],
    usage: UsageAssumptions = USAGE,
    others: Sequence[dict[str, Any]] = (),
) -> tuple[ResourceCost, dict[str, str]]:
    """The cost of a resource priced except for some parts, and {part: why} of those parts."""
    cost = one(resource, usage, others)
    assert cost.priced, cost.unpriced
    assert cost.unpriced_parts, "expected a part left out"
    return cost, dict(cost.unpriced_parts)


def usage_lines(cost: ResourceCost) -> dict[str, str]:
    """{what: usage key} of the governed lines that depend on undeclared usage."""
    return {
        x.what: x.usage_key for x in cost.cost_lines if x.kind == "usage" and x.bill == "governed"
    }
