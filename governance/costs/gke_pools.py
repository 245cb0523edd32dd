"""GKE node pools as Google bills them: nodes in every zone x (machine, GPUs, boot disk, local SSD).

One arithmetic for the three places a pool is written: a `gcp.container.NodePool`, a cluster's
default pool (`initialNodeCount`/`nodeConfig`, unless `removeDefaultNodePool`) and a cluster's
inline `nodePools`. GKE counts nodes per zone, so the zones decide the bill:

- a pool's own `nodeLocations`, else its cluster's (a zonal cluster's zone plus its
  `nodeLocations`), else one zone for a zonal cluster and **three** for a regional one: "the
  default node pool created for regional Standard clusters consists of nine nodes (three per
  zone) evenly spread across three zones in a region"
  (https://cloud.google.com/kubernetes-engine/docs/concepts/regional-clusters, Limitations);
- with no node count and no autoscaling GKE creates 3 nodes per zone (the same page; gcloud's
  `--num-nodes` default);
- nodes boot from a 100 GB `pd-balanced` disk unless `nodeConfig` says otherwise ("By default,
  GKE uses balanced Persistent Disks in version 1.24 or later",
  https://cloud.google.com/kubernetes-engine/docs/how-to/custom-boot-disks; 100 GB is the
  NodeConfig API's `diskSizeGb` default);
- `localSsdCount` (and the ephemeral-storage and NVMe block variants) adds 375 GiB local SSDs per
  node, at the spot local-SSD price on spot nodes;
- every node of a cluster without private nodes has an ephemeral external IPv4 address, billed
  for the hours it runs like any VM's (`network.ip.vm`, `network.ip.spot_vm` on spot nodes):
  private nodes come from the pool's `networkConfig.enablePrivateNodes`, else the cluster's
  `privateClusterConfig.enablePrivateNodes` ("Nodes only have internal IP addresses", GKE's
  private clusters); a pool whose cluster is not in the plan says it cannot tell.

Autoscaled pools run an assumed average (`training_pool_average_nodes` when they scale from 0,
else their minimum; a usage file's `nodes_per_zone` wins), clamped to min..max; the baseline keeps
max(1, min, ceil(average)) nodes on-demand all month. TPU machine types are priced per chip
(host included), and their nodes' boot disks like any node's. A boot disk type the catalog has
no price for (hyperdisk-balanced) is a named unpriced part; the rest of the pool is priced.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.disk_pricing import charge_disk
from governance.costs.errors import CatalogError
from governance.costs.inputs import number, text
from governance.costs.machine_pricing import attached_gpus, charge_machine
from governance.costs.machines import machine_shape
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.regions import is_zone
from governance.costs.usage_models import usage_model
from mlgov_policies.props import as_bool, as_list, as_mapping, as_str

DEFAULT_MACHINE = "e2-medium"  # NodeConfig API: machineType default
DEFAULT_DISK = "pd-balanced"
DEFAULT_DISK_GB = 100.0
DEFAULT_NODES_PER_ZONE = 3.0
REGIONAL_DEFAULT_ZONES = 3
LOCAL_SSD_GIB = 375.0  # one local SSD disk (https://cloud.google.com/compute/docs/disks/local-ssd)
# nodeConfig keys that attach local SSDs (classic, ephemeral storage, raw NVMe block)
_LOCAL_SSD_KEYS = (
    ("localSsdCount",),
    ("ephemeralStorageLocalSsdConfig", "localSsdCount"),
    ("localNvmeSsdBlockConfig", "localSsdCount"),
    ("ephemeralStorageConfig", "localSsdCount"),
)


@dataclass(frozen=True, slots=True)
class Zones:
    """How many zones a pool's nodes run in, and which rule says so."""

    count: int
    why: str


def _names(value: object) -> list[str]:
    return sorted({s for z in as_list(value) if (s := as_str(z))})


