"""Capping GKE accelerators: scale a GPU/TPU node pool to zero, close NAP's accelerator limits.

GKE runs one operation per cluster at a time ("Operation ... is currently operating on cluster
... Please wait and try again once it is done", HTTP 400 failedPrecondition; e.g.
https://github.com/hashicorp/terraform-provider-google/issues/3650), so the actions on one
cluster take its lock here and every write returns once GKE finished it (ports.Container);
different clusters proceed in parallel. What a pool or cluster was set to is written on it as
a label before the change that loses it (govern/gke.py), and the order of the steps makes a
repeated cap (Pub/Sub redelivers) redo only what is missing.

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

from govern.actions.base import Action, Call, Done
from govern.gke import CAP_LABEL, NAP_LABEL_PREFIX, Autoscaling, Cluster, NodePool
from govern.ports import Ports

# Node pool and cluster writes need container.clusters.update on the cluster, and waiting for
# their operation container.operations.get:
# https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions
_GKE_WRITE = ("container.clusters.update", "container.operations.get")

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


@contextmanager
def _cluster(path: str) -> Generator[None, None, None]:
    """Hold the cluster's lock: this process starts one GKE operation per cluster at a time."""
    with _locks_guard:
        lock = _locks.setdefault(path, threading.Lock())
    with lock:
        yield


def _cluster_path(pool: NodePool) -> str:
    return pool.path.rsplit("/nodePools/", 1)[0]


@dataclass(frozen=True)
class CapNodePool(Action):
    """Scale a GPU/TPU node pool to zero nodes and keep it there, its settings kept in a label."""

    pool: NodePool
    verb: ClassVar[str] = "scale_to_zero"
    permissions: ClassVar[tuple[str, ...]] = _GKE_WRITE

    def run(self, ports: Ports, call: Call) -> Done:
        """Label, resize to 0, autoscaling off (autoscaled pools); resize, label (others)."""
        pool, container = self.pool, ports.container
        previous = pool.resource_labels.get(CAP_LABEL) or pool.previous()
        labels = {**pool.resource_labels, CAP_LABEL: previous}
        with _cluster(_cluster_path(pool)):
            if pool.label_first and CAP_LABEL not in pool.resource_labels:
                call(pool.project, container.set_pool_labels, pool, labels)
            call(pool.project, container.set_pool_size, pool, 0)
            if pool.label_first:
                call(pool.project, container.set_pool_autoscaling, pool, Autoscaling(False))
            elif CAP_LABEL not in pool.resource_labels:
                call(pool.project, container.set_pool_labels, pool, labels)
        how = "autoscaling off" if pool.label_first else "autoscaling left to NAP's limits"
        if not pool.autoscaled:
            how = "fixed size"
        return (
            "done",
            f"{self.reason}: scaled to 0 nodes, {how} (was {previous}, kept in label {CAP_LABEL})",
        )


@dataclass(frozen=True)
class CapAutoprovisioning(Action):
    """Set node auto-provisioning's GPU/TPU limits to zero, the previous ones kept in labels."""

    cluster: Cluster
    verb: ClassVar[str] = "cap_autoprovisioning"
    permissions: ClassVar[tuple[str, ...]] = _GKE_WRITE

    def run(self, ports: Ports, call: Call) -> Done:
        """SetResourceLabels with the limits as they are, then clusters.update with zeros."""
        cluster, container = self.cluster, ports.container
        labels = {**cluster.resource_labels, **cluster.nap_labels()}
        was = ", ".join(f"{n.resource_type} {n.minimum}-{n.maximum}" for n in cluster.nap_open())
        with _cluster(cluster.path):
            if labels != dict(cluster.resource_labels):
                call(cluster.project, container.set_cluster_labels, cluster, labels)
            call(cluster.project, container.set_resource_limits, cluster, cluster.capped_limits())
        return "done", (
            f"{self.reason}: NAP accelerator limits set to 0 (was {was}, kept in labels "
            f"{NAP_LABEL_PREFIX}*)"
        )
