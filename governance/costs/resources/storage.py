"""Cloud Storage buckets: stored GiB at the storage classes its lifecycle rules move it through.

Contents are a usage assumption (per bucket, or the default). The lifecycle split is
costs/lifecycle.py's; the baseline keeps every byte in the bucket's own class (an ungoverned
bucket without lifecycle rules holds at least as much, so the saving shown is conservative).
Operations, retrieval and egress are not priced. Bucket objects are priced here, on their bucket.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.inputs import text
from governance.costs.lifecycle import class_shares
from governance.costs.model import Resource
from mlgov_policies.props import as_list

DEFAULT_STORAGE_CLASS = "STANDARD"  # the Cloud Storage default when a bucket names none


class StorageUsage(BaseModel):
    """How much each bucket holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    storage_gb_per_bucket: float = Field(default=10.0, ge=0, description="GiB per bucket.")
    storage_gb: dict[str, float] = Field(
        default_factory=dict, description="Per-bucket GiB, keyed by resource or bucket name."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Stored GiB x class price per lifecycle share; the baseline keeps the bucket's class."""
    q = Quote()
    region = ctx.region(res.inputs, "location")
    own = text(res.inputs.get("storageClass"), DEFAULT_STORAGE_CLASS, "storageClass").upper()
    u = ctx.usage
    gib = res.override(u.storage_gb, u.storage_gb_per_bucket)
    shares, why = class_shares(as_list(res.inputs.get("lifecycleRules")), own)
    if len(shares) > 1:
        q.governed.note(f"lifecycle: {why}")
    for cls, share in shares:
        price = ctx.catalog.price(f"storage.{cls.lower()}", region)
        detail = f"{gib:g} GiB" if share == 1 else f"{share:.0%} of {gib:g} GiB"
        q.governed.charge("storage", price, gib * share, detail)
    q.baseline.charge(
        "storage", ctx.catalog.price(f"storage.{own.lower()}", region), gib, f"{gib:g} GiB"
    )
    return q
