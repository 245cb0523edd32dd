"""Usage assumptions: the explicit, documented guesses that turn resource inputs into a bill.

Inputs say what exists; these say how much it runs. They live in the stack settings under
`mlgov:settings.usage` and travel with a plan document as its "assumptions" key, so a cost can
always be recomputed and explained. Prices live in catalog.py; the arithmetic in estimate.py.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field

HOURS_PER_MONTH = 730.0


class UsageAssumptions(BaseModel):
    """How much each kind of resource is used in a month (every field has a default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    as_of: date | None = Field(
        default=None,
        description="Date the month starts for `mlgov-expires-on` proration (default: today, UTC).",
    )
    default_region: str = Field(
        default="us-central1",
        description="Region used to price resources whose inputs name no location.",
    )

    # Workbench notebooks
    notebook_active_hours_per_month: float = Field(
        default=88.0,
        ge=0,
        le=HOURS_PER_MONTH,
        description="Hours a person actively works in one notebook per month (22 days x 4 h).",
    )
    notebook_sessions_per_month: int = Field(
        default=22,
        ge=0,
        description="Work sessions per notebook per month; each ends with one idle timeout.",
    )
    notebook_active_hours: dict[str, float] = Field(
        default_factory=dict,
        description="Per-notebook override of active hours/month, keyed by resource or GCP name.",
    )

    # GKE node pools
    training_pool_average_nodes: float = Field(
        default=0.5,
        ge=0,
        description="Average nodes running in an autoscale-from-0 pool over the month (nodes).",
    )
    training_pool_nodes: dict[str, float] = Field(
        default_factory=dict,
        description="Per-pool override of average running nodes, keyed by resource or pool name.",
    )

    # Standalone GPU VMs and TPU VMs
    gpu_vm_hours_per_month: float = Field(
        default=HOURS_PER_MONTH,
        ge=0,
        le=HOURS_PER_MONTH,
        description="Hours a standalone VM runs per month when nothing stops it (hours).",
    )
    gpu_vm_runs_per_month: int = Field(
        default=22,
        ge=0,
        description="Job starts per month for VMs with maxRunDuration; each run is capped by it.",
    )
    tpu_vm_hours_per_month: float = Field(
        default=HOURS_PER_MONTH,
        ge=0,
        le=HOURS_PER_MONTH,
        description="Hours a TPU VM is READY per month (hours); lower it if slices are deleted.",
    )

    # BigQuery
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

    # Cloud SQL
    sql_backup_gb: dict[str, float] = Field(
        default_factory=dict,
        description="Per-instance backup GiB, keyed by resource or instance name "
        "(default: equal to the disk size).",
    )

    # Cloud Storage
    storage_gb_per_bucket: float = Field(default=10.0, ge=0, description="GiB per bucket.")
    storage_gb: dict[str, float] = Field(
        default_factory=dict, description="Per-bucket GiB, keyed by resource or bucket name."
    )

    # Functions, Pub/Sub, NAT
    function_invocations_per_month: float = Field(
        default=3000.0, ge=0, description="Invocations per function per month."
    )
    function_invocations: dict[str, float] = Field(
        default_factory=dict, description="Per-function invocations/month, keyed by name."
    )
    function_seconds_per_invocation: float = Field(
        default=2.0, ge=0, description="Average billed seconds per invocation."
    )
    pubsub_gb_per_month: float = Field(
        default=0.01, ge=0, description="GiB published per topic per month."
    )
    nat_vm_count: int = Field(
        default=2, ge=0, description="VMs (incl. GKE nodes) that use each Cloud NAT gateway."
    )
    nat_gb_per_month: float = Field(
        default=50.0, ge=0, description="GiB processed by each Cloud NAT gateway per month."
    )
