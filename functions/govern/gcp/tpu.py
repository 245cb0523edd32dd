# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Cloud TPU (tpu_v2.TpuClient): TPU VMs and queued resources, and their operations.

TPU VMs: list a zone, stop one; queued resources: list a zone, withdraw one.

A thin adapter: it translates the port's calls and the client's errors, nothing more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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
from govern.gcp.longrunning import RestOperations, accepted
from govern.gcp.rest import Rest, session
from govern.models import QueuedResource, Workload
from govern.parse.queued import queued_resource

GOOGLE = "https://tpu.googleapis.com"
# How long to wait for one stop: Workbench and TPU VMs shut their guest down first.
WAIT_CAP_SECONDS = 300.0


class TpuAdapter:
    """ports.Tpus over tpu_v2.TpuClient."""

    def __init__(
        self, client: Any, rest: Callable[[], Rest] | None = None, base_url: str = GOOGLE
    ) -> None:
        self._client = client
        self._operations = RestOperations("tpu", rest, base_url)

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

    def list_queued_resources(self, project: str, zone: str) -> ports.Listing[QueuedResource]:
        """Queued resources in one zone (every page); locations `unreachable` are `missing`."""
        unreachable: list[str] = []

        def requests(pager: Any) -> Iterator[dict[str, Any]]:
            for page in pager.pages:
                unreachable.extend(page.unreachable)
                yield from (to_dict(r) for r in page.queued_resources)

        with translated(f"tpu queuedResources.list {project}/{zone}"):
            pager = self._client.list_queued_resources(
                parent=f"projects/{project}/locations/{zone}", **call_options()
            )
            listing = parsed(
                requests(pager),
                lambda raw: queued_resource(project, raw),
                lambda raw: f"//tpu.googleapis.com/{raw.get('name', '')}",
            )
        return missing(listing, unreachable)

    def delete_queued_resource(self, name: str) -> str:
        """queuedResources.delete without `force`; the long-running operation's name.

        Raises:
            ports.OperationFailed: the answer is an operation that already failed.
        """
        what = f"tpu queuedResources.delete {name}"
        with translated(what):
            op = self._client.delete_queued_resource(
                request={"name": name, "force": False}, **call_options()
            )
        return accepted(what, op)

    def stop(self, project: str, zone: str, name: str) -> str:
        """nodes.stop; the long-running operation's name (waited for by `wait_operation`).

        Raises:
            ports.OperationFailed: the answer is an operation that already failed.
        """
        what = f"tpu stop {project}/{zone}/{name}"
        with translated(what):
            op = self._client.stop_node(
                request={"name": f"projects/{project}/locations/{zone}/nodes/{name}"},
                **call_options(),
            )
        return accepted(what, op)

    def wait_operation(self, operation: str) -> str:
        """Poll operations.get (GET v2/{name}, plain JSON: longrunning.RestOperations); "done".

        Raises:
            ports.OperationFailed: it finished with an error (the stop did not happen).
            clock.OutOfTime: still running when the wait (WAIT_CAP_SECONDS, within the
                invocation's deadline) ran out.
        """
        return self._operations.wait(operation, WAIT_CAP_SECONDS)


def create(endpoint: str | None = None) -> TpuAdapter:
    """TPU v2 adapter."""
    return TpuAdapter(
        build_client("google.cloud.tpu_v2", "tpu", "TpuClient", endpoint),
        lambda: Rest(session(endpoint)),
        endpoint or GOOGLE,
    )
