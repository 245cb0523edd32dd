"""Monthly cost of each resource in a plan, governed and as an ungoverned team would run it.

`estimate_resources(resources, assumptions, catalog)` prices plan-document resources (type, name,
inputs) with list prices from catalog.py and usage from assumptions.py. Each resource gets two
numbers: `monthly_usd` (as configured: spot, idle shutdown, office hours, autoscale-from-0,
maxRunDuration, expiry) and `baseline_monthly_usd` (the same thing on-demand, on 730 h a month,
with no idle shutdown, schedule, expiry or scale-to-zero). Every number comes with explanation
lines naming catalog keys and assumption values. This module only drives the estimate: each
type's pricing is in resources/, the type table in registry.py, budget checks in budget_fit.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from governance.costs.assumptions import UsageAssumptions
from governance.costs.bill import Quote
from governance.costs.catalog import Catalog, default_catalog
from governance.costs.context import PlanContext
from governance.costs.errors import CostError, UnknownResourceType, add_context
from governance.costs.model import Resource
from governance.costs.office_hours import window_hours_per_month
from governance.costs.registry import PRICED, free_reason

__all__ = [
    "CostReport",
    "ResourceCost",
    "UsageAssumptions",
    "estimate_resources",
    "window_hours_per_month",
]


@dataclass(frozen=True, slots=True)
class ResourceCost:
    """Monthly cost of one resource, governed and baseline, with the arithmetic behind it."""

    name: str
    type: str
    monthly_usd: float
    baseline_monthly_usd: float
    lines: tuple[str, ...] = ()
    worst_case_usd: float | None = None
    """Informational monthly ceiling (e.g. a query quota's worst case); not in any total."""


@dataclass(frozen=True)
class CostReport:
    """Costs of every resource in a plan; totals are sums of the per-resource numbers."""

    resources: list[ResourceCost] = field(default_factory=list[ResourceCost])
    catalog_version: int = 0
    catalog_generated: str = ""

    @property
    def monthly_usd(self) -> float:
        """Estimated monthly total (USD)."""
        return math.fsum(r.monthly_usd for r in self.resources)

    @property
    def baseline_monthly_usd(self) -> float:
        """Monthly total of the ungoverned baseline (USD)."""
        return math.fsum(r.baseline_monthly_usd for r in self.resources)

    def as_dict(self) -> dict[str, float]:
        """The plan document's "cost" key, rounded to cents."""
        return {
            "monthly_usd": round(self.monthly_usd, 2),
            "baseline_monthly_usd": round(self.baseline_monthly_usd, 2),
        }

    def by_name(self) -> dict[str, float]:
        """Monthly USD per resource name (rounded to cents), for the plan's "monthly_usd"."""
        return {r.name: round(r.monthly_usd, 2) for r in self.resources}

    def get(self, name: str, type_: str | None = None) -> ResourceCost:
        """The cost of the resource called `name` (and of `type_`, if given)."""
        for r in self.resources:
            if r.name == name and (type_ is None or r.type == type_):
                return r
        raise KeyError(name)


def _quote(res: Resource, ctx: PlanContext) -> Quote:
    """The resource's quote from its cost model, or a stated $0 for a known free type."""
    model = PRICED.get(res.type)
    if model is None:
        reason = free_reason(res.type)
        if reason is None:
            raise UnknownResourceType(res.type, res.name)
        return Quote.free(reason)
    try:
        return model(res, ctx)
    except CostError as err:
        raise add_context(err, f"{res.type} {res.name!r}: ") from None


def estimate_resources(
    resources: Sequence[Mapping[str, Any]],
    assumptions: UsageAssumptions | None = None,
    catalog: Catalog | None = None,
) -> CostReport:
    """Price every resource (plan-document shape: type, name, inputs).

    Raises:
        UnknownResourceType: a type has no cost model and no stated reason to be free.
        CatalogError: a resource uses something the catalog has no price for.
        CostError: inputs that cannot be priced (e.g. an unknown Cloud SQL tier).
    """
    usage = assumptions or UsageAssumptions()
    cat = catalog or default_catalog()
    plan = [Resource.from_plan(raw) for raw in resources]
    ctx = PlanContext.build(plan, usage, cat)
    out: list[ResourceCost] = []
    for res in plan:
        quote = _quote(res, ctx)
        out.append(
            ResourceCost(
                res.name,
                res.type,
                max(quote.governed.total, 0.0),
                max(quote.baseline.total, 0.0),
                tuple(quote.lines),
                quote.ceiling_usd,
            )
        )
    return CostReport(out, cat.version, cat.generated)
