"""Cloud DNS: a managed zone a month, and queries per million.

Google bills each managed zone a month (catalog `dns.zone`: the price of the first 25 zones of
a billing account; more zones cost less each, which mlgov does not apply) and queries per
million (`dns.query`, the first billion a month). Queries are usage, declared per record set
(`monthly_queries`), else a "depends on usage" line. The baseline is the same.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource
from mlgov_policies.props import as_str


class RecordSetDeclared(BaseModel):
    """A record set's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_queries: float | None = Field(default=None, ge=0, description="Queries a month.")


def managed_zone(res: Resource, ctx: PlanContext) -> Quote:
    """One zone-month; private zones are billed the same."""
    q = Quote()
    price = ctx.catalog.price("dns.zone", "global")
    visibility = (as_str(res.inputs.get("visibility")) or "public").lower()
    for b in (q.governed, q.baseline):
        b.charge("managed zone", price, 1, f"1 {visibility} zone")
    return q


def record_set(res: Resource, ctx: PlanContext) -> Quote:
    """Declared queries x the per-million price; records themselves are free."""
    q = Quote()
    price = ctx.catalog.price("dns.query", "global")
    queries = ctx.usage_of(res, RecordSetDeclared).monthly_queries
    for b in (q.governed, q.baseline):
        if queries is None:
            b.depends_on_usage("queries", price, "monthly_queries", "per million queries")
        else:
            b.charge("queries", price, queries / 1e6, f"{queries:g} queries")
    return q
