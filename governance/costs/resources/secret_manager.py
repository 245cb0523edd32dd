"""Secret Manager: active secret versions per replica location, access operations, rotations.

Google bills each active secret version once per location it is replicated to (a secret with
automatic replication counts once), access operations per 10,000 and rotation notifications
each (catalog keys `secretmanager.*`). A `SecretVersion` is one active version of its secret,
times the secret's replica locations (found in the plan by `secretId`; 1 when the secret is not
in the plan), plus its declared access operations. A `Secret` itself costs what its usage file
declares (`active_secret_versions`, `monthly_access_operations`,
`monthly_rotation_notifications`), for versions created outside the plan: declare versions on
the secret or create them as `SecretVersion` resources, not both. The free tier (per billing
account) is not applied. The baseline is the same.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_list, as_mapping, dig


class SecretDeclared(BaseModel):
    """A secret's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    active_secret_versions: float | None = Field(
        default=None, ge=0, description="Active versions (not created as SecretVersion resources)."
    )
    monthly_access_operations: float | None = Field(
        default=None, ge=0, description="Access operations a month."
    )
    monthly_rotation_notifications: float | None = Field(
        default=None, ge=0, description="Rotation notifications a month."
    )


class VersionDeclared(BaseModel):
    """A secret version's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_access_operations: float | None = Field(
        default=None, ge=0, description="Access operations a month."
    )


def locations(secret_inputs: object) -> int:
    """Replica locations a secret's versions are billed in (automatic replication: 1)."""
    replicas = as_list(dig(as_mapping(secret_inputs), "replication", "userManaged", "replicas"))
    return max(len(replicas), 1)


def _access(q: Quote, ctx: PlanContext, ops: float | None) -> None:
    price = ctx.catalog.price("secretmanager.access", "global")
    for b in (q.governed, q.baseline):
        if ops is None:
            b.depends_on_usage("access operations", price, "monthly_access_operations",
                               "per 10,000")  # fmt: skip
        else:
            b.charge("access operations", price, ops / 10_000, f"{ops:g} operations")


def secret(res: Resource, ctx: PlanContext) -> Quote:
    """Declared versions x locations, access operations and rotation notifications."""
    q = Quote()
    d = ctx.usage_of(res, SecretDeclared)
    where = locations(res.inputs)
    cat = ctx.catalog
    for b in (q.governed, q.baseline):
        if d.active_secret_versions is None:
            b.note("versions are priced on the plan's SecretVersion resources "
                   "(declare `active_secret_versions` for others)")  # fmt: skip
        else:
            b.charge(
                "active versions",
                cat.price("secretmanager.version", "global"),
                d.active_secret_versions * where,
                f"{d.active_secret_versions:g} versions x {where} location(s)",
            )
        if d.monthly_rotation_notifications is not None:
            b.charge(
                "rotation notifications",
                cat.price("secretmanager.rotation", "global"),
                d.monthly_rotation_notifications,
                f"{d.monthly_rotation_notifications:g} notifications",
            )
    _access(q, ctx, d.monthly_access_operations)
    return q


def version(res: Resource, ctx: PlanContext) -> Quote:
    """One active version x its secret's locations, plus declared access operations."""
    q = Quote()
    found = ctx.referenced(v.SECRET, res.inputs.get("secret"))
    where = locations(found.inputs) if found is not None else 1
    why = f"secret {found.name}" if found is not None else "its secret is not in the plan"
    price = ctx.catalog.price("secretmanager.version", "global")
    for b in (q.governed, q.baseline):
        b.charge("active version", price, where, f"1 version x {where} location(s) ({why})")
    _access(q, ctx, ctx.usage_of(res, VersionDeclared).monthly_access_operations)
    return q
