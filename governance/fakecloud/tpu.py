# pyright: basic
"""Fake Cloud TPU API v2: nodes (list per zone or in every zone, `locations/-`; stop READY ->
STOPPED) and queued resources (list per zone or in every zone; delete).

The stop's operation (governance/fakecloud/longrunning.py) answers done at its first operations.get,
or after `slow_stops[key]` running answers; a node in `failing_stops` (key -> (google.rpc.Code
number, message)) stays READY and its operation finishes with that error.

Queued resources (`projects.locations.queuedResources`, tpu v2 discovery document): list per
zone (`queuedResources`, `unreachable`), and delete, answering an Operation. As the document
says of `force`, a delete without it goes through only "if its nodes have already been deleted
or the queued resource is in the ACCEPTED, FAILED, or SUSPENDED state"; a request still
waiting (CREATING, WAITING_FOR_RESOURCES) has no nodes yet. One that has nodes (PROVISIONING,
ACTIVE) is refused 400 FAILED_PRECONDITION without force (the wording is ours: no recording).
"""

from __future__ import annotations

import re
import threading
from typing import Any

from governance.fakecloud.longrunning import Operations
from governance.fakecloud.server import FakeGcp, Reply, Request, error_body


class FakeTpu:
    """TPU VMs keyed by (project, zone, name), in the v2 Node JSON shape."""

    def __init__(self) -> None:
        self.nodes: dict[tuple[str, str, str], dict[str, Any]] = {}
        # (project, zone) the TPU API cannot reach: its list names it in `unreachable`
        # (ListNodesResponse, tpu v2: "Locations that could not be reached") and holds no nodes.
        self.unreachable: set[tuple[str, str]] = set()
        # (project, zone, name) -> (google.rpc.Code, message) of a stop whose operation fails.
        self.failing_stops: dict[tuple[str, str, str], tuple[int, str]] = {}
        # (project, zone, name) -> how many operations.get answer running before done.
        self.slow_stops: dict[tuple[str, str, str], int] = {}
        self.operations = Operations(
            "tpu",
            "type.googleapis.com/google.cloud.tpu.v2.OperationMetadata",
            "type.googleapis.com/google.cloud.tpu.v2.Node",
        )
        # (project, zone, name) -> QueuedResource JSON.
        self.queued: dict[tuple[str, str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def add_queued(
        self,
        project: str,
        zone: str,
        name: str,
        *,
        state: str = "WAITING_FOR_RESOURCES",
        labels: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """A queued resource asking for one spot v5e TPU VM, in `state` (QueuedResourceState)."""
        node: dict[str, Any] = {
            "acceleratorType": "v5litepod-8",
            "runtimeVersion": "v2-alpha-tpuv5-lite",
            "networkConfig": {"network": "default", "subnetwork": "default"},
        }
        if labels:
            node["labels"] = dict(labels)
        queued = {
            "name": f"projects/{project}/locations/{zone}/queuedResources/{name}",
            "createTime": "2026-11-20T22:00:00Z",
            "tpu": {
                "nodeSpec": [
                    {
                        "parent": f"projects/{project}/locations/{zone}",
                        "nodeId": f"{name}-node",
                        "node": node,
                    }
                ]
            },
            "spot": {},
            "state": {"state": state},
        }
        self.queued[(project, zone, name)] = queued
        return queued

    def add(
        self,
        project: str,
        zone: str,
        name: str,
        *,
        state: str = "READY",
        labels: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        node = {
            "name": f"projects/{project}/locations/{zone}/nodes/{name}",
            "acceleratorType": "v5litepod-8",
            "state": state,
            "runtimeVersion": "v2-alpha-tpuv5-lite",
            "networkConfig": {
                "network": "default",
                "subnetwork": "default",
                "enableExternalIps": False,
            },
            "schedulingConfig": {"spot": True},
            "id": str(7000 + len(self.nodes)),
            "apiVersion": "V2",
            "health": "HEALTHY",
            "createTime": "2026-11-01T00:00:00Z",
        }
        if labels:  # proto3 JSON leaves an empty map out
            node["labels"] = dict(labels)
        self.nodes[(project, zone, name)] = node
        return node

    def state(self, project: str, zone: str, name: str) -> str:
        return self.nodes[(project, zone, name)]["state"]

    def install(self, fake: FakeGcp) -> FakeTpu:
        fake.route("GET", r"/v2/projects/([^/]+)/locations/([^/]+)/nodes", self._list)
        fake.route(
            "POST", r"/v2/projects/([^/]+)/locations/([^/]+)/nodes/([^/:]+):stop", self._stop
        )
        fake.route(
            "GET",
            r"/v2/(projects/[^/]+/locations/[^/]+/operations/operation-tpu-[0-9]+)",
            lambda _request, m: self.operations.get(m[1]),
        )
        fake.route("GET", r"/v2/projects/([^/]+)/locations/([^/]+)/queuedResources", self._queued)
        fake.route(
            "DELETE",
            r"/v2/projects/([^/]+)/locations/([^/]+)/queuedResources/([^/:]+)",
            self._withdraw,
        )
        return self

    def _queued(self, request: Request, m: re.Match[str]) -> Reply:
        # Like the nodes list: `locations/-` reads every zone, and names the zones it could not
        # reach in `unreachable` (ListQueuedResourcesResponse).
        project, where = m[1], m[2]
        lost = sorted(z for p, z in self.unreachable if p == project and where in ("-", z))
        with self._lock:
            found = [
                dict(q)
                for (p, z, _), q in sorted(self.queued.items())
                if p == project and where in ("-", z) and z not in lost
            ]
        body: dict[str, Any] = {"queuedResources": found} if found else {}
        if lost:
            body["unreachable"] = [f"projects/{project}/locations/{z}" for z in lost]
        return Reply(200, body)

    def _withdraw(self, request: Request, m: re.Match[str]) -> Reply:
        key = (m[1], m[2], m[3])
        force = request.query.get("force", ["false"])[0] == "true"
        with self._lock:
            queued = self.queued.get(key)
            if queued is None:
                return Reply(404, error_body(404, f"queued resource {m[3]} not found"))
            state = queued["state"]["state"]
            if state in ("PROVISIONING", "ACTIVE") and not force:
                return Reply(
                    400,
                    {
                        "error": {
                            "code": 400,
                            "message": f"queued resource {m[3]} has nodes; delete with force",
                            "status": "FAILED_PRECONDITION",
                        }
                    },
                )
            del self.queued[key]
            op = self.operations.start(
                f"projects/{m[1]}/locations/{m[2]}",
                queued["name"],
                "delete",
                response={},
                response_type="type.googleapis.com/google.protobuf.Empty",
            )
        return Reply(200, op)

    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        # `locations/-` lists every zone (AIP-159; ListNodesResponse names the zones it could
        # not reach in `unreachable`, and holds the nodes of the others).
        project, where = m[1], m[2]
        lost = sorted(z for p, z in self.unreachable if p == project and where in ("-", z))
        with self._lock:
            found = [
                dict(n)
                for (p, z, _), n in sorted(self.nodes.items())
                if p == project and where in ("-", z) and z not in lost
            ]
        body: dict[str, Any] = {"nodes": found} if found else {}
        if lost:
            body["unreachable"] = [f"projects/{project}/locations/{z}" for z in lost]
        return Reply(200, body)

    def _stop(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            node = self.nodes.get((m[1], m[2], m[3]))
            if node is None:
                return Reply(404, error_body(404, f"node {m[3]} not found"))
            key = (m[1], m[2], m[3])
            failure = self.failing_stops.get(key)
            if failure is None:
                node["state"] = "STOPPED"
            op = self.operations.start(
                f"projects/{m[1]}/locations/{m[2]}",
                node["name"],
                "stop",
                response=node,
                polls=self.slow_stops.get(key, 0),
                error=failure,
            )
        return Reply(200, op)
