"""Artifact Registry repositories: stored GB at the documented per-GB-month price.

Contents are a usage assumption (a usage file's `storage_gb` wins); the first 0.5 GB per billing
account are free (mlgov sees one stack, so the free tier is credited once, on the plan's first
repository; context.py).
Source of both figures: https://cloud.google.com/artifact-registry/pricing (catalog keys
`artifactregistry.*`). The same page bills network egress by the repository's location and the
destination: "Internet egress charges are based on Premium tier pricing", so what a repository
sends to the internet is priced with egress.py's Premium Tier keys (usage `monthly_egress_gb`,
`monthly_egress_china_gb`, `monthly_egress_australia_gb`, else "depends on usage" lines); data
moving within the same location is free; transfer to other Google Cloud locations has its own
table, which no stored copy of the page shows past its first rows, so it is a line saying it is
not estimated (tests/costs/peer/differences.yaml, transfer-by-destination, lists where the
search looked). Vulnerability scanning is billed by Artifact Analysis, not here. The baseline
(no cleanup policies) holds at least as much, so it is shown equal.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.egress import InternetEgress, charge_internet_egress
from governance.costs.model import Resource
from governance.costs.regions import region_of
from governance.costs.usage_models import usage_model
from mlgov_policies.props import as_str


class _OwnDeclared(BaseModel):
    """A repository's own usage keys (egress keys come from InternetEgress)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    storage_gb: float | None = Field(default=None, ge=0, description="GB stored.")


# pydantic lays out fields from the LAST base to the first: own keys, then egress by destination.
class Declared(InternetEgress, _OwnDeclared):
    """A repository's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)


TRANSFER_NOT_ESTIMATED = (
    "transfer to other Google Cloud locations is not estimated: Artifact Registry bills it by "
    "route ('Egress to destinations within Google Cloud', https://cloud.google.com/"
    "artifact-registry/pricing), a table no source mlgov reads shows past its first row (free "
    "within the same location)"
)


@usage_model(place=110)
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
    u = ctx.knobs(ArtifactRegistryUsage)
    gb = u.artifact_registry_gb.get(
        res.name, u.artifact_registry_gb.get(str(res.inputs.get("repositoryId") or ""), None)
    )
    stored = u.artifact_registry_gb_per_repository if gb is None else gb
    d = ctx.usage_of(res, Declared)
    stored = stored if d.storage_gb is None else d.storage_gb
    first = ctx.free_tier_repository in ("", res.name)
    billed = max(stored - free, 0.0) if first else stored
    why = (
        f"minus {free:g} GB free tier" if first else "(the free tier goes to the first repository)"
    )
    region = region_of(as_str(res.inputs.get("location")) or ctx.usage.default_region)
    for b in (q.governed, q.baseline):
        b.charge("storage", price, billed, f"{stored:g} GB {why}")
        charge_internet_egress(b, ctx.catalog, region, d)
        b.note(TRANSFER_NOT_ESTIMATED)
    return q
