# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Compute Engine instances (compute_v1.InstancesClient): list all, stop one; group sizes.

A thin adapter: it translates the port's calls and the client's errors, nothing more.
Zonal operations are read at their own zone's `zoneOperations.get` through the same base URL
(compute_v1's ExtendedOperation poller builds its own ZoneOperationsClient, which would ignore
an endpoint override, so it is not used).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from govern import operations, parse, ports
from govern.gcp.clients import (
    build_client,
    call_options,
    enum_name,
    missing,
    parsed,
    to_dict,
    translated,
)
from govern.gcp.rest import Rest, session
from govern.models import STOPPING, Workload
from govern.parse.operation import OperationState, compute_operation
from govern.parse.reader import integer, last_segment

BASE = "//compute.googleapis.com"
GOOGLE = "https://compute.googleapis.com"
# How long to wait for one stop to finish: a stop gives the guest up to 90 s to shut down
# (longer with a graceful-shutdown period), then powers it off.
WAIT_CAP_SECONDS = 180.0
# A scope of aggregatedList whose `warning.code` is this could not be read ("A given scope
# cannot be reached", InstancesScopedList.warning, compute v1 discovery document).
_UNREACHABLE = "UNREACHABLE"


class ComputeAdapter:
    """ports.Compute over compute_v1.InstancesClient; instance group sizes over plain REST.

    instanceGroupManagers.get goes through a JSON session (gcp/rest.py), not compute_v1's
    client: the budget cap reads one group per pool and zone (thousands at org scale), and the
    client's proto conversion costs milliseconds of CPU per call under the GIL.
    """

    def __init__(
        self, client: Any, groups: Callable[[], Rest] | None = None, base_url: str = GOOGLE
    ) -> None:
        self._client = client
        self._make_groups = groups
        self._groups: Rest | None = None
        self._lock = threading.Lock()
        self._base = base_url.rstrip("/")

    def _rest(self) -> Rest:
        with self._lock:  # the session is built on first use: not every flow needs it
            if self._groups is None and self._make_groups is not None:
                self._groups = self._make_groups()
            groups = self._groups
        if groups is None:
            raise ports.PortError("compute: no REST session")
        return groups

    def group_size(self, project: str, zone: str, name: str) -> int:
        """instanceGroupManagers.get -> targetSize (int32: the number of VMs the group keeps)."""
        groups = self._rest()
        path = f"projects/{project}/zones/{zone}/instanceGroupManagers/{name}"
        with translated(f"compute instanceGroupManagers.get {project}/{zone}/{name}"):
            group = groups.request("GET", f"{self._base}/compute/v1/{path}")
        return integer(group.get("targetSize"))

    def wait_operation(self, project: str, zone: str, operation: str) -> str:
        """Poll zoneOperations.get of `zone` until the operation is DONE; "DONE".

        Raises:
            ports.OperationFailed: the operation finished with an error (the stop did not
                happen).
            clock.OutOfTime: still running when the wait (WAIT_CAP_SECONDS, within the
                invocation's deadline) ran out.
        """
        rest = self._rest()
        what = f"compute zoneOperations.get {project}/{zone}/{operation}"
        url = f"{self._base}/compute/v1/projects/{project}/zones/{zone}/operations/{operation}"

        def poll() -> OperationState:
            with translated(what):
                return compute_operation(rest.request("GET", url))

        operations.wait(what, poll, cap=WAIT_CAP_SECONDS)
        return "DONE"

    def wait_stopped(self, project: str, zone: str, name: str) -> str:
        """Poll instances.get until the VM is not STOPPING/PENDING_STOP; its status (VM_GONE: 404).

        Raises:
            clock.OutOfTime: still stopping when the wait (WAIT_CAP_SECONDS, within the
                invocation's deadline) ran out.
        """
        rest = self._rest()
        what = f"compute instances.get {project}/{zone}/{name}"
        url = f"{self._base}/compute/v1/projects/{project}/zones/{zone}/instances/{name}"

        def poll() -> OperationState:
            try:
                with translated(what):
                    status = str(rest.request("GET", url).get("status", ""))
            except ports.Gone:
                status = ports.VM_GONE
            # Read as an operation that is done once the VM is no longer on its way down.
            return OperationState(name, status not in STOPPING["compute"], "", status)

        return operations.wait(what, poll, cap=WAIT_CAP_SECONDS, noun="VM").status

    def list_instances(self, project: str) -> ports.Listing[Workload]:
        """All instances of the project via one aggregatedList (paged).

        With returnPartialSuccess a zone Compute could not reach is named in `unreachables`
        (InstanceAggregatedList, compute v1 discovery document) and its VMs are left out: the
        listing carries those zones as `missing`, so the run acts on the rest and fails the zone.
        A scope whose entry carries the warning UNREACHABLE is missing in the same way (an empty
        zone's entry carries NO_RESULTS_ON_PAGE instead, as recorded: it was read whole).
        """
        unreachable: list[str] = []
        with translated(f"compute aggregatedList {project}"):
            pager = self._client.aggregated_list(
                request={"project": project, "return_partial_success": True}, **call_options()
            )
            listing = parsed(
                _instances(pager, unreachable),
                lambda raw: parse.compute_instance(project, raw),
                lambda raw: f"{BASE}/projects/{project}/{_zone_path(raw)}instances/{raw['name']}",
            )
        return missing(listing, unreachable)

    def stop(self, project: str, zone: str, name: str, *, keep_local_ssd: bool = False) -> str:
        """instances.stop; answers the zonal operation's status (PENDING) without polling.

        `stop_unary` avoids the ExtendedOperation poller, whose internal ZoneOperationsClient
        would ignore our endpoint. With `keep_local_ssd` it sends `discardLocalSsd=false`
        (required for a VM with Local SSDs; without it a stop discards their data).
        """
        request: dict[str, object] = {"project": project, "zone": zone, "instance": name}
        if keep_local_ssd:
            request["discard_local_ssd"] = False
        what = f"compute stop {project}/{zone}/{name}"
        with translated(what):
            op = self._client.stop_unary(request=request, **call_options())
        # Accepted (HTTP 200) but already failed: nothing was stopped.
        operations.accepted(what, compute_operation(to_dict(op)))
        return f"{op.name} {enum_name(op.status)}"


