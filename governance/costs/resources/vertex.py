"""Vertex AI TensorBoard and ML Metadata stores: stored GiB at the per-GiB-month price.

Both bill for what they store (https://cloud.google.com/vertex-ai/pricing, catalog keys
`vertex.tensorboard.storage` and `vertex.metadata.storage`); how much is a usage assumption.
The baseline is the same: mlgov creates them only when asked and changes nothing about their use.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource


class VertexUsage(BaseModel):
    """How much the experiment tracking stores hold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    vertex_tensorboard_gb: float = Field(default=5.0, ge=0, description="GiB per TensorBoard.")
    vertex_metadata_gb: float = Field(default=1.0, ge=0, description="GiB per metadata store.")


def _stored(ctx: PlanContext, key: str, gib: float) -> Quote:
    """Stored GiB x the catalog price `key`, governed and baseline alike."""
    q = Quote()
    price = ctx.catalog.price(key, "global")
    for b in (q.governed, q.baseline):
        b.charge("storage", price, gib, f"{gib:g} GiB")
    return q


def tensorboard(res: Resource, ctx: PlanContext) -> Quote:
    """Stored GiB x the TensorBoard storage price."""
    del res
    return _stored(ctx, "vertex.tensorboard.storage", ctx.usage.vertex_tensorboard_gb)


def metadata_store(res: Resource, ctx: PlanContext) -> Quote:
    """Stored GiB x the ML Metadata storage price."""
    del res
    return _stored(ctx, "vertex.metadata.storage", ctx.usage.vertex_metadata_gb)
