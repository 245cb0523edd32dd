"""Cloud Monitoring: chargeable metric volume a month and read API calls, from declared usage.

A custom metric (`gcp.monitoring.MetricDescriptor`) costs what is written to it: Google bills
chargeable metric data per MiB in monthly volume tiers (catalog `monitoring.data.tier1..3`, the
Billing Catalog export's 0-100,000 MiB, 100,000-250,000 MiB and above) and read API calls per
1,000 (`monitoring.api_read`). Both are usage (`monthly_monitoring_data_mb`, `monthly_api_calls`),
else "depends on usage" lines. Tiers and the free allotments (150 MiB of metric data and a million
API calls a month) are per billing account; mlgov tiers per descriptor and does not apply the
free allotments. The baseline is the same.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource

# (tier key, MiB the tier covers a month)
TIERS = (("tier1", 100_000.0), ("tier2", 150_000.0), ("tier3", float("inf")))


class Declared(BaseModel):
    """A metric descriptor's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_monitoring_data_mb: float | None = Field(
        default=None, ge=0, description="MiB of metric data written a month."
    )
    monthly_api_calls: float | None = Field(
        default=None, ge=0, description="Read API calls a month."
    )


def metric_descriptor(res: Resource, ctx: PlanContext) -> Quote:
    """Metric MiB through the volume tiers, plus read API calls."""
    q = Quote()
    d = ctx.usage_of(res, Declared)
    region = ctx.usage.default_region
    cat = ctx.catalog
    api = cat.price("monitoring.api_read", "global")
    for b in (q.governed, q.baseline):
        if d.monthly_monitoring_data_mb is None:
            b.depends_on_usage(
                "metric data",
                cat.price("monitoring.data.tier1", region),
                "monthly_monitoring_data_mb",
                "per MiB (first 100,000 a month)",
            )
        else:
            left = d.monthly_monitoring_data_mb
            for tier, size in TIERS:
                part = min(left, size)
                if part <= 0:
                    break
                b.charge("metric data", cat.price(f"monitoring.data.{tier}", region), part,
                         f"{part:g} MiB ({tier})")  # fmt: skip
                left -= part
        if d.monthly_api_calls is None:
            b.depends_on_usage("API calls", api, "monthly_api_calls", "per 1,000 read calls")
        else:
            b.charge("API calls", api, d.monthly_api_calls / 1000,
                     f"{d.monthly_api_calls:g} calls")  # fmt: skip
    return q
