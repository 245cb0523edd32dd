# pyright: basic
"""Fake Compute Engine instances API: aggregatedList, get, stop and zone operations.

Instance JSON is built from the recorded aggregatedList instance (cloud-custodian flight data,
tests/functions/data/get-compute-v1-...-aggregated-instances_1.json) and stop answers the
recorded PENDING zonal operation shape. Local SSDs are SCRATCH disks (AttachedDisk.type), and
stopping a VM that has any requires the `discardLocalSsd` query parameter, as the compute v1
discovery doc says of instances.stop; `local_ssd_data` records what became of their data.
aggregatedList has an entry per zone (a NO_RESULTS_ON_PAGE warning where a zone has no VMs) and,
asked with returnPartialSuccess, leaves the `unreachable` zones out and names them in
`unreachables` (InstanceAggregatedList, compute v1); asked without, it fails (503). A zone in
`unreachable_warning` is answered the other way the schema allows: its entry carries the
warning code UNREACHABLE ("A given scope cannot be reached", InstancesScopedList.warning) and
no instances.

A stop answers the recorded PENDING operation; zoneOperations.get then answers it DONE. A VM in
`stopping` is left STOPPING by its stop, for that many instances.get (None: for good). A VM in
`failing_stops` is not stopped: its operation ends DONE with `error.errors[]` and
`httpErrorStatusCode` (Operation, compute v1 discovery document; no recording of a failed stop
exists here), at once when `at_once` is set, else on the first zoneOperations.get. A VM in
`slow_stops` has its operation answer RUNNING that many times before DONE.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import threading
from pathlib import Path
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

DATA = Path(__file__).parent / "recorded"
_AGG = json.loads(
    (DATA / "get-compute-v1-projects-cloud-custodian-aggregated-instances_1.json").read_text()
)["body"]
_STOP = json.loads(
    (
        DATA
        / "post-compute-v1-projects-cloud-custodian-zones-us-central1-c-instances-instance-1-stop_1.json"
    ).read_text()
)["body"]
TEMPLATE: dict[str, Any] = _AGG["items"]["zones/us-central1-c"]["instances"][0]
BASE = "https://www.googleapis.com/compute/v1"
ZONES = ("europe-west4-a", "europe-west4-b", "us-central1-a", "us-central1-b", "us-central1-c")


def _no_results(scope: str) -> dict[str, Any]:
    """An aggregatedList entry for a scope without instances, as Compute sends it."""
    return {
        "warning": {
            "code": "NO_RESULTS_ON_PAGE",
            "message": f"There are no results for scope '{scope}' on this page.",
            "data": [{"key": "scope", "value": scope}],
        }
    }


def _unreachable(scope: str) -> dict[str, Any]:
    """An aggregatedList entry for a scope Compute could not read (warning UNREACHABLE)."""
    return {
        "warning": {
            "code": "UNREACHABLE",
            "message": f"Scope '{scope}' is unreachable.",
            "data": [{"key": "scope", "value": scope}],
        }
    }


def _failed(op: dict[str, Any], code: str, message: str, status: int) -> dict[str, Any]:
    """`op` finished with an error, in the Operation schema's fields."""
    return {
        **op,
        "status": "DONE",
        "progress": 100,
        "error": {"errors": [{"code": code, "message": message}]},
        "httpErrorStatusCode": status,
        "httpErrorMessage": {400: "BAD REQUEST", 403: "FORBIDDEN", 503: "SERVICE UNAVAILABLE"}.get(
            status, "ERROR"
        ),
    }


