"""Vertex AI: TensorBoard and ML Metadata storage, serving nodes and persistent training nodes.

TensorBoard and ML Metadata stores bill for what they store (https://cloud.google.com/vertex-ai/
pricing, catalog keys `vertex.tensorboard.storage` and `vertex.metadata.storage`); how much is a
usage assumption. Serving and training bill node-hours of the machine type and accelerators at
Vertex's rates (vertex_pricing.py):

- a deployment resource pool (`AiDeploymentResourcePool`) and a Model Garden deployment
  (`AiEndpointWithModelGardenDeployment`) run `minReplicaCount` nodes (default 1) all month while
  models are deployed ("you pay for each model deployed to an endpoint, even if no prediction is
  made", the same page); autoscaling above that is usage (`average_nodes`);
- an endpoint (`AiEndpoint`) holds no models in Pulumi: models are deployed to it by the SDK or
  gcloud, so what it serves is usage (`deployed_machine_type`, `deployed_accelerator_type`,
  `deployed_accelerator_count`, `deployed_nodes`), else a "depends on usage" line, never $0;
- a persistent resource (`AiPersistentResource`) bills every pool's replicas (or its autoscaling
  minimum) all month while it exists, with their boot disks (default 100 GiB pd-ssd) at Compute
  Engine's disk rates.

Spot serving nodes, TPU nodes and GPUs sold only inside A2/A3 machines make the resource
unpriced, naming the part. The baseline is the same: governance does not change them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.errors import CostError
from governance.costs.inputs import number, text
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.usage_models import usage_model
from governance.costs.vertex_pricing import MARKUP_KEY, node_parts
from mlgov_policies.props import as_bool, as_list, as_mapping, as_str, dig

# Vertex AI's boot disk when a pool's diskSpec names none (CustomJob / PersistentResource
# DiskSpec defaults: pd-ssd, 100 GB).
DEFAULT_BOOT_DISK = "pd-ssd"
DEFAULT_BOOT_GIB = 100.0


@usage_model(place=130)
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
    return _stored(ctx, "vertex.tensorboard.storage", ctx.knobs(VertexUsage).vertex_tensorboard_gb)


def metadata_store(res: Resource, ctx: PlanContext) -> Quote:
    """Stored GiB x the ML Metadata storage price."""
    del res
    return _stored(ctx, "vertex.metadata.storage", ctx.knobs(VertexUsage).vertex_metadata_gb)


# --- serving and training nodes ---------------------------------------------------------------


class NodesDeclared(BaseModel):
    """A deployment resource pool's or Model Garden endpoint's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    average_nodes: float | None = Field(
        default=None, ge=0, description="Nodes serving on average (autoscaling above the minimum)."
    )


class EndpointDeclared(BaseModel):
    """What an endpoint serves, deployed outside the plan (Pulumi's AiEndpoint holds no models)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    deployed_machine_type: str | None = Field(
        default=None, description="Machine type of the deployed models' nodes."
    )
    deployed_accelerator_type: str | None = Field(
        default=None, description="Accelerator per node (e.g. NVIDIA_TESLA_T4)."
    )
    deployed_accelerator_count: int = Field(default=0, ge=0, description="Accelerators per node.")
    deployed_nodes: float | None = Field(
        default=None, ge=0, description="Nodes serving on average, all deployed models together."
    )


def _charge_nodes(
    q: Quote, ctx: PlanContext, spec: Mapping[str, Any], nodes: float, why: str, region: str
) -> None:
    """`nodes` nodes of a machineSpec for 730 h at Vertex prices, on both bills."""
    parts = node_parts(
        ctx.catalog,
        text(spec.get("machineType"), "", "machineSpec.machineType"),
        text(spec.get("acceleratorType"), "", "machineSpec.acceleratorType"),
        int(number(spec.get("acceleratorCount"))),
        region,
    )
    for b in (q.governed, q.baseline):
        for p in parts:
            b.charge(p.what, p.price, p.per_node * nodes * HOURS_PER_MONTH,
                     f"{p.detail}{nodes:g} node(s) ({why}) x {HOURS_PER_MONTH:g} h")  # fmt: skip


def _machine_spec(resources: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    spec = as_mapping(resources.get("machineSpec"))
    if not as_str(spec.get("machineType")):
        raise CostError(f"Vertex AI resource {name!r}: dedicatedResources.machineSpec.machineType")
    return spec


def _dedicated(res: Resource, ctx: PlanContext, resources: Mapping[str, Any], region: str) -> Quote:
    q = Quote()
    spec = _machine_spec(resources, res.name)
    declared = ctx.usage_of(res, NodesDeclared).average_nodes
    minimum = number(resources.get("minReplicaCount"), 1.0) or 1.0
    if declared is not None:
        nodes, why = declared, "average_nodes"
    else:
        nodes, why = minimum, "minReplicaCount, billed while deployed"
        if number(resources.get("maxReplicaCount")) > minimum:
            q.governed.note("autoscaling above minReplicaCount is usage: declare `average_nodes`")
    _charge_nodes(q, ctx, spec, nodes, why, region)
    return q


def deployment_pool(res: Resource, ctx: PlanContext) -> Quote:
    """A shared deployment resource pool: its nodes all month (at least minReplicaCount)."""
    region = ctx.region(res.inputs, "region")
    q = _dedicated(res, ctx, as_mapping(res.inputs.get("dedicatedResources")), region)
    q.governed.note("billed while models are deployed to the pool (Vertex AI bills deployed "
                    "models' nodes even when no prediction is made)")  # fmt: skip
    return q


def model_garden_endpoint(res: Resource, ctx: PlanContext) -> Quote:
    """A Model Garden deployment: the deployed model's nodes all month."""
    region = ctx.region(res.inputs, "location")
    resources = as_mapping(dig(res.inputs, "deployConfig", "dedicatedResources"))
    if as_bool(resources.get("spot")) is True:
        raise CostError(f"Vertex AI endpoint {res.name!r}: Spot serving nodes have no price")
    return _dedicated(res, ctx, resources, region)


