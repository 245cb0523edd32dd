# pyright: basic
"""Fake Notebooks API v2 (Vertex AI Workbench instances): list (incl. locations/-), get, stop.

Instance JSON comes from the recorded v2 list (cloud-custodian flight data). Stop answers a
long-running Operation (governance/fakecloud/longrunning.py) and moves ACTIVE to STOPPED; the
operation answers done at its first operations.get, or after `slow_stops[key]` running answers.
A stop of an instance in `failing_stops` (key -> (google.rpc.Code number, message)) leaves it
ACTIVE, and its operation finishes with that error.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from pathlib import Path
from typing import Any

from governance.fakecloud.longrunning import Operations
from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

DATA = Path(__file__).parent / "recorded"
RECORDED = json.loads(
    (
        DATA
        / "get-notebooks.googleapis.com-v2-projects-cloud-custodian-locations---instances_1.json"
    ).read_text()
)["body"]
TEMPLATE: dict[str, Any] = RECORDED["instances"][0]
# States of an instance being created or started: a stop cannot be queued yet.
_BUSY = frozenset({"PROVISIONING", "STARTING", "INITIALIZING"})


class FakeNotebooks:
    """Workbench instances keyed by (project, zone, name)."""

    def __init__(self) -> None:
        self.instances: dict[tuple[str, str, str], dict[str, Any]] = {}
        # (project, location) the API cannot reach. "A ListInstancesResponse will only contain
        # either instances or unreachables" (notebooks v2 discovery document): a list over
        # locations/- then names them and holds no instances at all.
        self.unreachable: set[tuple[str, str]] = set()
        # (project, zone, name) -> (google.rpc.Code, message) of a stop whose operation fails.
        self.failing_stops: dict[tuple[str, str, str], tuple[int, str]] = {}
        # (project, zone, name) -> how many operations.get answer running before done.
        self.slow_stops: dict[tuple[str, str, str], int] = {}
        self.operations = Operations(
            "nb",
            "type.googleapis.com/google.cloud.notebooks.v2.OperationMetadata",
            "type.googleapis.com/google.cloud.notebooks.v2.Instance",
        )
        self._lock = threading.Lock()

    def add(
        self,
        project: str,
        zone: str,
        name: str,
        *,
        state: str = "ACTIVE",
        labels: dict[str, str] | None = None,
        gpus: int = 0,
    ) -> dict[str, Any]:
        inst = copy.deepcopy(TEMPLATE)
        inst.update(
            {
                "name": f"projects/{project}/locations/{zone}/instances/{name}",
                "state": state,
            }
        )
        inst.pop("labels", None)  # proto3 JSON leaves an empty map out
        if labels:
            inst["labels"] = dict(labels)
        if gpus:
            inst["gceSetup"]["acceleratorConfigs"] = [
                {"type": "NVIDIA_TESLA_T4", "coreCount": str(gpus)}
            ]
        self.instances[(project, zone, name)] = inst
        return inst

    def state(self, project: str, zone: str, name: str) -> str:
        return self.instances[(project, zone, name)]["state"]

    def install(self, fake: FakeGcp) -> FakeNotebooks:
        fake.route("GET", r"/v2/projects/([^/]+)/locations/([^/]+)/instances", self._list)
        fake.route(
            "POST", r"/v2/projects/([^/]+)/locations/([^/]+)/instances/([^/:]+):stop", self._stop
        )
        fake.route(
            "GET",
            r"/v2/(projects/[^/]+/locations/[^/]+/operations/operation-nb-[0-9]+)",
            lambda _request, m: self.operations.get(m[1]),
        )
        return self

    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        project, loc = m[1], m[2]
        lost = sorted(z for p, z in self.unreachable if p == project and loc in ("-", z))
        if lost:
            return Reply(200, {"unreachable": [f"projects/{project}/locations/{z}" for z in lost]})
        with self._lock:
            found = [
                copy.deepcopy(i)
                for (p, z, _), i in sorted(self.instances.items())
                if p == project and loc in ("-", z)
            ]
        return Reply(200, {"instances": found} if found else {})

    def _stop(self, request: Request, m: re.Match[str]) -> Reply:
        key = (m[1], m[2], m[3])
        with self._lock:
            inst = self.instances.get(key)
            if inst is None:
                return Reply(404, error_body(404, f"instance {m[3]} not found"))
            if inst["state"] in _BUSY:
                # What the Notebooks API answers a stop of an instance still being created
                # (hashicorp/terraform-provider-google#17593: "Error 409: unable to queue the
                # operation").
                return Reply(409, error_body(409, "unable to queue the operation"))
            if inst["state"] not in ("ACTIVE", "STOPPED"):
                return Reply(
                    400, error_body(400, f"cannot stop an instance in state {inst['state']}")
                )
            failure = self.failing_stops.get(key)
            if failure is None:
                inst["state"] = "STOPPED"
            op = self.operations.start(
                f"projects/{m[1]}/locations/{m[2]}",
                inst["name"],
                "stop",
                response=inst,
                polls=self.slow_stops.get(key, 0),
                error=failure,
            )
        return Reply(200, op)