def cluster_zones(cluster: Mapping[str, Any]) -> Zones:
    """The zones a cluster's pools default to (its location and `nodeLocations`)."""
    location = as_str(cluster.get("location")) or ""
    listed = _names(cluster.get("nodeLocations"))
    if is_zone(location):
        # a zonal cluster's nodeLocations are *additional* zones (the provider omits its own)
        zones = sorted({location, *listed})
        if len(zones) == 1:
            return Zones(1, f"zonal cluster in {location}")
        return Zones(len(zones), f"zones {', '.join(zones)} (cluster zone + nodeLocations)")
    if listed:
        return Zones(len(listed), f"cluster nodeLocations {', '.join(listed)}")
    return Zones(
        REGIONAL_DEFAULT_ZONES,
        f"regional cluster{f' in {location}' if location else ''} without nodeLocations: GKE "
        "spreads each pool over 3 zones of the region",
    )


def pool_zones(pool_locations: object, cluster: Mapping[str, Any] | None, location: str) -> Zones:
    """A pool's zones: its own `nodeLocations`, else its cluster's, else its location's rule."""
    own = _names(pool_locations)
    if own:
        return Zones(len(own), f"pool nodeLocations {', '.join(own)}")
    if cluster is not None:
        return cluster_zones(cluster)
    return cluster_zones({"location": location})


# The pools' knobs live here, not in resources/node_pool.py: all three places a pool is written
# use them (the default average is applied in `_node_range`).
@usage_model(place=20)
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


@dataclass(frozen=True, slots=True)
class PoolSpec:
    """One node pool's inputs, however it was written (resource, default or inline pool)."""

    node: Mapping[str, Any]  # nodeConfig
    autoscaling: Mapping[str, Any]
    node_count: object  # nodeCount input (per zone), or None
    initial_node_count: object  # initialNodeCount input (per zone), or None
    zones: Zones
    region: str
    where: str  # key path prefix of nodeConfig in errors ("nodeConfig", "nodePools[1].nodeConfig")
    average_nodes: float | None = None  # a stack override of average running nodes (total)
    nodes_per_zone: float | None = None  # a usage file's declaration
    public_nodes: bool | None = None
    """Each node has an external IP (None: the plan does not say: its cluster is not in it)."""
    public_why: str = ""


def public_nodes(
    pool: Mapping[str, Any], cluster: Mapping[str, Any] | None
) -> tuple[bool | None, str]:
    """Whether a pool's nodes get external IPs, and which input says so."""
    own = as_bool(as_mapping(pool.get("networkConfig")).get("enablePrivateNodes"))
    if own is not None:
        return not own, f"pool networkConfig.enablePrivateNodes is {str(own).lower()}"
    if cluster is None:
        return None, "its cluster is not in the plan"
    private = as_bool(as_mapping(cluster.get("privateClusterConfig")).get("enablePrivateNodes"))
    if private:
        return False, "cluster privateClusterConfig.enablePrivateNodes is true"
    return True, "the cluster has no private nodes (privateClusterConfig.enablePrivateNodes)"


def _node_range(spec: PoolSpec, ctx: PlanContext) -> tuple[float, float, str]:
    """(min nodes, average running nodes, explanation), all zones together."""
    zones = spec.zones.count
    zone_note = f" x {zones} zone{'' if zones == 1 else 's'} ({spec.zones.why})"
    auto = spec.autoscaling
    if not auto or (as_bool(auto.get("enabled")) is False and not _bounds_set(auto)):
        if spec.nodes_per_zone is not None:
            nodes = spec.nodes_per_zone * zones
            return nodes, nodes, f"usage file: {_nodes(spec.nodes_per_zone)} a zone{zone_note}"
        per_zone = number(spec.node_count, -1.0)
        why = "nodeCount"
        if per_zone < 0:
            per_zone, why = number(spec.initial_node_count, -1.0), "initialNodeCount"
        if per_zone < 0:
            per_zone, why = DEFAULT_NODES_PER_ZONE, "no node count: GKE's default"
        nodes = per_zone * zones
        return (
            nodes,
            nodes,
            f"fixed size: {_nodes(per_zone)} a zone ({why}){zone_note} = {_nodes(nodes)}",
        )
    if "totalMinNodeCount" in auto or "totalMaxNodeCount" in auto:
        low, high = number(auto.get("totalMinNodeCount")), number(auto.get("totalMaxNodeCount"))
        bounds = "total"
    else:
        low = number(auto.get("minNodeCount")) * zones
        high = number(auto.get("maxNodeCount")) * zones
        bounds = f"per zone{zone_note}"
    high = max(high, low)
    if spec.nodes_per_zone is not None:
        guess, source = spec.nodes_per_zone * zones, "usage file nodes_per_zone"
    elif spec.average_nodes is not None:
        guess, source = spec.average_nodes, "training_pool_nodes"
    elif low == 0:
        guess = ctx.knobs(NodePoolUsage).training_pool_average_nodes
        source = "training_pool_average_nodes"
    else:
        guess, source = low, "its minimum"
    nodes = min(max(guess, low), high)
    return (
        low,
        nodes,
        (
            f"autoscaling {low:g}..{high:g} nodes ({bounds}): average {_nodes(nodes)} running "
            f"({source})"
        ),
    )


