"""GKE as the budget cap sees it: clusters, node pools, and the marks keeping what it changed.

At the cap, accelerator (GPU/TPU) node pools are scaled to zero (user-made autoscaled pools also
get their autoscaling turned off) and node auto-provisioning's accelerator limits are set to
zero. What they were before is written on the resources themselves, as GCP resource labels
(keys and values: lowercase letters, digits, `-`, `_`, at most 63 characters:
https://cloud.google.com/kubernetes-engine/docs/how-to/creating-managing-labels), before the
change that loses it, so that `mlgov cap restore` (governance/cap/marks.py decodes these
values; tests/contract/test_cap_marks.py pins the two) can put them back:

- node pool `mlgov-cap-prev`, one of
  `autoscale-<total|zone>-<min>-<max>[-<any|balanced>][-n<nodes>[-z<a>_<b>...]][-nap]`:
  autoscaling mode (total_* or per-zone fields), range, location policy; `n<nodes>` the pool's
  node count at cap time, summed over its instance groups' targetSize (absent: not known);
  `z<a>_<b>...` each zone's count, zones in name order (a pool in several zones, when it fits
  63 characters); `nap` for a pool node auto-provisioning created (its `autoprovisioned` flag
  is kept by restore); `fixed-n<nodes>[-z...]`: a fixed-size pool with that many nodes at cap
  time; `fixed-<n>`: written by earlier versions, n = initialNodeCount per zone.
- cluster `mlgov-cap-nap-<resourceType>`: `<min>-<max>` per accelerator resource limit.

Values and the cap's decisions only; the REST shapes are parsed in parse/container.py, the calls
live in gcp/container.py, the steps in actions/gke.py. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

CAP_LABEL: Final = "mlgov-cap-prev"
"""Node pool resource label holding the pool's settings from before the cap."""
NAP_SUFFIX: Final = "-nap"
"""Ends the `mlgov-cap-prev` value of a pool node auto-provisioning created."""
NAP_LABEL_PREFIX: Final = "mlgov-cap-nap-"
LABEL_LIMIT: Final = 63
"""The longest a GCP label value may be."""
"""Cluster resource label prefix holding an accelerator's NAP limit from before the cap."""
# NAP resource limits that are not accelerators (GKE: "cpu", "memory" or a GPU/TPU type):
# https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters#ResourceLimit
NOT_ACCELERATORS: Final = frozenset({"cpu", "memory"})
# GKE machine types that carry TPUs (ct4p-, ct5lp-, ct5p-, ct6e-...) and families whose GPUs
# come with the machine type: https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus
# and https://cloud.google.com/compute/docs/accelerator-optimized-machines
TPU_MACHINE_PREFIX: Final = "ct"
GPU_FAMILIES: Final = ("a2-", "a3-", "a4-", "g2-", "g4-")


@dataclass(frozen=True)
class Autoscaling:
    """A node pool's autoscaling (NodePoolAutoscaling); `total` = total_*_node_count fields."""

    enabled: bool
    min_nodes: int = 0
    max_nodes: int = 0
    total: bool = False
    location_policy: str = ""

    def label(self) -> str:
        """This setting as a label value (see the module docstring)."""
        mode = "total" if self.total else "zone"
        value = f"autoscale-{mode}-{self.min_nodes}-{self.max_nodes}"
        # LOCATION_POLICY_UNSPECIFIED is the enum's default: GKE then applies its own.
        if self.location_policy in ("ANY", "BALANCED"):
            value += f"-{self.location_policy.lower()}"
        return value


@dataclass(frozen=True)
class InstanceGroup:
    """One managed instance group of a node pool (one per zone): where to read its size."""

    project: str
    zone: str
    name: str


