"""GKE clusters: the management fee (minus the one free-tier credit) and the pools it creates.

A Standard cluster bills its nodes too: the default pool (`initialNodeCount` and `nodeConfig`,
unless `removeDefaultNodePool` is true or inline `nodePools` replace it) and every inline
`nodePools` entry, each in all of its zones (gke_pools.py). A pool that cannot be priced (an
unknown machine type) is named as an unpriced part and the rest of the cluster is still priced.
Separate `gcp.container.NodePool` resources are priced on their own (resources/node_pool.py).
Auto-provisioned (NAP) pools are bounded by `resourceLimits` but not priced (a line says so). An
Autopilot cluster bills the fee plus its pods' requested vCPU, memory and ephemeral storage by the
hour (general-purpose compute class, catalog `gke.autopilot.*`): how much the pods request is
usage (`autopilot_vcpus`, `autopilot_memory_gib`, `autopilot_ephemeral_storage_gib`, averages over
the month), else "depends on usage" lines. Which cluster gets the free tier is a plan-wide fact
(context.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.errors import CostError, NotOffered, Refused
from governance.costs.gke_pools import (
    PoolSpec,
    cluster_zones,
    pool_zones,
    price_pool,
    public_nodes,
)
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.regions import region_of
from mlgov_policies.props import as_bool, as_list, as_mapping, as_str, dig, is_unknown


class PoolDeclared(BaseModel):
    """One pool's usage inside a cluster's declaration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    nodes_per_zone: float = Field(ge=0, description="Average nodes running per zone.")


class Declared(BaseModel):
    """A cluster's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    default_pool_nodes_per_zone: float | None = Field(
        default=None, ge=0, description="Average nodes per zone of the default pool."
    )
    node_pools: dict[str, PoolDeclared] = Field(
        default_factory=dict,
        description='Inline pools by name (or position: "0", "1"): their nodes per zone.',
    )
    autopilot_vcpus: float | None = Field(
        default=None, ge=0, description="Autopilot: vCPUs the pods request, on average."
    )
    autopilot_memory_gib: float | None = Field(
        default=None, ge=0, description="Autopilot: GiB of memory the pods request, on average."
    )
    autopilot_ephemeral_storage_gib: float | None = Field(
        default=None, ge=0, description="Autopilot: GiB of ephemeral storage the pods request."
    )


# (declared field, catalog key, line, unit of the request) of Autopilot's pod charges
_AUTOPILOT = (
    ("autopilot_vcpus", "gke.autopilot.vcpu", "pod vCPU", "vCPU"),
    ("autopilot_memory_gib", "gke.autopilot.memory", "pod memory", "GiB"),
    ("autopilot_ephemeral_storage_gib", "gke.autopilot.ephemeral_storage",
     "pod ephemeral storage", "GiB"),
)  # fmt: skip


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """The fee (the same governed and baseline) plus the cluster's own pools."""
    q = Quote()
    fee = ctx.catalog.price("gke.cluster", "global")
    for b in (q.governed, q.baseline):
        b.charge("cluster management", fee, HOURS_PER_MONTH, "730 h")
        if res.name == ctx.free_tier_cluster:
            credit = ctx.catalog.price("gke.free_tier_credit", "global")
            b.adjust(
                -min(credit.usd, fee.usd * HOURS_PER_MONTH),
                f"minus GKE free tier ${credit.usd:g}/month ({credit.note})",
            )
    inputs = res.inputs
    if as_bool(dig(inputs, "clusterAutoscaling", "enabled")) is True:
        q.governed.note("auto-provisioned node pools are not priced (bounded by resourceLimits)")
    if as_bool(inputs.get("enableAutopilot")) is True:
        _autopilot(q, res, ctx)
        return q
    _pools(q, res, ctx)
    return q


def _autopilot(q: Quote, res: Resource, ctx: PlanContext) -> None:
    """Pods' requested vCPU, memory and ephemeral storage for 730 h, as declared."""
    if is_unknown(res.inputs.get("location")):
        q.unpriced_part("pods", "location is unknown: Autopilot prices differ by region")
        return
    region = region_of(as_str(res.inputs.get("location")) or ctx.usage.default_region)
    d = ctx.usage_of(res, Declared)
    for b in (q.governed, q.baseline):
        for field, key, what, unit in _AUTOPILOT:
            price = ctx.catalog.price(key, region)
            amount: float | None = getattr(d, field)
            if amount is None:
                b.depends_on_usage(what, price, field, f"per {unit}-hour requested")
            else:
                b.charge(what, price, amount * HOURS_PER_MONTH,
                         f"{amount:g} {unit} x {HOURS_PER_MONTH:g} h ({field})")  # fmt: skip


def _pools(q: Quote, res: Resource, ctx: PlanContext) -> None:
    inputs = res.inputs
    if is_unknown(inputs.get("location")):
        # A zonal cluster bills its pools in one zone, a regional one in three: never a guess.
        q.unpriced_part(
            "nodes",
            "location is unknown: a zonal cluster bills its pools in 1 zone, a regional one in 3",
        )
        return
    location = as_str(inputs.get("location")) or ""
    region = region_of(location) if location else ctx.usage.default_region
    declared = ctx.usage_of(res, Declared)
    pools = [as_mapping(p) for p in as_list(inputs.get("nodePools"))]
    specs: list[tuple[str, PoolSpec]] = []
    if pools:
        for i, pool in enumerate(pools):
            name = as_str(pool.get("name")) or str(i)
            own = declared.node_pools.get(name) or declared.node_pools.get(str(i))
            specs.append(
                (
                    f"node pool {name}",
                    _spec(pool, inputs, location, region, f"nodePools[{i}].nodeConfig", own),
                )
            )
    elif as_bool(inputs.get("removeDefaultNodePool")) is True:
        q.governed.note("default node pool removed (removeDefaultNodePool): no nodes of its own")
    else:
        default = {
            "nodeConfig": inputs.get("nodeConfig"),
            "initialNodeCount": inputs.get("initialNodeCount"),
        }
        own = (
            PoolDeclared(nodes_per_zone=declared.default_pool_nodes_per_zone)
            if declared.default_pool_nodes_per_zone is not None
            else None
        )
        spec = _spec(default, inputs, location, region, "nodeConfig", own)
        specs.append(("default pool", spec))
    for label, spec in specs:
        with q.part(label):
            try:
                price_pool(q, ctx, spec)
            except (NotOffered, Refused):
                raise  # the cluster could not be created: a mandatory finding on the cluster
            except CostError as err:
                q.unpriced_part("nodes", str(err))


def _spec(
    pool: Mapping[str, Any],
    cluster: Mapping[str, Any],
    location: str,
    region: str,
    where: str,
    own: PoolDeclared | None,
) -> PoolSpec:
    zones = (
        pool_zones(pool.get("nodeLocations"), cluster, location)
        if pool.get("nodeLocations")
        else cluster_zones(cluster)
    )
    public, why = public_nodes(pool, cluster)
    return PoolSpec(
        node=as_mapping(pool.get("nodeConfig")),
        autoscaling=as_mapping(pool.get("autoscaling")),
        node_count=pool.get("nodeCount"),
        initial_node_count=pool.get("initialNodeCount"),
        zones=zones,
        region=region,
        where=where,
        nodes_per_zone=own.nodes_per_zone if own is not None else None,
        public_nodes=public,
        public_why=why,
    )
