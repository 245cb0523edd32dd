"""Pub/Sub topics: message throughput (topics themselves are free).

Throughput per topic is a usage assumption; message storage is not priced
(docs/reference/costs.md, Limits).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource


class PubSubUsage(BaseModel):
    """How much is published to each topic."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pubsub_gb_per_month: float = Field(
        default=0.01, ge=0, description="GiB published per topic per month."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Throughput in TiB; the baseline is the same."""
    q = Quote()
    price = ctx.catalog.price("pubsub.throughput", "global")
    gib = ctx.usage.pubsub_gb_per_month
    for b in (q.governed, q.baseline):
        b.charge("throughput", price, gib / 1024, f"{gib:g} GiB (topics themselves are free)")
    return q