@dataclass(frozen=True)
class NodePool:
    """One node pool of a cluster, with what the cap needs to decide and to act."""

    project: str
    location: str
    cluster: str
    name: str
    machine_type: str = ""
    accelerators: int = 0
    autoscaling: Autoscaling | None = None
    initial_node_count: int = 0
    resource_labels: Mapping[str, str] = field(default_factory=dict[str, str])
    autoprovisioned: bool = False
    status: str = ""
    instance_groups: tuple[InstanceGroup, ...] = ()

    @property
    def path(self) -> str:
        """The REST name `projects/P/locations/L/clusters/C/nodePools/N`."""
        cluster = f"projects/{self.project}/locations/{self.location}/clusters/{self.cluster}"
        return f"{cluster}/nodePools/{self.name}"

    @property
    def target(self) -> str:
        """Full resource name, as reports name it."""
        return f"//container.googleapis.com/{self.path}"

    @property
    def accelerator_kind(self) -> str | None:
        """`gpu`, `tpu`, or None for a pool without accelerators (system pools)."""
        if self.machine_type.startswith(TPU_MACHINE_PREFIX):
            return "tpu"
        if self.accelerators > 0 or self.machine_type.startswith(GPU_FAMILIES):
            return "gpu"
        return None

    @property
    def autoscaled(self) -> bool:
        """True while the cluster autoscaler may resize the pool."""
        return self.autoscaling is not None and self.autoscaling.enabled

    @property
    def capped(self) -> bool:
        """Capped by mlgov and not restored, as far as the pool's own JSON can tell.

        An autoscaled pool the user made is capped in three steps (label, resize to zero,
        autoscaling off); its label and autoscaling off mean all three were done. A fixed-size
        pool, or one node auto-provisioning made (its autoscaling is left on: NAP's zero limits
        hold it), keeps no trace of its size in its JSON: the cap's action reads its instance
        groups to tell (actions/gke.py), so such a pool is never "capped" here.
        """
        value = self.resource_labels.get(CAP_LABEL, "")
        user_autoscaled = value.startswith("autoscale-") and not value.endswith(NAP_SUFFIX)
        return user_autoscaled and not self.autoprovisioned and not self.autoscaled

    @property
    def label_first(self) -> bool:
        """Whether the cap turns autoscaling off after emptying it (autoscaled, user-made pools)."""
        return self.autoscaled and not self.autoprovisioned

    def previous(self, nodes: int | None = None, zone_nodes: Sequence[int] | None = None) -> str:
        """The label value recording the pool's settings as they are now.

        `nodes`: its node count now (instance groups' targetSize summed), None if not known.
        `zone_nodes`: each zone's count (by zone name), written as `-z<a>_<b>...` after the total
        for a pool in several zones, when the value still fits a label (63 characters);
        otherwise only the total is kept, and restore never sets more than it in all.
        """
        if nodes is None:
            zone_nodes = None
        zones = ""
        if zone_nodes is not None and len(zone_nodes) > 1:
            zones = "-z" + "_".join(str(n) for n in zone_nodes)
        value = self._previous(nodes, zones)
        return value if len(value) <= LABEL_LIMIT else self._previous(nodes, "")

    def _previous(self, nodes: int | None, zones: str) -> str:
        size = f"-n{nodes}{zones}" if nodes is not None else ""
        if self.autoscaling is not None and self.autoscaling.enabled:
            nap = NAP_SUFFIX if self.autoprovisioned else ""
            return f"{self.autoscaling.label()}{size}{nap}"
        if nodes is None:
            return f"fixed-{self.initial_node_count}"
        return f"fixed{size}"


@dataclass(frozen=True)
class ResourceLimit:
    """One cluster-wide NAP limit; `resource_type` is cpu, memory or an accelerator type."""

    resource_type: str
    minimum: int
    maximum: int

    @property
    def accelerator(self) -> bool:
        """True for GPU/TPU limits."""
        return self.resource_type not in NOT_ACCELERATORS


@dataclass(frozen=True)
class Cluster:
    """A GKE cluster: its node pools, NAP limits and the fingerprint its labels are set with.

    `autoscaling` is the cluster's ClusterAutoscaling JSON as read, so an update can send it
    back whole with only the limits changed (leaving out fields would reset them).
    """

    project: str
    location: str
    name: str
    status: str = ""
    autopilot: bool = False
    resource_labels: Mapping[str, str] = field(default_factory=dict[str, str])
    label_fingerprint: str = ""
    node_autoprovisioning: bool = False
    limits: tuple[ResourceLimit, ...] = ()
    autoscaling: Mapping[str, object] = field(default_factory=dict[str, object])
    node_pools: tuple[NodePool, ...] = ()

    @property
    def path(self) -> str:
        """The REST name `projects/P/locations/L/clusters/C`."""
        return f"projects/{self.project}/locations/{self.location}/clusters/{self.name}"

    @property
    def target(self) -> str:
        """Full resource name, as reports name it."""
        return f"//container.googleapis.com/{self.path}"

    def accelerator_limits(self) -> tuple[ResourceLimit, ...]:
        """The NAP limits on GPUs and TPUs."""
        return tuple(limit for limit in self.limits if limit.accelerator)

    def nap_open(self) -> tuple[ResourceLimit, ...]:
        """Accelerator limits that still let NAP create nodes (maximum above zero)."""
        if not self.node_autoprovisioning:
            return ()
        return tuple(limit for limit in self.accelerator_limits() if limit.maximum > 0)

    def nap_labels(self) -> dict[str, str]:
        """Labels recording the accelerator limits as they are now (kept ones win)."""
        recorded = {
            f"{NAP_LABEL_PREFIX}{limit.resource_type}": f"{limit.minimum}-{limit.maximum}"
            for limit in self.nap_open()
        }
        return {**recorded, **{k: v for k, v in self.resource_labels.items() if k in recorded}}

    def capped_limits(self) -> tuple[ResourceLimit, ...]:
        """The limits with every accelerator's maximum (and minimum) at zero."""
        return tuple(
            ResourceLimit(limit.resource_type, 0, 0) if limit.accelerator else limit
            for limit in self.limits
        )
