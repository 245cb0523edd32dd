"""Long-running operations: what became of a write once the API accepted it.

An HTTP 200 to a write only means the API accepted it: the work runs in an operation, which can
end with an error (a Compute stop that fails answers 200 with a PENDING zonal operation first).
Three shapes, one state (`OperationState`), so one wait (govern/operations.py) serves them all:

- Compute's own `Operation` (compute v1 discovery document): `status` PENDING|RUNNING|DONE,
  `error.errors[]` with `code` and `message`, `httpErrorStatusCode`/`httpErrorMessage` when it
  failed (recorded PENDING: tests/fakegcp/recorded/instance-stop/).
- GKE's `Operation` (container v1): `status` PENDING|RUNNING|DONE|ABORTING, `error` (a
  google.rpc.Status) or, deprecated, `statusMessage` (recorded RUNNING:
  tests/fakegcp/recorded/gke-cluster-set-label/).
- `google.longrunning.Operation` (Notebooks v2, TPU v2, Vertex AI v1): `done` (absent while
  running: proto3 leaves `false` out), then either `error` (a google.rpc.Status: `code`,
  `message`) or `response` (https://google.aip.dev/151; recorded `done: true` with a response:
  tests/fakegcp/recorded/vertexai-endpoint-delete/).

Pure and standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from govern.parse.reader import integer, items, sub, text

# google.rpc.Code (googleapis google/rpc/code.proto): a google.rpc.Status carries the number.
RPC_CODES = (
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
)

# The google.rpc codes of a failure trying again may get past: the service's trouble, not the
# request's (https://google.aip.dev/194 lists UNAVAILABLE as the one to retry; DEADLINE_EXCEEDED,
# RESOURCE_EXHAUSTED, ABORTED and INTERNAL are the service's side of a failure too).
TRANSIENT_CODES = frozenset(
    RPC_CODES.index(name)
    for name in ("DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "ABORTED", "INTERNAL", "UNAVAILABLE")
)


@dataclass(frozen=True)
class OperationState:
    """An operation's name, whether it has finished, its error ("" while none), its status.

    `status` is the API's own word for where it is (PENDING, RUNNING, DONE; "done"/"running" for
    google.longrunning operations, which have no status field), for messages only.
    """

    name: str
    done: bool
    error: str
    status: str = ""
    transient: bool = False
    """Whether the error is one trying again may get past (a 5xx, 429, UNAVAILABLE...)."""


def compute_operation(raw: Mapping[str, Any]) -> OperationState:
    """A Compute `Operation` (REST JSON) as its name, DONE or not, and the error it carries.

    Compute reports a failed operation in `error.errors[]` and in `httpErrorStatusCode` (the
    HTTP code the failure maps to, e.g. 404); either one is a failure.
    """
    errors = [
        _joined(text(e, "code") or "ERROR", text(e, "message"))
        for e in items(sub(raw, "error"), "errors")
    ]
    status = integer(raw.get("httpErrorStatusCode"))
    if not errors and status >= 400:
        errors.append(_joined(f"HTTP {status}", text(raw, "httpErrorMessage")))
    word = text(raw, "status")
    # The HTTP code the failure maps to says whether it was the service's trouble (5xx, 429:
    # try again) or the request's (4xx: the same stop fails the same way).
    transient = bool(errors) and (status >= 500 or status == 429)
    return OperationState(text(raw, "name"), word == "DONE", "; ".join(errors), word, transient)


def gke_operation(raw: Mapping[str, Any]) -> OperationState:
    """A GKE `Operation` as its name, DONE or not, and its error.

    The error is `error` (a google.rpc.Status); an operation that reports it only in the
    deprecated `statusMessage` ("If an error has occurred, a textual description of the error",
    container v1 discovery document) failed all the same.
    """
    error = sub(raw, "error")
    message = ""
    word = text(raw, "status")
    if error.get("code"):
        message = text(error, "message") or f"code {error.get('code')}"
    elif word == "DONE":
        message = text(raw, "statusMessage")
    transient = integer(error.get("code")) in TRANSIENT_CODES
    return OperationState(text(raw, "name"), word == "DONE", message, word, transient)


def longrunning_operation(raw: Mapping[str, Any]) -> OperationState:
    """A `google.longrunning.Operation` (REST JSON) as its name, done or not, and its error.

    An `error` whose `code` is not 0 (google.rpc.Code OK) is a failure, with or without `done`
    (an operation that carries an error has finished).
    """
    error = sub(raw, "error")
    code = integer(error.get("code"))
    message = ""
    if code:
        name = RPC_CODES[code] if 0 < code < len(RPC_CODES) else f"code {code}"
        message = _joined(name, text(error, "message"))
    done = raw.get("done") is True or bool(message)
    state = "done" if done else "running"
    return OperationState(text(raw, "name"), done, message, state, code in TRANSIENT_CODES)


def _joined(code: str, message: str) -> str:
    return f"{code}: {message}" if message else code
