"""Memorystore for Redis: instances per GB-hour by capacity tier, clusters per node-hour.

An instance (`gcp.redis.Instance`) is billed for its whole provisioned capacity
(`memorySizeGb`) at the GB-hour price of its service tier (BASIC or STANDARD_HA) and capacity
tier: M1 1-4 GB, M2 5-10 GB, M3 11-35 GB, M4 36-100 GB, M5 above 100 GB (catalog keys
`redis.<tier>.m1..m5`). Standard instances with read replicas are billed per node, which the
catalog has no price for: that part is named unpriced.

A cluster (`gcp.redis.Cluster`) is billed per node-hour by node type (`redis.cluster.node.*`),
with shards x (1 + replicas per shard) nodes; backups are stored GB (usage file
`backup_storage_gb`). AOF persistence has no catalog price: named unpriced.

Both run all month; the baseline is the same. The prices come from Infracost's goldens for
us-central1 (catalog sources); other regions use the nearest priced region, and the line says
so.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.errors import CostError
from governance.costs.inputs import number, text
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from mlgov_policies.props import as_mapping, as_str

# (largest GB of the capacity tier, tier): Google's capacity tiers for Redis instances
CAPACITY_TIERS = ((4, "m1"), (10, "m2"), (35, "m3"), (100, "m4"), (float("inf"), "m5"))
SERVICE_TIERS = {"BASIC": "basic", "STANDARD_HA": "standard"}
DEFAULT_NODE_TYPE = "REDIS_HIGHMEM_MEDIUM"  # the API's default node type for a cluster


class ClusterDeclared(BaseModel):
    """A Redis cluster's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backup_storage_gb: float | None = Field(
        default=None, ge=0, description="GB of backups kept a month."
    )


def capacity_tier(gb: float) -> str:
    """The capacity tier (m1..m5) an instance of `gb` GB is billed in."""
    return next(tier for top, tier in CAPACITY_TIERS if gb <= top)


def instance(res: Resource, ctx: PlanContext) -> Quote:
    """Provisioned GB x the GB-hour price of its service and capacity tier, all month."""
    q = Quote()
    region = ctx.region(res.inputs, "region")
    tier_name = text(res.inputs.get("tier"), "BASIC", "tier")
    tier = SERVICE_TIERS.get(tier_name)
    if tier is None:
        raise CostError(f"Redis instance {res.name!r}: unknown tier {tier_name!r}")
    gb = number(res.inputs.get("memorySizeGb"))
    if gb <= 0:
        raise CostError(f"Redis instance {res.name!r}: memorySizeGb must be a positive size")
    cap = capacity_tier(gb)
    price = ctx.catalog.price(f"redis.{tier}.{cap}", region)
    replicas = as_str(res.inputs.get("readReplicasMode")) == "READ_REPLICAS_ENABLED"
    for b in (q.governed, q.baseline):
        b.charge(
            "capacity",
            price,
            gb * HOURS_PER_MONTH,
            f"{gb:g} GB ({tier}, capacity tier {cap.upper()}) x {HOURS_PER_MONTH:g} h",
        )
    if replicas:
        q.unpriced_part(
            "read replicas", "Standard instances with read replicas bill per node: no price"
        )
    return q


def cluster(res: Resource, ctx: PlanContext) -> Quote:
    """Nodes x node-hour price all month, plus declared backups."""
    q = Quote()
    region = ctx.region(res.inputs, "region")
    node_type = text(res.inputs.get("nodeType"), DEFAULT_NODE_TYPE, "nodeType")
    key = f"redis.cluster.node.{node_type.lower().replace('_', '-')}"
    if not ctx.catalog.has(key):
        raise CostError(f"Redis cluster {res.name!r}: no price for node type {node_type!r}")
    shards = number(res.inputs.get("shardCount"), 1.0)
    replicas = number(res.inputs.get("replicaCount"))
    nodes = shards * (1 + replicas)
    price = ctx.catalog.price(key, region)
    backups = ctx.usage_of(res, ClusterDeclared).backup_storage_gb
    for b in (q.governed, q.baseline):
        b.charge(
            "nodes",
            price,
            nodes * HOURS_PER_MONTH,
            f"{shards:g} shards x (1 + {replicas:g} replicas) = {nodes:g} nodes x "
            f"{HOURS_PER_MONTH:g} h",
        )
        if backups is not None:
            b.charge(
                "backups",
                ctx.catalog.price("redis.cluster.backup", region),
                backups,
                f"{backups:g} GB (backup_storage_gb)",
            )
        elif as_mapping(res.inputs.get("automatedBackupConfig")):
            b.depends_on_usage(
                "backups", ctx.catalog.price("redis.cluster.backup", region), "backup_storage_gb"
            )
    if as_str(as_mapping(res.inputs.get("persistenceConfig")).get("mode")) == "AOF":
        q.unpriced_part("AOF persistence", "no catalog price for AOF persistence storage")
    return q
