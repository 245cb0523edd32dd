"""Artifact Registry repositories: stored GB at the documented per-GB-month price.

Contents are a usage assumption (a usage file's `storage_gb` wins); the first 0.5 GB per billing
account are free (mlgov sees one stack, so the free tier is credited once, on the plan's first
repository; context.py).
Source of both figures: https://cloud.google.com/artifact-registry/pricing (catalog keys
`artifactregistry.*`). Egress and vulnerability scanning are not priced; the baseline (no cleanup
policies) holds at least as much, so it is shown equal.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource


class Declared(BaseModel):
    """A repository's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    storage_gb: float | None = Field(default=None, ge=0, description="GB stored.")


class ArtifactRegistryUsage(BaseModel):
    """How much each image repository holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    artifact_registry_gb_per_repository: float = Field(
        default=20.0, ge=0, description="GB stored per repository."
    )
    artifact_registry_gb: dict[str, float] = Field(
        default_factory=dict, description="Per-repository GB, keyed by resource or repository id."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Stored GB above the free tier x the GB-month price; the baseline is the same."""
    q = Quote()
    price = ctx.catalog.price("artifactregistry.storage", "global")
    free = ctx.catalog.price("artifactregistry.free_gb", "global").usd
    u = ctx.usage
    gb = u.artifact_registry_gb.get(
        res.name, u.artifact_registry_gb.get(str(res.inputs.get("repositoryId") or ""), None)
    )
    stored = u.artifact_registry_gb_per_repository if gb is None else gb
    declared = ctx.usage_of(res, Declared).storage_gb
    stored = stored if declared is None else declared
    first = ctx.free_tier_repository in ("", res.name)
    billed = max(stored - free, 0.0) if first else stored
    why = (
        f"minus {free:g} GB free tier" if first else "(the free tier goes to the first repository)"
    )
    for b in (q.governed, q.baseline):
        b.charge("storage", price, billed, f"{stored:g} GB {why}")
    return q
