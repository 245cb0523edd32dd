"""Structured log lines on stdout, carrying the invocation's identity on every line.

Cloud Run (which runs 2nd gen functions) turns each JSON line on stdout into a log entry and
lifts the special fields out of it: `severity`, `message`, and `logging.googleapis.com/trace`
as the entry's trace, in the form `projects/PROJECT_ID/traces/TRACE_ID`
(https://cloud.google.com/logging/docs/structured-logging#special-payload-fields), which links
every line of one run to its request. main.py opens a `context` per invocation (run id, entry
point, trace); the Runner's worker threads inherit it (contextvars), so each line of a run
carries them without anyone passing them around. Standard library only.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final

TRACE_FIELD: Final = "logging.googleapis.com/trace"
_CONTEXT: ContextVar[Mapping[str, Any]] = ContextVar("mlgov_log_context")
# X-Cloud-Trace-Context: TRACE_ID/SPAN_ID;o=OPTIONS (TRACE_ID: 32 hex digits), and W3C
# traceparent: VERSION-TRACE_ID-PARENT_ID-FLAGS, which Cloud Run also sends.
_CLOUD_TRACE = re.compile(r"([0-9a-fA-F]{32})(?:/.*)?")
_TRACEPARENT = re.compile(r"[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}")


def log(severity: str, message: str, /, **fields: Any) -> None:
    """Write one structured log line to stdout, with the invocation's context fields."""
    line = json.dumps(
        {"severity": severity, "message": message, **_CONTEXT.get({}), **fields}, default=str
    )
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


@contextmanager
def context(**fields: Any) -> Generator[None, None, None]:
    """Add `fields` to every line logged in the block (and in the threads it starts)."""
    token = _CONTEXT.set({**_CONTEXT.get({}), **fields})
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def trace_id(cloud_trace: str | None, traceparent: str | None = None) -> str | None:
    """The trace id of a request: from X-Cloud-Trace-Context, else W3C traceparent."""
    if cloud_trace and (m := _CLOUD_TRACE.fullmatch(cloud_trace.strip())):
        return m[1].lower()
    if traceparent and (m := _TRACEPARENT.fullmatch(traceparent.strip())):
        return m[1]
    return None


def trace_fields(project: str | None, trace: str | None) -> dict[str, str]:
    """The special field linking log lines to a trace; {} without a project or trace id."""
    if not project or not trace:
        return {}
    return {TRACE_FIELD: f"projects/{project}/traces/{trace}"}