class FakeCompute:
    """Instances keyed by (project, zone, name); stop moves RUNNING to TERMINATED."""

    def __init__(self) -> None:
        self.instances: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.operations: dict[str, dict[str, Any]] = {}
        # (project, zone, name) -> "preserved" or "discarded", for VMs with Local SSDs.
        self.local_ssd_data: dict[tuple[str, str, str], str] = {}
        # (project, zone) Compute cannot reach: aggregatedList leaves its VMs out and names it
        # in `unreachables` (it is asked with returnPartialSuccess).
        self.unreachable: set[tuple[str, str]] = set()
        # Zones aggregatedList has an entry for even without VMs (a NO_RESULTS_ON_PAGE warning,
        # as in the recorded answer: instance-pause-resume/), beside every zone with VMs.
        self.zones: tuple[str, ...] = ZONES
        # (project, zone) whose aggregatedList entry is an UNREACHABLE warning, no instances.
        self.unreachable_warning: set[tuple[str, str]] = set()
        # (project, zone, name) -> (code, message, HTTP status, at_once) of a stop that fails.
        self.failing_stops: dict[tuple[str, str, str], tuple[str, str, int, bool]] = {}
        # (project, zone, name) -> how many zoneOperations.get answer RUNNING before DONE.
        self.slow_stops: dict[tuple[str, str, str], int] = {}
        # (project, zone, name) -> how many instances.get answer STOPPING before TERMINATED:
        # its stop leaves the VM STOPPING (what an unconfirmed stop leaves behind); None stays.
        self.stopping: dict[tuple[str, str, str], int | None] = {}
        self._failures: dict[str, dict[str, Any]] = {}
        self._polls_left: dict[str, int] = {}
        self._ids = itertools.count(1000)
        self._lock = threading.Lock()

    def add(
        self,
        project: str,
        zone: str,
        name: str,
        *,
        status: str = "RUNNING",
        labels: dict[str, str] | None = None,
        gpus: int = 0,
        machine_type: str = "n1-standard-1",
        metadata: dict[str, str] | None = None,
        local_ssds: int = 0,
        last_start: str | None = None,
    ) -> dict[str, Any]:
        """A VM; `last_start` is its lastStartTimestamp (default: it has run since its creation)."""
        inst = copy.deepcopy(TEMPLATE)
        inst_id = str(next(self._ids))
        inst.update(
            {
                "name": name,
                "status": status,
                "id": inst_id,
                "zone": f"{BASE}/projects/{project}/zones/{zone}",
                "selfLink": f"{BASE}/projects/{project}/zones/{zone}/instances/{name}",
                "machineType": f"{BASE}/projects/{project}/zones/{zone}/machineTypes/{machine_type}",
                "labels": dict(labels or {}),
                # Compute's format, as recorded (instance-query/, filter-metrics/).
                "lastStartTimestamp": last_start or TEMPLATE["creationTimestamp"],
            }
        )
        if gpus:
            inst["guestAccelerators"] = [
                {
                    "acceleratorType": f"{BASE}/projects/{project}/zones/{zone}/acceleratorTypes/nvidia-tesla-t4",
                    "acceleratorCount": gpus,
                }
            ]
        if metadata:
            inst["metadata"]["items"] = [{"key": k, "value": v} for k, v in metadata.items()]
        for i in range(local_ssds):
            inst["disks"].append(
                {
                    "index": i + 1,
                    "kind": "compute#attachedDisk",
                    "autoDelete": True,
                    "deviceName": f"local-ssd-{i}",
                    "interface": "NVME",
                    "mode": "READ_WRITE",
                    "diskSizeGb": "375",
                    "type": "SCRATCH",
                }
            )
        self.instances[(project, zone, name)] = inst
        return inst

    def status(self, project: str, zone: str, name: str) -> str:
        return self.instances[(project, zone, name)]["status"]

    def install(self, fake: FakeGcp) -> FakeCompute:
        fake.route("GET", r"/compute/v1/projects/([^/]+)/aggregated/instances", self._aggregated)
        fake.route(
            "GET", r"/compute/v1/projects/([^/]+)/zones/([^/]+)/instances/([^/]+)", self._get
        )
        fake.route(
            "POST", r"/compute/v1/projects/([^/]+)/zones/([^/]+)/instances/([^/]+)/stop", self._stop
        )
        fake.route(
            "GET", r"/compute/v1/projects/([^/]+)/zones/([^/]+)/operations/([^/]+)", self._operation
        )
        return self

    def _aggregated(self, request: Request, m: re.Match[str]) -> Reply:
        project = m[1]
        partial = request.query.get("returnPartialSuccess", ["false"])[0] == "true"
        lost = sorted(z for p, z in self.unreachable if p == project)
        warned = {z for p, z in self.unreachable_warning if p == project}
        if lost and not partial:
            return Reply(503, error_body(503, f"zones unreachable: {', '.join(lost)}"))
        items: dict[str, Any] = {}
        with self._lock:
            for (p, zone, _), inst in sorted(self.instances.items()):
                if p == project and zone not in lost and zone not in warned:
                    items.setdefault(f"zones/{zone}", {"instances": []})["instances"].append(
                        copy.deepcopy(inst)
                    )
        for zone in warned:
            items[f"zones/{zone}"] = _unreachable(f"zones/{zone}")
        for zone in self.zones:
            if zone not in lost:
                items.setdefault(f"zones/{zone}", _no_results(f"zones/{zone}"))
        body: dict[str, Any] = {
            "kind": "compute#instanceAggregatedList",
            "id": f"projects/{project}/aggregated/instances",
            "items": dict(sorted(items.items())),
            "selfLink": f"{BASE}/projects/{project}/aggregated/instances",
        }
        if lost:
            body["unreachables"] = [f"zones/{zone}" for zone in lost]
        return Reply(200, body)

    def _get(self, request: Request, m: re.Match[str]) -> Reply:
        key = (m[1], m[2], m[3])
        with self._lock:
            inst = self.instances.get(key)
            if inst is not None and inst["status"] == "STOPPING" and key in self.stopping:
                left = self.stopping[key]
                if left is not None:
                    if left <= 0:
                        inst["status"] = "TERMINATED"
                    self.stopping[key] = left - 1
        if inst is None:
            return Reply(
                404,
                error_body(
                    404,
                    f"The resource 'projects/{m[1]}/zones/{m[2]}/instances/{m[3]}' was not found",
                ),
            )
        return Reply(200, copy.deepcopy(inst))

    def _stop(self, request: Request, m: re.Match[str]) -> Reply:
        project, zone, name = m[1], m[2], m[3]
        with self._lock:
            inst = self.instances.get((project, zone, name))
            if inst is None:
                return Reply(
                    404,
                    error_body(
                        404,
                        f"The resource 'projects/{project}/zones/{zone}/instances/{name}' was not found",
                    ),
                )
            if any(d.get("type") == "SCRATCH" for d in inst["disks"]):
                discard = request.query.get("discardLocalSsd", [None])[0]
                if discard not in ("true", "false"):
                    return Reply(
                        400,
                        error_body(
                            400,
                            "discardLocalSsd is required for an instance with Local SSD disks",
                        ),
                    )
                self.local_ssd_data[(project, zone, name)] = (
                    "discarded" if discard == "true" else "preserved"
                )
            failure = self.failing_stops.get((project, zone, name))
            if failure is None:
                stopping = (project, zone, name) in self.stopping
                inst["status"] = "STOPPING" if stopping else "TERMINATED"
            op = copy.deepcopy(_STOP)
            op_name = f"operation-{next(self._ids)}"
            op.update(
                {
                    "name": op_name,
                    "targetId": inst["id"],
                    "targetLink": inst["selfLink"],
                    "zone": f"{BASE}/projects/{project}/zones/{zone}",
                    "selfLink": f"{BASE}/projects/{project}/zones/{zone}/operations/{op_name}",
                }
            )
            self.operations[op_name] = op
            self._polls_left[op_name] = self.slow_stops.get((project, zone, name), 0)
            if failure is not None:
                code, message, status, at_once = failure
                self._failures[op_name] = _failed(op, code, message, status)
                if at_once:
                    return Reply(200, self._failures[op_name])
        return Reply(200, op)

    def _operation(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            op = self.operations.get(m[3])
            if op is None or op["zone"].rsplit("/", 1)[-1] != m[2]:
                # Operations live in their zone: asked at another zone, there is none.
                return Reply(404, error_body(404, "operation not found"))
            if self._polls_left.get(m[3], 0) > 0:
                self._polls_left[m[3]] -= 1
                return Reply(200, {**op, "status": "RUNNING", "progress": 50})
            if m[3] in self._failures:
                return Reply(200, self._failures[m[3]])
        return Reply(200, {**op, "status": "DONE", "progress": 100})
