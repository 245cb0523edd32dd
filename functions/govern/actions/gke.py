"""Capping GKE accelerators: scale a GPU/TPU node pool to zero, close NAP's accelerator limits.

GKE runs one cluster-level operation at a time, or one operation per node pool, the pools of a
cluster in parallel (gcp/container.py cites Google's pages); a write that collides answers
HTTP 400 FAILED_PRECONDITION and the adapter tries it again. So the cluster-level steps (NAP's
labels and limits) take the cluster's lock here, while every accelerator pool of the cluster is
capped at once: each its own chain (label, resize, autoscaling off), the flow starting the pools
once the cluster-level steps are done (flows/budget.py). The resize, a drain of minutes, is
requested and confirmed later (a `Confirm`), so no pool and no other stop waits behind another
pool's drain. What a pool or cluster was set to is written on it as a label before the change
that loses it (govern/gke.py), and the order of the steps makes a repeated cap (Pub/Sub
redelivers) redo only what is missing.

Autoscaling is turned off rather than set to a maximum of 0: the API documents max >= min only,
other Google APIs over GKE autoscaling require max > 0 (Dataproc GkeNodePoolAutoscalingConfig:
"must be > 0"), and terraform-provider-google refused max 0 for years (#2729, #7308). A pool
with autoscaling off and 0 nodes stays empty whatever is pending.
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar

from govern import ports as p
from govern.actions.base import Action, Call, Confirm, Done
from govern.gke import CAP_LABEL, NAP_LABEL_PREFIX, Autoscaling, Cluster, NodePool
from govern.ports import Ports

# Node pool and cluster writes need container.clusters.update on the cluster, and waiting for
# their operation container.operations.get:
# https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions
_GKE_WRITE = ("container.clusters.update", "container.operations.get")
# Re-reading a cluster after a fingerprint conflict: clusters.get needs container.clusters.get
# (same page).
_GET_CLUSTER = "container.clusters.get"
FRESH_READS = 3
"""How many times a conflicting cluster write is retried after reading the cluster again."""

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


@contextmanager
def _cluster(path: str) -> Generator[None, None, None]:
    """Hold the cluster's lock for cluster-level steps: one at a time per cluster, here."""
    with _locks_guard:
        lock = _locks.setdefault(path, threading.Lock())
    with lock:
        yield


@dataclass(frozen=True)
class CapNodePool(Action):
    """Scale a GPU/TPU node pool to zero nodes and keep it there, its settings kept in a label."""

    pool: NodePool
    nodes: int | None = None
    """Its node count now (its instance groups' targetSize summed, flows/cap.py); None: unknown."""
    zone_nodes: tuple[int, ...] | None = None
    """Each instance group's targetSize, in the order of their zones' names; None: unknown."""
    size_note: str = ""
    """Why `nodes` is unknown, for the report."""
    verb: ClassVar[str] = "scale_to_zero"
    permissions: ClassVar[tuple[str, ...]] = _GKE_WRITE

    @property
    def needs_size(self) -> bool:
        """Whether the flow must read the pool's size: for its label, or to tell it is empty.

        A fixed or NAP-made pool carries no trace of its size in its JSON: when already
        labelled, its instance groups tell whether the cap finished with it.
        """
        return CAP_LABEL not in self.pool.resource_labels or not self.pool.label_first

    def run(self, ports: Ports, call: Call) -> Done | Confirm:
        """Label (what it was, its size), request the resize to 0; confirm it later.

        The label is written first and never rewritten, so a redelivered alert keeps the
        settings from before the first cap. The resize is confirmed once every action started
        (execute.finish); only then is autoscaling turned off (user-made autoscaled pools): GKE
        runs one operation per pool. Any step that fails is a failure of the cap (the alert is
        redelivered), never a skip.
        """
        pool, container, nodes = self.pool, ports.container, self.nodes
        previous = pool.resource_labels.get(CAP_LABEL)
        if previous is not None and not pool.label_first and nodes == 0:
            return "skipped", f"already capped: 0 nodes ({CAP_LABEL}={previous})"
        try:
            if previous is None:
                previous = pool.previous(nodes, self.zone_nodes)
                labels = {**pool.resource_labels, CAP_LABEL: previous}
                call(pool.project, container.set_pool_labels, pool, labels)
            operation = call(pool.project, container.request_pool_size, pool, 0)
        except p.Conflict as err:
            return "failed", self._conflict(err)
        was = f"was {previous}, kept in label {CAP_LABEL}"
        requested = f"{self.reason}: resize to 0 nodes requested ({was})"

        def confirm(later: Call) -> Done:
            try:
                later(
                    pool.project, container.wait_operation, pool.project, pool.location, operation
                )
                if pool.label_first:
                    later(pool.project, container.set_pool_autoscaling, pool, Autoscaling(False))
            except p.Conflict as err:
                return "failed", self._conflict(err)
            return "done", f"{self.reason}: scaled to 0 nodes, {self._how()} ({was}){self._note()}"

        return Confirm(requested, confirm)

    def _conflict(self, err: p.Conflict) -> str:
        return f"{self.reason}: NOT capped, the pool changed meanwhile ({err})"

    def _how(self) -> str:
        if not self.pool.autoscaled:
            return "fixed size"
        return "autoscaling off" if self.pool.label_first else "autoscaling left to NAP's limits"

    def _note(self) -> str:
        if not self.size_note:
            return ""
        return f"; its size at cap time is unknown ({self.size_note})"


@dataclass(frozen=True)
class CapAutoprovisioning(Action):
    """Set node auto-provisioning's GPU/TPU limits to zero, the previous ones kept in labels."""

    cluster: Cluster
    verb: ClassVar[str] = "cap_autoprovisioning"
    permissions: ClassVar[tuple[str, ...]] = (*_GKE_WRITE, _GET_CLUSTER)

    def run(self, ports: Ports, call: Call) -> Done:
        """SetResourceLabels with the limits as they are, then clusters.update with zeros.

        A stale labelFingerprint (400 FAILED_PRECONDITION, "fingerprint mismatch") or a 409
        means someone changed the cluster since it was listed: read it again (clusters.get),
        merge the marks into its fresh labels, and try again, FRESH_READS times at most. Limits
        still open after that are a failure (the alert is redelivered), never a skip.
        """
        cluster, container = self.cluster, ports.container
        was = ", ".join(f"{n.resource_type} {n.minimum}-{n.maximum}" for n in cluster.nap_open())
        reads = 0
        with _cluster(cluster.path):
            while True:
                try:
                    labels = {**cluster.resource_labels, **cluster.nap_labels()}
                    if labels != dict(cluster.resource_labels):
                        call(cluster.project, container.set_cluster_labels, cluster, labels)
                    limits = cluster.capped_limits()
                    call(cluster.project, container.set_resource_limits, cluster, limits)
                    break
                except p.Conflict as err:
                    if reads >= FRESH_READS:
                        return "failed", (
                            f"{self.reason}: NAP accelerator limits NOT closed (still {was}): "
                            f"the cluster kept changing, {reads} fresh read(s) ({err})"
                        )
                    reads += 1
                    cluster = call(
                        cluster.project,
                        container.get_cluster,
                        cluster.project,
                        cluster.location,
                        cluster.name,
                    )
                    if not cluster.nap_open():
                        return "skipped", "NAP accelerator limits already 0 (closed meanwhile)"
        again = f" after {reads} fresh read(s) of the cluster" if reads else ""
        return "done", (
            f"{self.reason}: NAP accelerator limits set to 0 (was {was}, kept in labels "
            f"{NAP_LABEL_PREFIX}*){again}"
        )
