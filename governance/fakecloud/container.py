# pyright: basic
"""Fake GKE (container v1): clusters list/get, node pool and cluster writes, operations.get, and
the Compute instance groups behind each node pool.

Cluster and node pool JSON start from the recorded `clusters.list` answer (Cloud Custodian
flight data in tests/functions/data/, provenance in its SOURCES.md);
fields the cap reads (accelerators, autoscaling, NAP resourceLimits, resourceLabels) are added
in the shapes of the container v1 discovery document (tests/functions/test_fake_shapes.py) and
of the recordings in tests/fakegcp/recorded/ (tests/fakegcp/test_recorded_shapes.py). Answers
are proto3 JSON as GKE sends it: fields at their default are left out (a zero `minimum`,
`minNodeCount`, `enabled: false`), int64 fields are strings.

Like GKE, a cluster runs one cluster-level operation at a time, or one operation per node pool
(Google's "Troubleshoot concurrent operations" page): a write that meets a RUNNING operation it
may not run beside answers 400 FAILED_PRECONDITION; an operation is DONE after `op_polls`
operations.get calls. A
setResourceLabels with a stale labelFingerprint answers the recorded 400 FAILED_PRECONDITION
"fingerprint mismatch". `missing_zones` leaves the clusters of a zone out of clusters.list and
names the zone in `missingZones`. A pool's node count per zone (setSize's nodeCount) is kept in
`sizes`; each pool has one managed instance group per zone, answered at the Compute paths with
that count as `targetSize` (`zone_sizes` overrides one zone). A pool named in `failing_sizes`
is not resized: its setSize operation ends DONE with the Operation schema's `error` (a
google.rpc.Status) and, with `legacy_error`, only the deprecated `statusMessage` ("If an error
has occurred, a textual description of the error", container v1 discovery document).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
import threading
from pathlib import Path
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

RECORDED = (
    Path(__file__).parent
    / "recorded"
    / "get-v1-projects-cloud-custodian-locations---clusters_1.json"
)
_TEMPLATE: dict[str, Any] = json.loads(RECORDED.read_text())["body"]["clusters"][0]
_GROUPS = (
    Path(__file__).parent
    / "recorded"
    / "test_instance_group_manager_query"
    / "get-compute-v1-projects-cloud-custodian-zones-us-central1-a-instanceGroupManagers_1.json"
)
_GROUP_TEMPLATE: dict[str, Any] = json.loads(_GROUPS.read_text())["body"]["items"][0]
BASE = "https://container.googleapis.com/v1"
COMPUTE = "https://www.googleapis.com/compute/v1"
_ID = r"([^/:]+)"
Key = tuple[str, str, str]


def _busy(op: str) -> Reply:
    body = error_body(
        400,
        f"Operation {op} is currently operating on the cluster. Please wait and try again "
        "once it is done.",
    )
    body["error"]["status"] = "FAILED_PRECONDITION"
    return Reply(400, body)


def _stale(sent: str, expected: str) -> Reply:
    """The recorded answer to a stale labelFingerprint (gke-cluster-set-label/..._2.json)."""
    body = error_body(
        400,
        "Labels could not be set due to fingerprint mismatch; try again with the proper "
        f'fingerprint: incorrect fingerprint supplied was "{sent}", the expected one is '
        f'"{expected}".',
    )
    body["error"]["status"] = "FAILED_PRECONDITION"
    body["error"]["details"] = [
        {"@type": "type.googleapis.com/google.rpc.RequestInfo", "requestId": "0xdf93223bbe291575"}
    ]
    return Reply(400, body)


def _limit(raw: dict[str, Any]) -> dict[str, Any]:
    """A ResourceLimit as GKE answers it: int64 as strings, a zero bound left out."""
    out: dict[str, Any] = {"resourceType": raw["resourceType"]}
    for bound in ("minimum", "maximum"):
        if int(raw.get(bound) or 0):
            out[bound] = str(int(raw[bound]))
    return out


def _pool_autoscaling(raw: dict[str, Any]) -> dict[str, Any]:
    """A NodePoolAutoscaling as GKE answers it: int32 as numbers, defaults left out."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key.endswith("NodeCount"):
            if int(value or 0):
                out[key] = int(value)
        elif key == "locationPolicy":
            if value and value != "LOCATION_POLICY_UNSPECIFIED":
                out[key] = value
        elif value:
            out[key] = value
    return out