def _instances(pager: Any, unreachable: list[str]) -> Iterator[Mapping[str, Any]]:
    """The REST JSON fields parse.compute_instance reads, from the aggregatedList pages.

    Each page's `unreachables` (scopes such as `zones/us-central1-b`), and each scope whose
    entry carries the warning UNREACHABLE, go into `unreachable`.
    """
    for page in pager.pages:
        unreachable.extend(str(scope) for scope in page.unreachables)
        unreachable.extend(
            str(scope)
            for scope, scoped in page.items.items()
            if enum_name(scoped.warning.code) == _UNREACHABLE
        )
        for inst in (i for scoped in page.items.values() for i in scoped.instances):
            yield {
                "name": inst.name,
                "status": inst.status,
                "zone": inst.zone,
                "id": str(inst.id),
                "labels": dict(inst.labels),
                "machineType": inst.machine_type,
                "guestAccelerators": [
                    {"acceleratorCount": a.accelerator_count} for a in inst.guest_accelerators
                ],
                "metadata": {
                    "items": [{"key": i.key, "value": i.value} for i in inst.metadata.items]
                },
                "disks": [{"type": d.type_} for d in inst.disks],
                "lastStartTimestamp": inst.last_start_timestamp,
                # FLEX_START marks a VM PENDING on a Dynamic Workload Scheduler request.
                "scheduling": {"provisioningModel": inst.scheduling.provisioning_model},
            }


def _zone_path(raw: Mapping[str, Any]) -> str:
    zone = last_segment(raw.get("zone"))
    return f"zones/{zone}/" if zone else ""


def create(endpoint: str | None = None) -> ComputeAdapter:
    """Compute adapter; `endpoint` like http://127.0.0.1:9090 for a local fake."""
    return ComputeAdapter(
        build_client("google.cloud.compute_v1", "instances", "InstancesClient", endpoint),
        lambda: Rest(session(endpoint)),
        endpoint or GOOGLE,
    )
