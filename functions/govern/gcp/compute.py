# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Compute Engine instances (compute_v1.InstancesClient): list all, stop one.

A thin adapter: it translates the port's calls and the client's errors, nothing more.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from govern import parse, ports
from govern.gcp.clients import build_client, call_options, enum_name, parsed, translated
from govern.models import Workload
from govern.parse.reader import last_segment

BASE = "//compute.googleapis.com"


class ComputeAdapter:
    """ports.Compute over compute_v1.InstancesClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list_instances(self, project: str) -> ports.Listing[Workload]:
        """All instances of the project via one aggregatedList (paged)."""
        with translated(f"compute aggregatedList {project}"):
            pager = self._client.aggregated_list(
                request={"project": project, "return_partial_success": True}, **call_options()
            )
            return parsed(
                _instances(pager),
                lambda raw: parse.compute_instance(project, raw),
                lambda raw: f"{BASE}/projects/{project}/{_zone_path(raw)}instances/{raw['name']}",
            )

    def stop(self, project: str, zone: str, name: str, *, keep_local_ssd: bool = False) -> str:
        """instances.stop; answers the zonal operation's status (PENDING) without polling.

        `stop_unary` avoids the ExtendedOperation poller, whose internal ZoneOperationsClient
        would ignore our endpoint. With `keep_local_ssd` it sends `discardLocalSsd=false`
        (required for a VM with Local SSDs; without it a stop discards their data).
        """
        request: dict[str, object] = {"project": project, "zone": zone, "instance": name}
        if keep_local_ssd:
            request["discard_local_ssd"] = False
        with translated(f"compute stop {project}/{zone}/{name}"):
            op = self._client.stop_unary(request=request, **call_options())
        return f"{op.name} {enum_name(op.status)}"


def _instances(pager: Any) -> Iterator[Mapping[str, Any]]:
    """The REST JSON fields parse.compute_instance reads, from the aggregatedList pages."""
    for _scope, scoped in pager:
        for inst in scoped.instances:
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
            }


def _zone_path(raw: Mapping[str, Any]) -> str:
    zone = last_segment(raw.get("zone"))
    return f"zones/{zone}/" if zone else ""


def create(endpoint: str | None = None) -> ComputeAdapter:
    """Compute adapter; `endpoint` like http://127.0.0.1:9090 for a local fake."""
    return ComputeAdapter(
        build_client("google.cloud.compute_v1", "instances", "InstancesClient", endpoint)
    )