def endpoint(res: Resource, ctx: PlanContext) -> Quote:
    """The models deployed to it (outside the plan): declared, else a "depends on usage" line."""
    q = Quote()
    region = ctx.region(res.inputs, "location", "region")
    d = ctx.usage_of(res, EndpointDeclared)
    if d.deployed_machine_type is None or d.deployed_nodes is None:
        markup = ctx.catalog.price(MARKUP_KEY, "global")
        q.governed.note("an endpoint costs nothing itself; its deployed models bill node-hours "
                        "while deployed, even with no traffic")  # fmt: skip
        q.governed.depends_on_usage(
            "deployed models",
            markup,
            "deployed_nodes",
            "x the Compute Engine price of the deployed machine type per node-hour "
            "(declare `deployed_machine_type` and `deployed_nodes`)",
        )
        return q
    spec = {
        "machineType": d.deployed_machine_type,
        "acceleratorType": d.deployed_accelerator_type or "",
        "acceleratorCount": d.deployed_accelerator_count,
    }
    _charge_nodes(q, ctx, spec, d.deployed_nodes, "deployed_nodes", region)
    return q


def persistent_resource(res: Resource, ctx: PlanContext) -> Quote:
    """Every resource pool's replicas all month (a persistent resource bills while it exists)."""
    q = Quote()
    region = ctx.region(res.inputs, "location")
    pools = as_list(res.inputs.get("resourcePools"))
    if not pools:
        raise CostError(f"Vertex AI persistent resource {res.name!r}: no resourcePools")
    for i, raw in enumerate(pools):
        pool = as_mapping(raw)
        spec = _machine_spec(pool, res.name)
        low = number(dig(pool, "autoscalingSpec", "minReplicaCount"))
        replicas = low or number(pool.get("replicaCount"), 1.0) or 1.0
        why = "autoscalingSpec.minReplicaCount" if low else "replicaCount"
        with q.part(f"pool {i}"):
            _charge_nodes(q, ctx, spec, replicas, why, region)
            disk = as_mapping(pool.get("diskSpec"))
            kind = (as_str(disk.get("bootDiskType")) or DEFAULT_BOOT_DISK).replace("_", "-")
            gib = number(disk.get("bootDiskSizeGb"), DEFAULT_BOOT_GIB) or DEFAULT_BOOT_GIB
            key = f"disk.{kind}"
            if not ctx.catalog.has(key):
                q.unpriced_part("boot disks", f"no price for boot disk type {kind}")
                continue
            price = ctx.catalog.price(key, region)
            for b in (q.governed, q.baseline):
                detail = f"{gib:g} GiB x {replicas:g} replica(s) (Compute Engine disk rate)"
                b.charge("boot disks", price, gib * replicas, detail)
    q.governed.note("a persistent resource bills its nodes while it exists, with or without jobs")
    return q
