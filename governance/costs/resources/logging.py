"""Cloud Logging: retention past 30 days on log buckets, and what exclusions save.

Prices from https://cloud.google.com/stackdriver/pricing (catalog keys `logging.*`): ingestion is
a one-time charge per GiB that includes 30 days of storage; logs kept longer are billed per
GiB-month. A bucket that keeps logs R > 30 days holds, in steady state, (R - 30) days' worth of
ingest past the included period. An exclusion drops logs before ingestion: it costs nothing, and
its baseline is what ingesting those logs would cost (assuming the project is past its free
50 GiB a month; below that an exclusion saves nothing). Folder, organization and billing-account
buckets are priced like project buckets; their logs come from many projects, each with its own
free 50 GiB, and mlgov subtracts one project's allotment (it cannot know how many projects feed
the bucket). Sinks are free (registry.py): the Log Router has no charge.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.inputs import number
from governance.costs.model import Resource
from governance.costs.month import DAYS_PER_MONTH
from governance.costs.usage_models import usage_model

INCLUDED_DAYS = 30.0  # storage included with ingestion
FREE_GIB = 50.0  # ingestion free per project a month (same page)
DEFAULT_RETENTION_DAYS = 30.0  # what `_Default` keeps when nobody sets it


class Declared(BaseModel):
    """A log bucket's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_ingestion_gib: float | None = Field(
        default=None, ge=0, description="GiB of logs ingested into the bucket a month."
    )


@usage_model(place=120)
class LoggingUsage(BaseModel):
    """How much the project logs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    logging_gb_per_month: float = Field(
        default=50.0, ge=0, description="GiB ingested per month into a log bucket."
    )
    logging_excluded_gb_per_month: float = Field(
        default=20.0, ge=0, description="GiB per month one exclusion keeps out of ingestion."
    )


def _retention(
    q: Quote, retention: float, ctx: PlanContext, bill_governed: bool, monthly: float
) -> None:
    bill = q.governed if bill_governed else q.baseline
    extra_days = max(retention - INCLUDED_DAYS, 0.0)
    if extra_days == 0:
        bill.note(f"retention {retention:g} days: within the 30 days included with ingestion")
        return
    gib = monthly * extra_days / DAYS_PER_MONTH
    price = ctx.catalog.price("logging.retention", "global")
    bill.charge("retention", price, gib, f"{monthly:g} GiB/month x {extra_days:g} days past 30")


def _ingestion(q: Quote, ctx: PlanContext, declared: float | None) -> None:
    price = ctx.catalog.price("logging.ingestion", "global")
    for b in (q.governed, q.baseline):
        if declared is None:
            b.depends_on_usage("ingestion", price, "monthly_ingestion_gib",
                               f"per GiB beyond the project's free {FREE_GIB:g} GiB")  # fmt: skip
        else:
            billed = max(declared - FREE_GIB, 0.0)
            b.charge("ingestion", price, billed,
                     f"{declared:g} GiB minus the project's free {FREE_GIB:g} GiB")  # fmt: skip


def bucket(res: Resource, ctx: PlanContext) -> Quote:
    """Retention past 30 days; the baseline keeps the 30-day default."""
    q = Quote()
    retention = number(res.inputs.get("retentionDays"), DEFAULT_RETENTION_DAYS) or (
        DEFAULT_RETENTION_DAYS  # 0 at creation means the default (logging.v2 LogBucket)
    )
    declared = ctx.usage_of(res, Declared).monthly_ingestion_gib
    monthly = ctx.knobs(LoggingUsage).logging_gb_per_month if declared is None else declared
    _retention(q, retention, ctx, True, monthly)
    _retention(q, DEFAULT_RETENTION_DAYS, ctx, False, monthly)
    _ingestion(q, ctx, declared)
    return q


def exclusion(res: Resource, ctx: PlanContext) -> Quote:
    """$0; the baseline ingests what the exclusion drops."""
    q = Quote()
    gib = ctx.knobs(LoggingUsage).logging_excluded_gb_per_month
    q.governed.note("$0.00: excluded logs are never ingested")
    q.baseline.charge(
        "ingestion", ctx.catalog.price("logging.ingestion", "global"), gib, f"{gib:g} GiB/month"
    )
    return q
