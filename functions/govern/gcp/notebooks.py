# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Vertex AI Workbench instances (notebooks_v2.NotebookServiceClient): list, stop, wait.

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
from govern.models import Workload

GOOGLE = "https://notebooks.googleapis.com"
# How long to wait for one stop: Workbench and TPU VMs shut their guest down first.
WAIT_CAP_SECONDS = 300.0


class NotebooksAdapter:
    """ports.Notebooks over notebooks_v2.NotebookServiceClient."""

    def __init__(
        self, client: Any, rest: Callable[[], Rest] | None = None, base_url: str = GOOGLE
    ) -> None:
        self._client = client
        self._operations = RestOperations("notebooks", rest, base_url)

    def list_instances(self, project: str) -> ports.Listing[Workload]:
        """Workbench instances in all locations of the project.

        Locations the answer names `unreachable` (ListInstancesResponse, notebooks v2
        discovery document: "Locations that could not be reached") are `missing`. The same
        document says such an answer "will only contain either instances or unreachables": one
        naming unreachable locations and no instance read nothing at all, so it is a failed
        listing, not an empty one.
        """
        unreachable: list[str] = []

        def instances(pager: Any) -> Iterator[dict[str, Any]]:
            for page in pager.pages:
                unreachable.extend(page.unreachable)
                yield from (to_dict(i) for i in page.instances)

        with translated(f"notebooks list {project}"):
            pager = self._client.list_instances(
                parent=f"projects/{project}/locations/-", **call_options()
            )
            listing = parsed(
                instances(pager),
                lambda raw: parse.notebook_instance(project, raw),
                lambda raw: f"//notebooks.googleapis.com/{raw.get('name', '')}",
            )
        if unreachable and not listing and not listing.unreadable:
            places = ", ".join(sorted(str(u) for u in unreachable))
            raise ports.PortError(
                f"notebooks list {project}: unreachable {places}, and no instance listed (such "
                "an answer holds no instances at all)"
            )
        return missing(listing, unreachable)

    def stop(self, project: str, zone: str, name: str) -> str:
        """instances.stop; the long-running operation's name (waited for by `wait_operation`).

        Raises:
            ports.OperationFailed: the answer is an operation that already failed.
        """
        what = f"notebooks stop {project}/{zone}/{name}"
        with translated(what):
            op = self._client.stop_instance(
                request={"name": f"projects/{project}/locations/{zone}/instances/{name}"},
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


def create(endpoint: str | None = None) -> NotebooksAdapter:
    """Workbench (Notebooks v2) adapter."""
    return NotebooksAdapter(
        build_client(
            "google.cloud.notebooks_v2", "notebook_service", "NotebookServiceClient", endpoint
        ),
        lambda: Rest(session(endpoint)),
        endpoint or GOOGLE,
    )
