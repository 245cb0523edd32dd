"""Fake GKE (container v1): clusters.list, node pool and cluster writes, operations.get.

Cluster and node pool JSON start from the recorded `clusters.list` answer (copied from
../shared/realdata/cloud-custodian/gke-cluster-nodepool-filter-server-config/ into
tests/functions/data/, see ../shared/realdata/SOURCES.md: Cloud Custodian flight data); fields the cap
reads (accelerators, autoscaling, NAP resourceLimits, resourceLabels) are added in the shapes of
the container v1 discovery document (tests/functions/test_fake_shapes.py checks every answer
against it). Like GKE, a cluster runs one operation at a time: a write while one is RUNNING
answers 400 FAILED_PRECONDITION; an operation is DONE after `op_polls` operations.get calls.
The node count (not a NodePool field in the API) is kept in `sizes`.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import threading
from pathlib import Path
from typing import Any

from tests.fakegcp.server import FakeGcp, Reply, Request, error_body

RECORDED = (
    Path(__file__).parents[1]
    / "functions"
    / "data"
    / "get-v1-projects-cloud-custodian-locations---clusters_1.json"
)
_TEMPLATE: dict[str, Any] = json.loads(RECORDED.read_text())["body"]["clusters"][0]
BASE = "https://container.googleapis.com/v1"
_ID = r"([^/:]+)"


def _busy(op: str) -> Reply:
    body = error_body(
        400,
        f"Operation {op} is currently operating on the cluster. Please wait and try again "
        "once it is done.",
    )
    body["error"]["status"] = "FAILED_PRECONDITION"
    return Reply(400, body)


class FakeContainer:
    """Clusters keyed by (project, location, name) as Cluster JSON with their nodePools."""

    def __init__(self, op_polls: int = 1) -> None:
        self.clusters: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.sizes: dict[tuple[str, str, str, str], int] = {}
        self.operations: dict[str, dict[str, Any]] = {}
        self.op_polls = op_polls
        self._polls: dict[str, int] = {}
        self._running: dict[tuple[str, str, str], str] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    # -- state -------------------------------------------------------------------------------
    def add_cluster(
        self,
        project: str,
        location: str,
        name: str,
        *,
        nap: dict[str, tuple[int, int]] | None = None,
        labels: dict[str, str] | None = None,
        autopilot: bool = False,
    ) -> dict[str, Any]:
        """A cluster; `nap` maps resource types (cpu, memory, GPU/TPU types) to (min, max)."""
        cluster = copy.deepcopy(_TEMPLATE)
        cluster.update(
            {
                "name": name,
                "location": location,
                "selfLink": f"{BASE}/projects/{project}/locations/{location}/clusters/{name}",
                "status": "RUNNING",
                "nodePools": [],
                "resourceLabels": dict(labels or {}),
                "labelFingerprint": f"fp{next(self._ids)}",
                "autoscaling": {"autoscalingProfile": "OPTIMIZE_UTILIZATION"},
            }
        )
        if nap is not None:
            cluster["autoscaling"].update(
                {
                    "enableNodeAutoprovisioning": True,
                    "resourceLimits": [
                        {"resourceType": rtype, "minimum": str(lo), "maximum": str(hi)}
                        for rtype, (lo, hi) in nap.items()
                    ],
                    "autoprovisioningNodePoolDefaults": {
                        "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
                        "serviceAccount": f"gke-nodes@{project}.iam.gserviceaccount.com",
                    },
                }
            )
        if autopilot:
            cluster["autopilot"] = {"enabled": True}
        self.clusters[(project, location, name)] = cluster
        return cluster

    def add_pool(
        self,
        project: str,
        location: str,
        cluster: str,
        name: str,
        *,
        machine_type: str = "e2-standard-4",
        gpus: int = 0,
        gpu_type: str = "nvidia-l4",
        autoscaling: dict[str, Any] | None = None,
        nodes: int = 0,
        initial: int = 0,
        labels: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """A node pool; `autoscaling` in NodePoolAutoscaling JSON (None: fixed size)."""
        pool = copy.deepcopy(_TEMPLATE["nodePools"][0])
        path = f"projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}"
        pool.update(
            {
                "name": name,
                "initialNodeCount": initial,
                "selfLink": f"{BASE}/{path}",
                "status": "RUNNING",
                "etag": f"etag-{next(self._ids)}",
            }
        )
        pool["config"]["machineType"] = machine_type
        pool["config"]["resourceLabels"] = dict(labels or {})
        if gpus:
            pool["config"]["accelerators"] = [
                {"acceleratorCount": str(gpus), "acceleratorType": gpu_type}
            ]
        if machine_type.startswith("ct"):
            pool["placementPolicy"] = {"type": "COMPACT", "tpuTopology": "2x4"}
        if autoscaling is not None:
            pool["autoscaling"] = dict(autoscaling)
        self.clusters[(project, location, cluster)]["nodePools"].append(pool)
        self.sizes[(project, location, cluster, name)] = nodes
        return pool

    def pool(self, project: str, location: str, cluster: str, name: str) -> dict[str, Any]:
        return next(
            p for p in self.clusters[(project, location, cluster)]["nodePools"] if p["name"] == name
        )

    def limits(self, project: str, location: str, cluster: str) -> dict[str, tuple[int, int]]:
        autoscaling = self.clusters[(project, location, cluster)]["autoscaling"]
        return {
            lim["resourceType"]: (int(lim["minimum"]), int(lim["maximum"]))
            for lim in autoscaling.get("resourceLimits", [])
        }

    # -- routes -------------------------------------------------------------------------------
    def install(self, fake: FakeGcp) -> FakeContainer:
        clusters = rf"/v1/projects/{_ID}/locations/{_ID}/clusters"
        pool = rf"{clusters}/{_ID}/nodePools/{_ID}"
        fake.route("GET", clusters, self._list)
        fake.route("GET", rf"{clusters}/{_ID}", self._get)
        fake.route("PUT", rf"{clusters}/{_ID}", self._update_cluster)
        fake.route("POST", rf"{clusters}/{_ID}:setResourceLabels", self._set_labels)
        fake.route("PUT", pool, self._update_pool)
        fake.route("POST", rf"{pool}:setAutoscaling", self._set_autoscaling)
        fake.route("POST", rf"{pool}:setSize", self._set_size)
        fake.route("GET", rf"/v1/projects/{_ID}/locations/{_ID}/operations/{_ID}", self._operation)
        return self

    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        project, location = m[1], m[2]
        with self._lock:
            found = [
                copy.deepcopy(c)
                for (p, loc, _), c in sorted(self.clusters.items())
                if p == project and location in ("-", loc)
            ]
        return Reply(200, {"clusters": found} if found else {})

    def _get(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            cluster = self.clusters.get((m[1], m[2], m[3]))
            if cluster is None:
                return Reply(404, error_body(404, f"cluster {m[3]} not found"))
            return Reply(200, copy.deepcopy(cluster))

    def _begin(
        self, key: tuple[str, str, str], op_type: str, target: str
    ) -> tuple[dict[str, Any] | None, Reply | None]:
        """Start an operation on cluster `key` (lock held), or the reply refusing it."""
        if key not in self.clusters:
            return None, Reply(404, error_body(404, f"cluster {key[2]} not found"))
        running = self._running.get(key)
        if running is not None:
            return None, _busy(running)
        name = f"operation-{next(self._ids)}"
        project, location, _ = key
        op = {
            "name": name,
            "zone": location,
            "operationType": op_type,
            "status": "RUNNING",
            "selfLink": f"{BASE}/projects/{project}/locations/{location}/operations/{name}",
            "targetLink": f"{BASE}/{target}",
            "startTime": "2026-11-21T05:00:00.000000Z",
            "location": location,
        }
        self.operations[name] = op
        if self.op_polls > 0:
            self._running[key] = name
            self._polls[name] = self.op_polls
        else:
            op["status"] = "DONE"
        return op, None

    def _pool_write(self, m: re.Match[str], op_type: str) -> tuple[dict[str, Any] | None, Reply]:
        key = (m[1], m[2], m[3])
        with self._lock:
            op, refused = self._begin(key, op_type, m[0].removeprefix("/v1/").split(":")[0])
            if refused is not None or op is None:
                return None, refused or Reply(500, {})
            pools = self.clusters[key]["nodePools"]
            pool = next((p for p in pools if p["name"] == m[4]), None)
            if pool is None:
                self._running.pop(key, None)
                return None, Reply(404, error_body(404, f"node pool {m[4]} not found"))
            return pool, Reply(200, copy.deepcopy(op))

    def _update_pool(self, request: Request, m: re.Match[str]) -> Reply:
        pool, reply = self._pool_write(m, "UPDATE_CLUSTER")
        if pool is not None:
            labels = (request.body or {}).get("resourceLabels")
            if labels is not None:
                pool["config"]["resourceLabels"] = dict(labels.get("labels") or {})
        return reply

    def _set_autoscaling(self, request: Request, m: re.Match[str]) -> Reply:
        autoscaling = (request.body or {}).get("autoscaling")
        if not isinstance(autoscaling, dict):
            return Reply(400, error_body(400, "autoscaling is required"))
        pool, reply = self._pool_write(m, "UPDATE_CLUSTER")
        if pool is not None:
            pool["autoscaling"] = dict(autoscaling)
        return reply

    def _set_size(self, request: Request, m: re.Match[str]) -> Reply:
        count = (request.body or {}).get("nodeCount")
        if not isinstance(count, int) or count < 0:
            return Reply(400, error_body(400, "nodeCount must be >= 0"))
        pool, reply = self._pool_write(m, "SET_NODE_POOL_SIZE")
        if pool is not None:
            self.sizes[(m[1], m[2], m[3], m[4])] = count
        return reply

    def _set_labels(self, request: Request, m: re.Match[str]) -> Reply:
        body = request.body or {}
        key = (m[1], m[2], m[3])
        with self._lock:
            cluster = self.clusters.get(key)
            if cluster is not None and body.get("labelFingerprint") != cluster["labelFingerprint"]:
                return Reply(409, error_body(409, "Labels could not be set: fingerprint mismatch"))
            op, refused = self._begin(key, "SET_LABELS", m[0].removeprefix("/v1/").split(":")[0])
            if refused is not None or op is None:
                return refused or Reply(500, {})
            cluster = self.clusters[key]
            cluster["resourceLabels"] = dict(body.get("resourceLabels") or {})
            cluster["labelFingerprint"] = f"fp{next(self._ids)}"
            return Reply(200, copy.deepcopy(op))

    def _update_cluster(self, request: Request, m: re.Match[str]) -> Reply:
        update = (request.body or {}).get("update") or {}
        key = (m[1], m[2], m[3])
        with self._lock:
            op, refused = self._begin(key, "UPDATE_CLUSTER", m[0].removeprefix("/v1/"))
            if refused is not None or op is None:
                return refused or Reply(500, {})
            if "desiredClusterAutoscaling" in update:
                self.clusters[key]["autoscaling"] = copy.deepcopy(
                    update["desiredClusterAutoscaling"]
                )
            return Reply(200, copy.deepcopy(op))

    def _operation(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            op = self.operations.get(m[3])
            if op is None:
                return Reply(404, error_body(404, f"operation {m[3]} not found"))
            if op["status"] != "DONE":
                self._polls[m[3]] -= 1
                if self._polls[m[3]] <= 0:
                    op["status"] = "DONE"
                    op["endTime"] = "2026-11-21T05:00:10.000000Z"
                    for key, running in list(self._running.items()):
                        if running == m[3]:
                            del self._running[key]
            return Reply(200, copy.deepcopy(op))
