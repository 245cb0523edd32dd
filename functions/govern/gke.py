"""GKE as the budget cap sees it: clusters, node pools, and the labels keeping what it changed.

At the cap, accelerator (GPU/TPU) node pools are scaled to zero with their autoscaling turned off,
and node auto-provisioning's accelerator limits are set to zero. What they were before is written
on the resources themselves, as GCP resource labels (lowercase, digits, `-`; values <= 63 chars:
https://cloud.google.com/kubernetes-engine/docs/how-to/creating-managing-labels), so that
`mlgov cap restore` (governance/tools/cap.py, which decodes these values) can put them back:

- node pool `mlgov-cap-prev`: `autoscale-total-0-16-any`, `autoscale-zone-1-4-balanced` or
  `fixed-3` (autoscaling mode, min, max, location policy; or a fixed pool's initialNodeCount);
- cluster `mlgov-cap-nap-<resourceType>`: `<min>-<max>` per accelerator resource limit.

Values and the cap's decisions only; the REST shapes are parsed in parse/container.py, the calls
live in gcp/container.py, the steps in actions/gke.py. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

CAP_LABEL: Final = "mlgov-cap-prev"
"""Node pool resource label holding the pool's settings from before the cap."""
NAP_LABEL_PREFIX: Final = "mlgov-cap-nap-"
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
        return f"{value}-{self.location_policy.lower()}" if self.location_policy else value


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
        """Capped by mlgov and not restored: its settings are kept and it cannot grow.

        The cap's last step marks it done: turning autoscaling off (autoscaled pools: label,
        resize to zero, autoscaling off) or writing the label (fixed pools and NAP-created ones,
        whose autoscaling GKE keeps and NAP's zero limits hold: resize, then label). A pool
        interrupted before its last step is capped again, and a label once written is kept.
        """
        if CAP_LABEL not in self.resource_labels:
            return False
        return self.autoprovisioned or not self.autoscaled

    @property
    def label_first(self) -> bool:
        """Whether the cap writes the label before resizing (autoscaled, user-made pools)."""
        return self.autoscaled and not self.autoprovisioned

    def previous(self) -> str:
        """The label value recording the pool's settings as they are now."""
        if self.autoscaling is not None and self.autoscaling.enabled:
            return self.autoscaling.label()
        return f"fixed-{self.initial_node_count}"


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
