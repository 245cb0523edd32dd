"""GKE node pools: nodes x (machine, GPUs or TPU chips, boot disk) for the hours they run.

An autoscaled pool runs an assumed average number of nodes (`training_pool_average_nodes` when
it scales from 0, else its minimum), clamped to min..max; spot pools use spot prices. The
baseline keeps max(1, min, ceil(average)) nodes on-demand all month. TPU machine types are
priced per chip (host included, machines.py); their boot disks are not estimated.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.disk_pricing import charge_disk
from governance.costs.inputs import number, text
from governance.costs.machine_pricing import attached_gpus, charge_machine
from governance.costs.machines import machine_shape
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from mlgov_policies.props import as_bool, as_list, as_mapping

# GKE's node defaults when nodeConfig leaves them out (container.projects.locations.clusters
# nodePools API: machine type e2-medium, 100 GB pd-balanced boot disk).
DEFAULT_MACHINE = "e2-medium"
DEFAULT_DISK = "pd-balanced"
DEFAULT_DISK_GB = 100.0


class NodePoolUsage(BaseModel):
    """How many nodes autoscaled pools run on average."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    training_pool_average_nodes: float = Field(
        default=0.5,
        ge=0,
        description="Average nodes running in an autoscale-from-0 pool over the month (nodes).",
    )
    training_pool_nodes: dict[str, float] = Field(
        default_factory=dict,
        description="Per-pool override of average running nodes, keyed by resource or pool name.",
    )


def _node_range(res: Resource, ctx: PlanContext) -> tuple[float, float, float, str]:
    """(min, max, average running nodes, explanation) over all of the pool's zones."""
    inputs = res.inputs
    zones = max(len(as_list(inputs.get("nodeLocations"))), 1)
    auto = as_mapping(inputs.get("autoscaling"))
    if not auto:
        fixed = number(inputs.get("nodeCount"), number(inputs.get("initialNodeCount"), 1.0))
        nodes = fixed * zones
        return nodes, nodes, nodes, f"fixed size: {nodes:g} nodes"
    if "totalMinNodeCount" in auto or "totalMaxNodeCount" in auto:
        low, high = number(auto.get("totalMinNodeCount")), number(auto.get("totalMaxNodeCount"))
    else:
        low = number(auto.get("minNodeCount")) * zones
        high = number(auto.get("maxNodeCount")) * zones
    high = max(high, low)
    u = ctx.usage
    guess = res.override(u.training_pool_nodes, None)
    if guess is None:
        guess = u.training_pool_average_nodes if low == 0 else low
    nodes = min(max(guess, low), high)
    return low, high, nodes, f"autoscaling {low:g}..{high:g} nodes: average {nodes:g} nodes running"


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Governed: spot and the average running nodes; baseline: on-demand, nodes always on."""
    q = Quote()
    bill, base = q.governed, q.baseline
    inputs = res.inputs
    region = ctx.region(inputs, "location")
    node = as_mapping(inputs.get("nodeConfig"))
    shape = machine_shape(text(node.get("machineType"), DEFAULT_MACHINE, "nodeConfig.machineType"))
    gpus = attached_gpus(node.get("guestAccelerators"), "count", "nodeConfig.guestAccelerators")
    spot = as_bool(node.get("spot")) is True or as_bool(node.get("preemptible")) is True
    low, _, nodes, why = _node_range(res, ctx)
    bill.note(why)
    base_nodes = max(1.0, low, float(math.ceil(nodes)))
    base.note(f"on-demand, {base_nodes:g} node(s) always on (no scale-to-zero)")
    disk = None
    if not shape.tpu:  # TPU pools are priced per chip only; their boot disks are not estimated
        disk = (
            text(node.get("diskType"), DEFAULT_DISK, "nodeConfig.diskType"),
            number(node.get("diskSizeGb"), DEFAULT_DISK_GB),
        )
    commitment = ctx.usage.commitment
    for b, n, usage, commit in ((bill, nodes, "spot" if spot else "ondemand", commitment),
                                (base, base_nodes, "ondemand", "none")):  # fmt: skip
        if n <= 0:
            b.note("no nodes running: $0")
            continue
        slots = float(math.ceil(n))  # node-hours spread over whole nodes for SUD
        charge_machine(b, ctx.catalog, shape, region, usage, n * HOURS_PER_MONTH / slots, slots,
                       gpus, commitment=commit)  # fmt: skip
        if disk is not None:
            charge_disk(b, ctx.catalog, *disk, region, n)
    return q
