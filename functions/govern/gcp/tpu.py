# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Cloud TPU VMs (tpu_v2.TpuClient): list a zone, stop one.

A thin adapter: it translates the port's calls and the client's errors, nothing more.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from govern import parse, ports
from govern.gcp.clients import (
    build_client,
    call_options,
    missing,
    parsed,
    to_dict,
    translated,
)
from govern.models import Workload


class TpuAdapter:
    """ports.Tpus over tpu_v2.TpuClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list_nodes(self, project: str, zone: str) -> ports.Listing[Workload]:
        """TPU VMs in one zone; locations the answer names `unreachable` are `missing`."""
        unreachable: list[str] = []

        def nodes(pager: Any) -> Iterator[dict[str, Any]]:
            for page in pager.pages:
                unreachable.extend(page.unreachable)
                yield from (to_dict(n) for n in page.nodes)

        with translated(f"tpu list {project}/{zone}"):
            pager = self._client.list_nodes(
                parent=f"projects/{project}/locations/{zone}", **call_options()
            )
            listing = parsed(
                nodes(pager),
                lambda raw: parse.tpu_node(project, raw),
                lambda raw: f"//tpu.googleapis.com/{raw.get('name', '')}",
            )
        return missing(listing, unreachable)

    def stop(self, project: str, zone: str, name: str) -> str:
        """nodes.stop; returns the long-running operation name without waiting."""
        with translated(f"tpu stop {project}/{zone}/{name}"):
            op = self._client.stop_node(
                request={"name": f"projects/{project}/locations/{zone}/nodes/{name}"},
                **call_options(),
            )
        return str(op.operation.name)


def create(endpoint: str | None = None) -> TpuAdapter:
    """TPU v2 adapter."""
    return TpuAdapter(build_client("google.cloud.tpu_v2", "tpu", "TpuClient", endpoint))
