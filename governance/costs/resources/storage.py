"""Cloud Storage buckets: stored GiB at the bucket's storage class price.

Contents are a usage assumption (per bucket, or the default); operations and egress are not
priced. Bucket objects are priced here, on their bucket.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.inputs import text
from governance.costs.model import Resource

DEFAULT_STORAGE_CLASS = "STANDARD"  # the Cloud Storage default when a bucket names none


class StorageUsage(BaseModel):
    """How much each bucket holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    storage_gb_per_bucket: float = Field(default=10.0, ge=0, description="GiB per bucket.")
    storage_gb: dict[str, float] = Field(
        default_factory=dict, description="Per-bucket GiB, keyed by resource or bucket name."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Stored GiB x class price; the baseline is the same."""
    q = Quote()
    region = ctx.region(res.inputs, "location")
    storage_class = text(res.inputs.get("storageClass"), DEFAULT_STORAGE_CLASS, "storageClass")
    price = ctx.catalog.price(f"storage.{storage_class.lower()}", region)
    u = ctx.usage
    gib = res.override(u.storage_gb, u.storage_gb_per_bucket)
    for b in (q.governed, q.baseline):
        b.charge("storage", price, gib, f"{gib:g} GiB")
    return q
