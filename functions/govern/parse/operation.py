"""Long-running operations: what became of a write once the API accepted it.

An HTTP 200 to a write only means the API accepted it: the work runs in an operation, which
can end DONE with an error (a Compute stop that fails answers 200 with a PENDING zonal
operation first). Compute's own `Operation` (compute v1 discovery document: `status`
PENDING|RUNNING|DONE, `error.errors[]` with `code` and `message`, and
`httpErrorStatusCode`/`httpErrorMessage` when it failed). GKE's lives in parse/container.py;
the `google.longrunning.Operation`s of Notebooks, TPU and Vertex AI are not read yet. Pure and
standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from govern.parse.reader import integer, items, sub, text


@dataclass(frozen=True)
class OperationState:
    """An operation's name, whether it has finished, and its error ("" while none)."""

    name: str
    done: bool
    error: str


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
    return OperationState(text(raw, "name"), text(raw, "status") == "DONE", "; ".join(errors))


def _joined(code: str, message: str) -> str:
    return f"{code}: {message}" if message else code
