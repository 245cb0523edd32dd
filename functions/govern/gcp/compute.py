# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Compute Engine instances (compute_v1.InstancesClient): list all, stop one.

A thin adapter: it translates the port's calls and the client's errors, nothing more.
"""

from __future__ import annotations

from typing import Any

from govern import parse
from govern.gcp.clients import build_client, call_options, enum_name, translated
from govern.models import Workload


class ComputeAdapter:
    """ports.Compute over compute_v1.InstancesClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list_instances(self, project: str) -> list[Workload]:
        """All instances of the project via one aggregatedList (paged)."""
        out: list[Workload] = []
        with translated(f"compute aggregatedList {project}"):
            pager = self._client.aggregated_list(
                request={"project": project, "return_partial_success": True}, **call_options()
            )
            for _scope, scoped in pager:
                for inst in scoped.instances:
                    raw = {
                        "name": inst.name,
                        "status": inst.status,
                        "zone": inst.zone,
                        "id": str(inst.id),
                        "labels": dict(inst.labels),
                        "machineType": inst.machine_type,
                        "guestAccelerators": [
                            {"acceleratorCount": a.accelerator_count}
                            for a in inst.guest_accelerators
                        ],
                        "metadata": {
                            "items": [{"key": i.key, "value": i.value} for i in inst.metadata.items]
                        },
                    }
                    out.append(parse.compute_instance(project, raw))
        return out

    def stop(self, project: str, zone: str, name: str) -> str:
        """instances.stop; answers the zonal operation's status (PENDING) without polling.

        `stop_unary` avoids the ExtendedOperation poller, whose internal ZoneOperationsClient
        would ignore our endpoint. Stop discards local SSD contents on GCP.
        """
        with translated(f"compute stop {project}/{zone}/{name}"):
            op = self._client.stop_unary(
                project=project, zone=zone, instance=name, **call_options()
            )
        return f"{op.name} {enum_name(op.status)}"


def create(endpoint: str | None = None) -> ComputeAdapter:
    """Compute adapter; `endpoint` like http://127.0.0.1:9090 for a local fake."""
    return ComputeAdapter(
        build_client("google.cloud.compute_v1", "instances", "InstancesClient", endpoint)
    )