def _nodes(count: float) -> str:
    """'1 node', '0.3 nodes', '2 nodes': the count as a reader says it."""
    return f"{count:g} node" + ("" if count == 1 else "s")


def _bounds_set(auto: Mapping[str, Any]) -> bool:
    keys = ("minNodeCount", "maxNodeCount", "totalMinNodeCount", "totalMaxNodeCount")
    return any(k in auto for k in keys)


def local_ssds(node: Mapping[str, Any]) -> int:
    """Local SSD disks per node, from whichever nodeConfig key attaches them."""
    for path in _LOCAL_SSD_KEYS:
        value: object = node
        for key in path:
            value = as_mapping(value).get(key)
        if (count := int(number(value))) > 0:
            return count
    return 0


def price_pool(q: Quote, ctx: PlanContext, spec: PoolSpec) -> None:
    """Charge a pool's nodes to the quote (governed: spot and average; baseline: on-demand)."""
    bill, base = q.governed, q.baseline
    node = spec.node
    where = spec.where
    shape = machine_shape(
        text(node.get("machineType"), DEFAULT_MACHINE, f"{where}.machineType"), ctx.catalog
    )
    gpus = attached_gpus(node.get("guestAccelerators"), "count", f"{where}.guestAccelerators")
    spot = as_bool(node.get("spot")) is True or as_bool(node.get("preemptible")) is True
    low, nodes, why = _node_range(spec, ctx)
    bill.note(why)
    base_nodes = max(1.0, low, float(math.ceil(nodes)))
    base.note(f"on-demand, {_nodes(base_nodes)} always on (no scale-to-zero)")
    boot = as_mapping(node.get("bootDisk"))
    # every node boots from a disk, TPU hosts too (their chip price covers the host VM only)
    disk = (
        text(boot.get("diskType") or node.get("diskType"), DEFAULT_DISK, f"{where}.diskType"),
        number(boot.get("sizeGb") or node.get("diskSizeGb"), DEFAULT_DISK_GB),
    )
    ssds = local_ssds(node)
    commitment = ctx.usage.commitment
    for b, n, usage, commit in (
        (bill, nodes, "spot" if spot else "ondemand", commitment),
        (base, base_nodes, "ondemand", "none"),
    ):
        if n <= 0:
            b.note("no nodes running: $0")
            continue
        slots = float(math.ceil(n))  # node-hours spread over whole nodes for SUD
        charge_machine(
            b,
            ctx.catalog,
            shape,
            spec.region,
            usage,
            n * HOURS_PER_MONTH / slots,
            slots,
            gpus,
            commitment=commit,
        )
        try:
            charge_disk(b, ctx.catalog, *disk, spec.region, n)
        except CatalogError as err:
            b.unpriced_part(f"boot disk ({disk[0]})", str(err))
        if spec.public_nodes:
            key = "network.ip.spot_vm" if usage == "spot" else "network.ip.vm"
            b.charge("external IP", ctx.catalog.price(key, spec.region), n * HOURS_PER_MONTH,
                     f"{n:g} x 730 h: one per node ({spec.public_why})")  # fmt: skip
        if ssds:
            price = ctx.catalog.price("disk.local-ssd", spec.region, usage)
            b.charge(
                "local SSD",
                price,
                n * ssds * LOCAL_SSD_GIB,
                f"{n:g} x {ssds} x {LOCAL_SSD_GIB:g} GiB",
            )
    if spec.public_nodes is None:
        bill.note(f"external IPs of the nodes not estimated: {spec.public_why}, so whether its "
                  "nodes are private is unknown")  # fmt: skip