def _fingerprint(labels: dict[str, str], salt: int) -> str:
    digest = hashlib.sha256(f"{sorted(labels.items())}/{salt}".encode()).hexdigest()
    return digest[:8]


class FakeContainer:
    """Clusters keyed by (project, location, name) as Cluster JSON with their nodePools."""

    def __init__(self, op_polls: int = 1) -> None:
        self.clusters: dict[Key, dict[str, Any]] = {}
        self.sizes: dict[tuple[str, str, str, str], int] = {}
        self.zone_sizes: dict[tuple[str, str, str, str, str], int] = {}
        self.operations: dict[str, dict[str, Any]] = {}
        self.missing_zones: set[tuple[str, str]] = set()  # (project, zone)
        # The next `races` setResourceLabels lose a race: someone else relabels the cluster
        # just before, so the fingerprint they carry is stale.
        self.races = 0
        self.op_polls = op_polls
        # pool name -> the error message its setSize operation ends with (the pool keeps its size)
        self.failing_sizes: dict[str, str] = {}
        self.legacy_error = False
        self._polls: dict[str, int] = {}
        self._running: dict[Key, str] = {}  # cluster-level operations
        self._running_pools: dict[tuple[Key, str], str] = {}  # node pool operations
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        # (project, zone, group name) -> (the pool's key, the group's URL)
        self._groups_at: dict[tuple[str, str, str], tuple[tuple[str, str, str, str], str]] = {}

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
        zones: list[str] | None = None,
    ) -> dict[str, Any]:
        """A cluster; `nap` maps resource types (cpu, memory, GPU/TPU types) to (min, max).

        `zones`: its node locations (default: a zonal cluster's zone, a regional one's -a/-b/-c).
        """
        cluster = copy.deepcopy(_TEMPLATE)
        zonal = bool(re.fullmatch(r".*-[a-z]", location))
        if zones is None:
            zones = [location] if zonal else [f"{location}-{z}" for z in "abc"]
        resource_labels = dict(labels or {})
        cluster.update(
            {
                "name": name,
                "location": location,
                "zone": location,
                "locations": zones,
                "selfLink": f"{BASE}/projects/{project}/locations/{location}/clusters/{name}",
                "status": "RUNNING",
                "nodePools": [],
                "instanceGroupUrls": [],
                "resourceLabels": resource_labels,
                "labelFingerprint": _fingerprint(resource_labels, next(self._ids)),
                "autoscaling": {"autoscalingProfile": "OPTIMIZE_UTILIZATION"},
            }
        )
        if not resource_labels:
            del cluster["resourceLabels"]
        if nap is not None:
            cluster["autoscaling"].update(
                {
                    "enableNodeAutoprovisioning": True,
                    "resourceLimits": [
                        _limit({"resourceType": rtype, "minimum": lo, "maximum": hi})
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
        autoprovisioned: bool = False,
        locations: list[str] | None = None,
    ) -> dict[str, Any]:
        """A node pool; `autoscaling` in NodePoolAutoscaling JSON (None: fixed size).

        `nodes` is the node count per zone (what setSize sets), `locations` its zones (default:
        the cluster's). `autoprovisioned`: made by node auto-provisioning.
        """
        owner = self.clusters[(project, location, cluster)]
        pool = copy.deepcopy(_TEMPLATE["nodePools"][0])
        path = f"projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}"
        zones = list(locations or owner["locations"])
        suffix = hashlib.sha256(path.encode()).hexdigest()[:8]
        groups = [
            f"{COMPUTE}/projects/{project}/zones/{zone}/instanceGroupManagers/"
            f"gke-{cluster[:14]}-{name[:14]}-{suffix}-grp"
            for zone in zones
        ]
        pool.update(
            {
                "name": name,
                "initialNodeCount": initial,
                "selfLink": f"{BASE}/{path}",
                "status": "RUNNING",
                "etag": f"etag-{next(self._ids)}",
                "locations": zones,
                "instanceGroupUrls": groups,
            }
        )
        if not initial:
            del pool["initialNodeCount"]
        pool["config"]["machineType"] = machine_type
        if labels:
            pool["config"]["resourceLabels"] = dict(labels)
        if gpus:
            pool["config"]["accelerators"] = [
                {"acceleratorCount": str(gpus), "acceleratorType": gpu_type}
            ]
        if machine_type.startswith("ct"):
            pool["placementPolicy"] = {"type": "COMPACT", "tpuTopology": "2x4"}
        if autoscaling is not None or autoprovisioned:
            raw = {**(autoscaling or {"enabled": True, "maxNodeCount": 1000})}
            if autoprovisioned:
                raw["autoprovisioned"] = True
            pool["autoscaling"] = _pool_autoscaling(raw)
        for zone, url in zip(zones, groups, strict=True):
            self._groups_at[(project, zone, url.rsplit("/", 1)[-1])] = (
                (project, location, cluster, name),
                url,
            )
        owner["nodePools"].append(pool)
        owner["instanceGroupUrls"] = [u for p in owner["nodePools"] for u in p["instanceGroupUrls"]]
        self.sizes[(project, location, cluster, name)] = nodes
        return pool

    def pool(self, project: str, location: str, cluster: str, name: str) -> dict[str, Any]:
        return next(
            p for p in self.clusters[(project, location, cluster)]["nodePools"] if p["name"] == name
        )

    def pool_labels(self, project: str, location: str, cluster: str, name: str) -> dict[str, str]:
        return dict(self.pool(project, location, cluster, name)["config"].get("resourceLabels", {}))

    def limits(self, project: str, location: str, cluster: str) -> dict[str, tuple[int, int]]:
        autoscaling = self.clusters[(project, location, cluster)]["autoscaling"]
        return {
            lim["resourceType"]: (int(lim.get("minimum", 0)), int(lim.get("maximum", 0)))
            for lim in autoscaling.get("resourceLimits", [])
        }

    def labels(self, project: str, location: str, cluster: str) -> dict[str, str]:
        return dict(self.clusters[(project, location, cluster)].get("resourceLabels", {}))

    def relabel(self, project: str, location: str, cluster: str, **labels: str) -> None:
        """Someone else changes the cluster's labels: a new labelFingerprint."""
        with self._lock:
            c = self.clusters[(project, location, cluster)]
            c["resourceLabels"] = {**c.get("resourceLabels", {}), **labels}
            c["labelFingerprint"] = _fingerprint(c["resourceLabels"], next(self._ids))

    def group_size(self, project: str, location: str, cluster: str, pool: str) -> int:
        """The pool's node count over all its zones (its instance groups' targetSize summed)."""
        zones = self.pool(project, location, cluster, pool)["locations"]
        return sum(self._target_size((project, location, cluster, pool), z) for z in zones)

    def _target_size(self, key: tuple[str, str, str, str], zone: str) -> int:
        return self.zone_sizes.get((*key, zone), self.sizes[key])

    # -- routes -------------------------------------------------------------------------------
    def install(self, fake: FakeGcp) -> FakeContainer:
        clusters = rf"/v1/projects/{_ID}/locations/{_ID}/clusters"
        pool = rf"{clusters}/{_ID}/nodePools/{_ID}"
        fake.route("GET", clusters, self._list)
        fake.route("GET", rf"{clusters}/{_ID}", self._get)
        fake.route("PUT", rf"{clusters}/{_ID}", self._update_cluster)
        fake.route("POST", rf"{clusters}/{_ID}:setResourceLabels", self._set_labels)
        fake.route("GET", pool, self._get_pool)
        fake.route("PUT", pool, self._update_pool)
        fake.route("POST", rf"{pool}:setAutoscaling", self._set_autoscaling)
        fake.route("POST", rf"{pool}:setSize", self._set_size)
        fake.route("GET", rf"/v1/projects/{_ID}/locations/{_ID}/operations/{_ID}", self._operation)
        groups = rf"/compute/v1/projects/{_ID}/zones/{_ID}/instanceGroupManagers"
        fake.route("GET", groups, self._list_groups)
        fake.route("GET", rf"{groups}/{_ID}", self._get_group)
        return self

    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        project, location = m[1], m[2]
        missing = sorted(z for p, z in self.missing_zones if p == project)
        with self._lock:
            found = [
                copy.deepcopy(c)
                for (p, loc, _), c in sorted(self.clusters.items())
                if p == project and location in ("-", loc) and loc not in missing
            ]
        body: dict[str, Any] = {"clusters": found} if found else {}
        if missing and location == "-":
            body["missingZones"] = missing
        return Reply(200, body)

    def _get(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            cluster = self.clusters.get((m[1], m[2], m[3]))
            if cluster is None:
                return Reply(404, error_body(404, f"cluster {m[3]} not found"))
            return Reply(200, copy.deepcopy(cluster))

    def _get_pool(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            cluster = self.clusters.get((m[1], m[2], m[3]))
            pool = next(
                (p for p in (cluster or {}).get("nodePools", []) if p["name"] == m[4]), None
            )
            if pool is None:
                return Reply(404, error_body(404, f"node pool {m[4]} not found"))
            return Reply(200, copy.deepcopy(pool))

    def _begin(
        self, key: Key, op_type: str, target: str, pool: str | None = None
    ) -> tuple[dict[str, Any] | None, Reply | None]:
        """Start an operation on cluster `key` or its node pool `pool` (lock held), or the
        reply refusing it."""
        if key not in self.clusters:
            return None, Reply(404, error_body(404, f"cluster {key[2]} not found"))
        running = self._running.get(key)
        if running is None and pool is not None:
            running = self._running_pools.get((key, pool))
        if running is None and pool is None:
            running = next((op for (k, _), op in self._running_pools.items() if k == key), None)
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
        }
        self.operations[name] = op
        if self.op_polls > 0:
            if pool is None:
                self._running[key] = name
            else:
                self._running_pools[(key, pool)] = name
            self._polls[name] = self.op_polls
        else:
            op["status"] = "DONE"
        return op, None

    def _pool_write(self, m: re.Match[str], op_type: str) -> tuple[dict[str, Any] | None, Reply]:
        key = (m[1], m[2], m[3])
        with self._lock:
            pools = self.clusters[key]["nodePools"] if key in self.clusters else []
            pool = next((p for p in pools if p["name"] == m[4]), None)
            if key in self.clusters and pool is None:
                return None, Reply(404, error_body(404, f"node pool {m[4]} not found"))
            target = m[0].removeprefix("/v1/").split(":")[0]
            op, refused = self._begin(key, op_type, target, pool=m[4])
            if refused is not None or op is None or pool is None:
                return None, refused or Reply(500, {})
            return pool, Reply(200, copy.deepcopy(op))

    def _update_pool(self, request: Request, m: re.Match[str]) -> Reply:
        pool, reply = self._pool_write(m, "UPDATE_CLUSTER")
        if pool is not None:
            labels = (request.body or {}).get("resourceLabels")
            if labels is not None:
                pool["config"]["resourceLabels"] = dict(labels.get("labels") or {})
                if not pool["config"]["resourceLabels"]:
                    del pool["config"]["resourceLabels"]
        return reply

    def _set_autoscaling(self, request: Request, m: re.Match[str]) -> Reply:
        autoscaling = (request.body or {}).get("autoscaling")
        if not isinstance(autoscaling, dict):
            return Reply(400, error_body(400, "autoscaling is required"))
        pool, reply = self._pool_write(m, "UPDATE_CLUSTER")
        if pool is not None:
            pool["autoscaling"] = _pool_autoscaling(autoscaling)
        return reply

    def _set_size(self, request: Request, m: re.Match[str]) -> Reply:
        count = (request.body or {}).get("nodeCount")
        if not isinstance(count, int) or count < 0:
            return Reply(400, error_body(400, "nodeCount must be >= 0"))
        pool, reply = self._pool_write(m, "SET_NODE_POOL_SIZE")
        if pool is not None and m[4] in self.failing_sizes:
            op = self.operations[reply.body["name"]]
            message = self.failing_sizes[m[4]]
            op["statusMessage"] = message
            if not self.legacy_error:
                op["error"] = {"code": 13, "message": message}
            return reply
        if pool is not None:
            key = (m[1], m[2], m[3], m[4])
            self.sizes[key] = count
            for zoned in [z for z in self.zone_sizes if z[:4] == key]:
                del self.zone_sizes[zoned]
        return reply

    def _set_labels(self, request: Request, m: re.Match[str]) -> Reply:
        body = request.body or {}
        key = (m[1], m[2], m[3])
        with self._lock:
            cluster = self.clusters.get(key)
            sent = str(body.get("labelFingerprint", ""))
            if cluster is not None and self.races > 0:
                self.races -= 1
                cluster["resourceLabels"] = {**cluster.get("resourceLabels", {}), "owner": "sre"}
                cluster["labelFingerprint"] = _fingerprint(
                    cluster["resourceLabels"], next(self._ids)
                )
            if cluster is not None and sent != cluster["labelFingerprint"]:
                return _stale(sent, cluster["labelFingerprint"])
            op, refused = self._begin(
                key, "UPDATE_CLUSTER", m[0].removeprefix("/v1/").split(":")[0]
            )
            if refused is not None or op is None:
                return refused or Reply(500, {})
            cluster = self.clusters[key]
            labels = dict(body.get("resourceLabels") or {})
            cluster["resourceLabels"] = labels
            if not labels:
                del cluster["resourceLabels"]
            cluster["labelFingerprint"] = _fingerprint(labels, next(self._ids))
            return Reply(200, copy.deepcopy(op))

    def _update_cluster(self, request: Request, m: re.Match[str]) -> Reply:
        update = (request.body or {}).get("update") or {}
        key = (m[1], m[2], m[3])
        with self._lock:
            op, refused = self._begin(key, "UPDATE_CLUSTER", m[0].removeprefix("/v1/"))
            if refused is not None or op is None:
                return refused or Reply(500, {})
            if "desiredClusterAutoscaling" in update:
                autoscaling = copy.deepcopy(update["desiredClusterAutoscaling"])
                if "resourceLimits" in autoscaling:
                    autoscaling["resourceLimits"] = [
                        _limit(lim) for lim in autoscaling["resourceLimits"]
                    ]
                self.clusters[key]["autoscaling"] = autoscaling
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
                    for at, running in list(self._running_pools.items()):
                        if running == m[3]:
                            del self._running_pools[at]
            return Reply(200, copy.deepcopy(op))

    # -- the node pools' managed instance groups (Compute API) ---------------------------------
    def _groups(
        self, project: str, zone: str, only: str | None = None
    ) -> dict[str, dict[str, Any]]:
        """{group name: InstanceGroupManager JSON} of the pools' groups in the zone (or one)."""
        found: dict[str, dict[str, Any]] = {}
        if only is not None:
            hit = self._groups_at.get((project, zone, only))
            candidates = {(project, zone, only): hit} if hit else {}
        else:
            candidates = self._groups_at
        for (p, z, name), (key, url) in candidates.items():
            if p != project or z != zone:
                continue
            size = self._target_size(key, zone)
            group = copy.deepcopy(_GROUP_TEMPLATE)
            zone_url = f"{COMPUTE}/projects/{project}/zones/{zone}"
            template = f"{COMPUTE}/projects/{project}/global/instanceTemplates/{name}"
            group.update(
                {
                    "id": str(int(hashlib.sha256(url.encode()).hexdigest()[:15], 16)),
                    "name": name,
                    "zone": zone_url,
                    "instanceTemplate": template,
                    "versions": [
                        {"instanceTemplate": template, "targetSize": {"calculated": size}}
                    ],
                    "instanceGroup": f"{zone_url}/instanceGroups/{name}",
                    "baseInstanceName": name.removesuffix("-grp"),
                    "targetSize": size,
                    "selfLink": url,
                }
            )
            group["status"].pop("autoscaler", None)  # GKE's autoscaler is not Compute's
            group.pop("autoHealingPolicies", None)
            found[name] = group
        return found

    def _list_groups(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            groups = self._groups(m[1], m[2])
        base = f"{COMPUTE}/projects/{m[1]}/zones/{m[2]}/instanceGroupManagers"
        body: dict[str, Any] = {
            "kind": "compute#instanceGroupManagerList",
            "id": f"projects/{m[1]}/zones/{m[2]}/instanceGroupManagers",
            "selfLink": base,
        }
        if groups:
            body["items"] = [groups[name] for name in sorted(groups)]
        return Reply(200, body)

    def _get_group(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            group = self._groups(m[1], m[2], only=m[3]).get(m[3])
        if group is None:
            message = (
                f"The resource 'projects/{m[1]}/zones/{m[2]}/instanceGroupManagers/{m[3]}' "
                "was not found"
            )
            return Reply(404, error_body(404, message))
        return Reply(200, group)
