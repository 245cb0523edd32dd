"""BigQuery datasets: stored GiB at the active rate, and the long-term rate after 90 days.

Stored data = ingest GiB/day x days kept. Days kept come from the dataset's default partition
or table expiration, else from its tables' partition expirations (context), else the
`bigquery_unbounded_retention_days` accumulation. Tables are priced here, on their dataset
(ingest is assumed per dataset). The baseline keeps data forever. On-demand queries, the Storage
Read and Write APIs and streaming inserts are usage (catalog `bigquery.query.ondemand`,
`bigquery.storage_read_api`, `bigquery.storage_write_api`, `bigquery.streaming_insert`): declared
per dataset in a usage file, else "depends on usage" lines. BigQuery's free tier is per billing
account: the first 1 TiB of on-demand queries a month (catalog `bigquery.query.free_tib`) and the
first 10 GiB of storage a month (`bigquery.storage.free_gib`). mlgov assumes one plan is one
billing account and subtracts them visibly, as it gives the GKE credit to the first zonal
cluster: the free TiB to the datasets that declare queries, in plan order (context.py), the free
GiB from the active storage of the plan's first dataset, in both bills (the Storage API free
tiers are not applied). A table costs nothing of its own unless its usage file declares what it
holds or reads (`monthly_active_storage_gb`, `monthly_long_term_storage_gb` and the API keys
above): then those are priced on the table, at its dataset's location, on top of the dataset's
own estimate (set the dataset's `bigquery_stored_gb` to 0 rather than count the bytes twice).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Bill, Quote
from governance.costs.catalog import Price
from governance.costs.context import PlanContext
from governance.costs.inputs import number
from governance.costs.model import Resource
from governance.costs.usage_models import usage_model
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_str, dig

# Data not modified for 90 consecutive days is billed at the long-term storage rate.
# Source: https://cloud.google.com/bigquery/pricing#storage
LONG_TERM_DAYS = 90.0
_DAY_MS = 86_400_000


# The API use a dataset and a table may each declare (one definition, the same key in both).
StorageReadTiB = Annotated[
    float | None, Field(ge=0, description="TiB read through the Storage Read API a month.")
]
StorageWriteGiB = Annotated[
    float | None, Field(ge=0, description="GiB written through the Storage Write API a month.")
]
StreamingInsertsMiB = Annotated[
    float | None, Field(ge=0, description="MiB of legacy streaming inserts a month.")
]


class Declared(BaseModel):
    """A dataset's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_queries_tib: float | None = Field(
        default=None, ge=0, description="TiB scanned by on-demand queries a month."
    )
    monthly_storage_read_api_tib: StorageReadTiB = None
    monthly_storage_write_api_gib: StorageWriteGiB = None
    monthly_streaming_inserts_mib: StreamingInsertsMiB = None


class TableDeclared(BaseModel):
    """A table's usage in a usage file (its storage, and the API use counted against it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_active_storage_gb: float | None = Field(
        default=None, ge=0, description="GiB of active logical storage."
    )
    monthly_long_term_storage_gb: float | None = Field(
        default=None, ge=0, description="GiB of long-term logical storage (unmodified 90 days)."
    )
    monthly_storage_read_api_tib: StorageReadTiB = None
    monthly_storage_write_api_gib: StorageWriteGiB = None
    monthly_streaming_inserts_mib: StreamingInsertsMiB = None


# (declared field, catalog key, line) of each usage-based part
_USAGE_PARTS = (
    ("monthly_queries_tib", "bigquery.query.ondemand", "on-demand queries"),
    ("monthly_storage_read_api_tib", "bigquery.storage_read_api", "Storage Read API"),
    ("monthly_storage_write_api_gib", "bigquery.storage_write_api", "Storage Write API"),
    ("monthly_streaming_inserts_mib", "bigquery.streaming_insert", "streaming inserts"),
)


@usage_model(place=50)
class BigQueryUsage(BaseModel):
    """How much data datasets take in and hold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bigquery_ingest_gb_per_day: float = Field(
        default=1.0, ge=0, description="GiB written per day into a dataset (default for all)."
    )
    bigquery_ingest: dict[str, float] = Field(
        default_factory=dict, description="Per-dataset GiB/day, keyed by datasetId."
    )
    bigquery_stored_gb: dict[str, float] = Field(
        default_factory=dict,
        description="Per-dataset stored GiB, keyed by datasetId; wins over the ingest math.",
    )
    bigquery_unbounded_retention_days: float = Field(
        default=365.0,
        ge=0,
        description="Days of data a dataset without any expiration holds (the accumulation).",
    )


