"""GKE node pools (`gcp.container.NodePool`): the pool's nodes in every zone it runs in.

The zones come from the pool's `nodeLocations`, else from its cluster in the plan (`cluster`
names it), else from the pool's location (three zones for a region); the arithmetic, defaults
and sources are gke_pools.py's. An autoscaled pool runs an assumed average number of nodes
(`training_pool_average_nodes` when it scales from 0, else its minimum; a usage file's
`nodes_per_zone` wins), clamped to min..max; spot pools use spot prices. The baseline keeps
max(1, min, ceil(average)) nodes on-demand all month.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.errors import CostError
from governance.costs.gke_pools import (
    NodePoolUsage,
    PoolSpec,
    pool_zones,
    price_pool,
    public_nodes,
)
from governance.costs.model import Resource
from governance.costs.regions import is_zone, region_of
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_list, as_mapping, as_str, is_unknown


class Declared(BaseModel):
    """A node pool's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    nodes_per_zone: float | None = Field(
        default=None, ge=0, description="Average nodes running per zone (Infracost's `nodes`)."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Governed: spot and the average running nodes; baseline: on-demand, nodes always on."""
    q = Quote()
    inputs = res.inputs
    cluster = ctx.referenced(v.GKE_CLUSTER, inputs.get("cluster"))
    cluster_inputs = cluster.inputs if cluster is not None else None
    location = as_str(inputs.get("location")) or (
        as_str(cluster_inputs.get("location")) if cluster_inputs is not None else None
    )
    if location is None and is_unknown(inputs.get("location")):
        # One zone or three, and which region: never a guess. The pool's own nodeLocations say
        # both; else a cluster in the plan would.
        zones = [z for z in as_list(inputs.get("nodeLocations")) if is_zone(as_str(z) or "")]
        if not zones:
            raise CostError(
                "location is not known until apply and neither its cluster (not in the plan) "
                "nor nodeLocations say where: the zones its nodes bill in are unknown"
            )
        location = region_of(str(zones[0]))
    region = region_of(location) if location else ctx.usage.default_region
    zones = pool_zones(inputs.get("nodeLocations"), cluster_inputs, location or region)
    public = public_nodes(inputs, cluster_inputs)
    spec = PoolSpec(
        node=as_mapping(inputs.get("nodeConfig")),
        autoscaling=as_mapping(inputs.get("autoscaling")),
        node_count=inputs.get("nodeCount"),
        initial_node_count=inputs.get("initialNodeCount"),
        zones=zones,
        region=region,
        where="nodeConfig",
        average_nodes=res.override(ctx.knobs(NodePoolUsage).training_pool_nodes, None),
        nodes_per_zone=ctx.usage_of(res, Declared).nodes_per_zone,
        public_nodes=public[0],
        public_why=public[1],
    )
    price_pool(q, ctx, spec)
    return q
