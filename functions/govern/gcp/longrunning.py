"""google.longrunning operations of a stop (Workbench, TPU): its answer checked, then waited for.

Shared by the Notebooks and TPU adapters, whose stops answer the same Operation shape (AIP-151)
and whose operations are read the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from govern import operations, ports
from govern.gcp.clients import operation_state, translated
from govern.gcp.rest import Rest
from govern.parse.operation import OperationState, longrunning_operation


def accepted(what: str, answer: Any) -> str:
    """The operation name a stop answered with; OperationFailed if it already failed."""
    return operations.accepted(what, operation_state(answer.operation)).name


class RestOperations:
    """Reads `GET v2/{operation}` as plain JSON, over a REST session built on first use.

    Not the client libraries' get_operation: it parses the finished operation's `response` (the
    whole resource) strictly, and fails on any field newer than the installed library (the
    recorded Workbench instance has `networkInterfaces[].accessConfigs`, which notebooks_v2
    does not know), so a stop that worked would read as an error.
    """

    def __init__(self, service: str, rest: Callable[[], Rest] | None, base_url: str) -> None:
        self._service = service
        self._make_rest = rest
        self._rest: Rest | None = None
        self._lock = threading.Lock()
        self._base = base_url.rstrip("/")

    def _session(self) -> Rest:
        with self._lock:  # built on first use: only a stop needs it
            if self._rest is None and self._make_rest is not None:
                self._rest = self._make_rest()
            rest = self._rest
        if rest is None:
            raise ports.PortError(f"{self._service}: no REST session")
        return rest

    def wait(self, operation: str, cap: float) -> str:
        """Poll the operation until it is done; "done".

        Raises:
            ports.OperationFailed: it finished with an error (the stop did not happen).
            clock.OutOfTime: still running when the wait (`cap`, within the invocation's
                deadline) ran out.
        """
        what = f"{self._service} operations.get {operation}"
        rest, url = self._session(), f"{self._base}/v2/{operation}"

        def poll() -> OperationState:
            with translated(what):
                return longrunning_operation(rest.request("GET", url))

        operations.wait(what, poll, cap=cap)
        return "done"
