"""Monthly cost of each resource in a plan, governed and as an ungoverned team would run it.

`estimate_resources(resources, assumptions, catalog)` prices plan-document resources (type, name,
inputs) with list prices from catalog.py and usage from assumptions.py. Each resource gets two
numbers: `monthly_usd` (as configured: spot, idle shutdown, office hours, autoscale-from-0,
maxRunDuration, expiry) and `baseline_monthly_usd` (the same thing on-demand, on 730 h a month,
with no idle shutdown, schedule, expiry or scale-to-zero). Every number comes with explanation
lines naming catalog keys and assumption values, and says where a price came from another
location (the catalog's nearest-region fallback). A resource that cannot be priced (unknown
type, no price anywhere, unreadable inputs) or cannot exist (a machine, GPU or TPU not offered
in its region) never stops the estimate: it is kept with `unpriced` set and $0 in the totals,
and findings.py turns it into a finding. This module only drives the estimate: each type's
pricing is in resources/, the type table in registry.py, budget checks in budget_fit.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from governance.costs.assumptions import UsageAssumptions
from governance.costs.bill import CostLine, Fallback, Quote
from governance.costs.catalog import Catalog, default_catalog
from governance.costs.context import PlanContext
from governance.costs.errors import CostError, NotOffered, Refused, UnknownResourceType
from governance.costs.model import Resource
from governance.costs.office_hours import window_hours_per_month
from governance.costs.registry import PRICED, free_reason
from governance.costs.usage_file import UsageFile, declared_usage

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
    fallbacks: tuple[Fallback, ...] = ()
    """Charges priced from the nearest location with a price (the resource's has none)."""
    unpriced: str = ""
    """Why the resource has no price ("" when it has one); its numbers are then 0."""
    not_offered: bool = False
    """The reason it is unpriced is a machine, GPU or TPU not sold in its region."""
    refused: bool = False
    """The reason it is unpriced is an input value Google refuses (errors.Refused)."""
    list_monthly_usd: float | None = None
    """Under a committed-use assumption: the same usage at list price (else None)."""
    cost_lines: tuple[CostLine, ...] = ()
    """The same arithmetic as `lines`, structured (governed and baseline bills)."""
    unpriced_parts: tuple[tuple[str, str], ...] = ()
    """(part, why) of each part left out of the price (the rest of the resource is priced)."""
    declared: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """The usage the usage file declared for this resource (after per-type defaults)."""

    @property
    def priced(self) -> bool:
        """Whether the resource has a price (else `unpriced` says why)."""
        return not self.unpriced


@dataclass(frozen=True)
class CostReport:
    """Costs of every resource in a plan; totals are sums of the per-resource numbers."""

    resources: list[ResourceCost] = field(default_factory=list[ResourceCost])
    catalog_version: int = 0
    catalog_generated: str = ""
    commitment: str = "none"
    usage_file: UsageFile | None = None
    """The usage file the estimate used (None: none)."""
    unmatched_usage: tuple[str, ...] = ()
    """Names the usage file declares usage for that no resource of the plan has."""

    @property
    def monthly_usd(self) -> float:
        """Estimated monthly total (USD)."""
        return math.fsum(r.monthly_usd for r in self.resources)

    @property
    def baseline_monthly_usd(self) -> float:
        """Monthly total of the ungoverned baseline (USD)."""
        return math.fsum(r.baseline_monthly_usd for r in self.resources)

    @property
    def list_monthly_usd(self) -> float:
        """Monthly total at list prices (differs from `monthly_usd` under a commitment)."""
        return math.fsum(
            r.monthly_usd if r.list_monthly_usd is None else r.list_monthly_usd
            for r in self.resources
        )

    @property
    def unpriced(self) -> list[ResourceCost]:
        """Resources without a price (their $0 is not a price: the total is incomplete)."""
        return [r for r in self.resources if r.unpriced]

    def as_dict(self) -> dict[str, Any]:
        """The plan document's "cost" key, rounded to cents (extra keys only when they apply)."""
        out: dict[str, Any] = {
            "monthly_usd": round(self.monthly_usd, 2),
            "baseline_monthly_usd": round(self.baseline_monthly_usd, 2),
        }
        if self.commitment != "none":
            out["commitment"] = self.commitment
            out["list_monthly_usd"] = round(self.list_monthly_usd, 2)
        if unpriced := self.unpriced:
            out["unpriced"] = [r.name for r in unpriced]
        fallbacks = [
            {"resource": r.name, "key": f.key, "usage": f.usage, "from": f.used, "to": f.requested}
            for r in self.resources
            for f in r.fallbacks
        ]
        if fallbacks:
            out["price_fallbacks"] = fallbacks
        if notes := self.notes():
            out["notes"] = notes
        if self.usage_file is not None:
            out["usage_file"] = self.usage_file.source or "(in the document)"
        return out

    def depends_on_usage(self) -> int:
        """Parts of the governed bills priced per unit of usage nobody declared."""
        return sum(
            1
            for r in self.resources
            for x in r.cost_lines
            if x.kind == "usage" and x.bill == "governed"
        )

    def price_sources(self) -> dict[str, dict[str, str]]:
        """Catalog key -> {source, date} of every price a line used (once per document)."""
        found: dict[str, dict[str, str]] = {}
        for r in self.resources:
            for x in r.cost_lines:
                if x.key and x.key not in found:
                    found[x.key] = {"source": x.source, "date": x.price_date}
        return dict(sorted(found.items()))

    def notes(self) -> list[str]:
        """One sentence per thing a reader of the total must know (fallbacks, gaps)."""
        notes: list[str] = []
        for r in self.resources:
            by_region: dict[tuple[str, str], list[str]] = {}
            for f in r.fallbacks:
                by_region.setdefault((f.used, f.requested), []).append(f.key)
            for (used, requested), keys in by_region.items():
                notes.append(
                    f"{r.name}: no price in {requested} for {', '.join(sorted(set(keys)))}; "
                    f"priced from {used}, the nearest location with one"
                )
        if unpriced := self.unpriced:
            notes.append(
                f"the total leaves out {len(unpriced)} resource(s) that could not be priced: "
                + ", ".join(r.name for r in unpriced)
            )
        if partial := [r for r in self.resources if r.unpriced_parts]:
            notes.append(
                f"the total leaves out {sum(len(r.unpriced_parts) for r in partial)} part(s) of "
                f"{len(partial)} resource(s) that could not be priced: "
                + ", ".join(f"{r.name} ({p})" for r in partial for p, _ in r.unpriced_parts)
            )
        if self.unmatched_usage:
            notes.append(
                "the usage file declares usage for names no resource of the plan has: "
                + ", ".join(self.unmatched_usage)
            )
        return notes

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
    return model(res, ctx)


MAX_MONTHLY_USD = 1e12
"""Above this a resource's monthly amount is taken to come from an input no real resource has
(a 1e308-node pool): a trillion dollars a month is far beyond any bill, and a total of such
amounts stays finite, so no output shows `$inf` or `$nan` or writes JSON's `Infinity`."""
_TOO_LARGE = (
    "an input is too large to price: its monthly cost would exceed "
    f"${MAX_MONTHLY_USD:,.0f} (check the sizes and counts of its inputs)"
)


def _bounded_quote(res: Resource, ctx: PlanContext) -> Quote:
    """`_quote`, with amounts beyond MAX_MONTHLY_USD (or arithmetic overflowing) a CostError."""
    try:
        quote = _quote(res, ctx)
    except OverflowError:
        raise CostError(_TOO_LARGE) from None
    amounts = (quote.governed.total, quote.governed.list_total, quote.baseline.total)
    amounts += (quote.ceiling_usd,) if quote.ceiling_usd is not None else ()
    if not all(math.isfinite(a) and abs(a) <= MAX_MONTHLY_USD for a in amounts):
        raise CostError(_TOO_LARGE)
    return quote


def _cost(res: Resource, ctx: PlanContext) -> ResourceCost:
    """The resource's cost, or an unpriced row that says why (never an exception)."""
    try:
        quote = _bounded_quote(res, ctx)
    except CostError as err:
        text = f"unpriced: {err}"
        return ResourceCost(
            res.name, res.type, 0.0, 0.0, (text,), unpriced=str(err),
            not_offered=isinstance(err, NotOffered), refused=isinstance(err, Refused),
            cost_lines=(CostLine("governed", "unpriced", text),),
            declared=ctx.declared(res),
        )  # fmt: skip
    governed = max(quote.governed.total, 0.0)
    listed = max(quote.governed.list_total, 0.0)
    return ResourceCost(
        res.name,
        res.type,
        governed,
        max(quote.baseline.total, 0.0),
        tuple(quote.lines),
        worst_case_usd=quote.ceiling_usd,
        fallbacks=tuple(quote.fallbacks),
        list_monthly_usd=listed if ctx.usage.commitment != "none" else None,
        cost_lines=tuple(quote.entries),
        unpriced_parts=tuple(quote.unpriced_parts),
        declared=ctx.declared(res),
    )


def estimate_resources(
    resources: Sequence[Mapping[str, Any]],
    assumptions: UsageAssumptions | None = None,
    catalog: Catalog | None = None,
    usage_file: UsageFile | None = None,
) -> CostReport:
    """Price every resource (plan-document shape: type, name, inputs).

    A resource that cannot be priced is returned with `unpriced` set (see `ResourceCost`);
    nothing about one resource raises. `usage_file` declares usage per resource or type
    (usage_file.py); without it, usage-based parts are "depends on usage" lines.

    Raises:
        CatalogError: the catalog itself lacks what every plan needs (the free-tier keys).
        UsageFileError: the usage file declares a key a resource's type does not have.
    """
    usage = assumptions or UsageAssumptions()
    # `is None`, not `or`: a Catalog's truth is its length, which counts every price (~5 ms)
    cat = catalog if catalog is not None else default_catalog()
    plan = [Resource.from_plan(raw) for raw in resources]
    declared = declared_usage(usage_file, plan)
    ctx = PlanContext.build(plan, usage, cat, declared)
    out = [_cost(res, ctx) for res in plan]
    return CostReport(
        out, cat.version, cat.generated, usage.commitment, usage_file, declared.unmatched
    )