def retention(
    inputs: Mapping[str, Any], tables: Sequence[Mapping[str, Any]]
) -> tuple[float | None, str]:
    """(days a dataset keeps data or None for forever, which setting says so)."""
    for key in ("defaultPartitionExpirationMs", "defaultTableExpirationMs"):
        ms = number(inputs.get(key))
        if ms > 0:
            return ms / _DAY_MS, key
    expirations = [number(dig(t, "timePartitioning", "expirationMs")) for t in tables]
    if expirations and all(e > 0 for e in expirations):
        return max(expirations) / _DAY_MS, "longest table partition expiration"
    return None, "no expiration: bigquery_unbounded_retention_days"


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Governed: data kept as long as the expirations allow; baseline: no expiration."""
    q = Quote()
    dataset_id = as_str(res.inputs.get("datasetId")) or res.name
    region = ctx.region(res.inputs, "location")
    u = ctx.knobs(BigQueryUsage)
    ingest = u.bigquery_ingest.get(dataset_id, u.bigquery_ingest_gb_per_day)
    days_kept, why = retention(res.inputs, ctx.tables.get(dataset_id, ()))
    unbounded = u.bigquery_unbounded_retention_days
    active_p = ctx.catalog.price("bigquery.storage.active", region)
    lt_p = ctx.catalog.price("bigquery.storage.longterm", region)
    for b, days, reason in ((q.governed, days_kept, why), (q.baseline, None, "no expiration")):
        if dataset_id in u.bigquery_stored_gb:
            active = u.bigquery_stored_gb[dataset_id]
            b.charge("active storage", active_p, active, f"{active:g} GiB (bigquery_stored_gb)")
        else:
            keep = unbounded if days is None else days
            b.note(f"{ingest:g} GiB/day x {keep:g} days kept ({reason}) = {ingest * keep:g} GiB")
            active = ingest * min(keep, LONG_TERM_DAYS)
            b.charge("active storage", active_p, active, f"{active:g} GiB")
            if keep > LONG_TERM_DAYS:
                old = ingest * (keep - LONG_TERM_DAYS)
                b.charge("long-term storage", lt_p, old, f"{old:g} GiB older than 90 days")
        if res.name == ctx.free_tier_dataset:
            _free_storage(b, ctx, active_p, active)
    d = ctx.usage_of(res, Declared)
    free_tib = ctx.free_query_tib.get(res.name, 0.0)
    for b in (q.governed, q.baseline):
        for field, key, label in _USAGE_PARTS:
            price = ctx.catalog.price(key, region)
            amount: float | None = getattr(d, field)
            if amount is None:
                b.depends_on_usage(label, price, field)
                continue
            b.charge(label, price, amount, f"{amount:g} {price.unit} ({field})")
            if field == "monthly_queries_tib" and free_tib > 0:
                b.adjust(
                    -free_tib * price.usd,
                    f"{label}: minus free tier {free_tib:g} TiB x ${price.usd:g}/TiB = "
                    f"-${free_tib * price.usd:.2f} ({FREE_TIER_RULE}: the first "
                    f"{_free(ctx, 'bigquery.query.free_tib'):g} TiB of on-demand queries a month, "
                    "shared by the plan's datasets that declare queries, in plan order)",
                )
    return q


# Said on every free-tier line: the tier is per billing account, and mlgov sees one plan.
FREE_TIER_RULE = "BigQuery free tier, per billing account; one plan is assumed to be one account"


def _free(ctx: PlanContext, key: str) -> float:
    """A free-tier size from the catalog (0 when the catalog has none)."""
    found = ctx.catalog.find(key, "global")
    return found.usd if found is not None else 0.0


def _free_storage(b: Bill, ctx: PlanContext, price: Price, active_gib: float) -> None:
    """The first free GiB of storage, credited against the dataset's active storage."""
    free = min(_free(ctx, "bigquery.storage.free_gib"), active_gib)
    if free <= 0:
        return
    b.adjust(
        -free * price.usd,
        f"active storage: minus free tier {free:g} GiB x ${price.usd:g}/GiB-month = "
        f"-${free * price.usd:.2f} ({FREE_TIER_RULE}: the first "
        f"{_free(ctx, 'bigquery.storage.free_gib'):g} GiB of storage a month, given to the "
        "plan's first dataset)",
    )


_TABLE_PARTS = (
    ("monthly_active_storage_gb", "bigquery.storage.active", "active storage"),
    ("monthly_long_term_storage_gb", "bigquery.storage.longterm", "long-term storage"),
    *_USAGE_PARTS[1:],
)


def table(res: Resource, ctx: PlanContext) -> Quote:
    """Declared storage and API use at the dataset's location; else $0 (priced on the dataset)."""
    q = Quote()
    d = ctx.usage_of(res, TableDeclared)
    declared = [(f, k, label) for f, k, label in _TABLE_PARTS if getattr(d, f) is not None]
    if not declared:
        q.governed.note("$0.00: stored bytes are priced on its dataset (ingest is per dataset)")
        return q
    dataset = ctx.referenced(v.BQ_DATASET, res.inputs.get("datasetId"))
    region = ctx.region(dataset.inputs if dataset is not None else res.inputs, "location")
    for b in (q.governed, q.baseline):
        for field, key, label in declared:
            price = ctx.catalog.price(key, region)
            amount: float = getattr(d, field)
            b.charge(label, price, amount, f"{amount:g} {price.unit} ({field})")
    return q
