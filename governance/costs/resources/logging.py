"""Cloud Logging: retention past 30 days on log buckets, and what exclusions save.

Prices from https://cloud.google.com/stackdriver/pricing (catalog keys `logging.*`): ingestion is
a one-time charge per GiB that includes 30 days of storage; logs kept longer are billed per
GiB-month. A bucket that keeps logs R > 30 days holds, in steady state, (R - 30) days' worth of
ingest past the included period. An exclusion drops logs before ingestion: it costs nothing, and
its baseline is what ingesting those logs would cost (assuming the project is past its free
50 GiB a month; below that an exclusion saves nothing).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.inputs import number
from governance.costs.model import Resource
from governance.costs.month import DAYS_PER_MONTH

INCLUDED_DAYS = 30.0  # storage included with ingestion
DEFAULT_RETENTION_DAYS = 30.0  # what `_Default` keeps when nobody sets it


class LoggingUsage(BaseModel):
    """How much the project logs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    logging_gb_per_month: float = Field(
        default=50.0, ge=0, description="GiB ingested per month into a log bucket."
    )
    logging_excluded_gb_per_month: float = Field(
        default=20.0, ge=0, description="GiB per month one exclusion keeps out of ingestion."
    )


def _retention(q: Quote, retention: float, ctx: PlanContext, bill_governed: bool) -> None:
    bill = q.governed if bill_governed else q.baseline
    extra_days = max(retention - INCLUDED_DAYS, 0.0)
    if extra_days == 0:
        bill.note(f"retention {retention:g} days: within the 30 days included with ingestion")
        return
    gib = ctx.usage.logging_gb_per_month * extra_days / DAYS_PER_MONTH
    price = ctx.catalog.price("logging.retention", "global")
    bill.charge(
        "retention",
        price,
        gib,
        f"{ctx.usage.logging_gb_per_month:g} GiB/month x {extra_days:g} days past 30",
    )


def bucket(res: Resource, ctx: PlanContext) -> Quote:
    """Retention past 30 days; the baseline keeps the 30-day default."""
    q = Quote()
    retention = number(res.inputs.get("retentionDays"), DEFAULT_RETENTION_DAYS) or (
        DEFAULT_RETENTION_DAYS  # 0 at creation means the default (logging.v2 LogBucket)
    )
    _retention(q, retention, ctx, bill_governed=True)
    _retention(q, DEFAULT_RETENTION_DAYS, ctx, bill_governed=False)
    return q


def exclusion(res: Resource, ctx: PlanContext) -> Quote:
    """$0; the baseline ingests what the exclusion drops."""
    q = Quote()
    gib = ctx.usage.logging_excluded_gb_per_month
    q.governed.note("$0.00: excluded logs are never ingested")
    q.baseline.charge(
        "ingestion", ctx.catalog.price("logging.ingestion", "global"), gib, f"{gib:g} GiB/month"
    )
    return q
