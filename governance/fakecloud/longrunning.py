# pyright: basic
"""google.longrunning.Operation answers for the fakes of Notebooks v2, TPU v2 (and their shape).

Shape (https://google.aip.dev/151, and the notebooks v2 / tpu v2 discovery documents' `Operation`):
`name`, `metadata` (the API's OperationMetadata, with its `@type`), and, once finished,
`done: true` with either `response` (the resource, with its `@type`) or `error` (a
google.rpc.Status: `code`, `message`). proto3 JSON leaves `done: false` out while it runs. The
Vertex AI recording tests/fakegcp/recorded/vertexai-endpoint-delete/ shows a finished one;
no recording of a running or failed one exists here, so those come from the documents.

An operation answers "running" `polls` times, then finishes: with `error` (code, message) when
given, else with its response. Names are `projects/P/locations/L/operations/operation-<tag>-N`:
the tag keeps one fake's operations apart from another's on the same `/v2/...` paths.
"""

from __future__ import annotations

import copy
import itertools
import threading
from dataclasses import dataclass
from typing import Any

from governance.fakecloud.server import Reply, error_body


@dataclass
class _Op:
    body: dict[str, Any]
    polls: int
    error: tuple[int, str] | None
    response: dict[str, Any]
    response_type: str = ""


class Operations:
    """The operations of one fake API, by name."""

    def __init__(self, tag: str, metadata_type: str, response_type: str) -> None:
        self.tag = tag
        self._metadata_type = metadata_type
        self._response_type = response_type
        self._ops: dict[str, _Op] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def start(
        self,
        location: str,
        target: str,
        verb: str,
        *,
        response: dict[str, Any],
        polls: int = 0,
        error: tuple[int, str] | None = None,
        response_type: str = "",
    ) -> dict[str, Any]:
        """A new operation on `target` in `location` (projects/P/locations/L); its first answer.

        `response_type`: the `@type` of its response when not the API's resource (a delete
        answers google.protobuf.Empty).
        """
        name = f"{location}/operations/operation-{self.tag}-{next(self._ids)}"
        body = {
            "name": name,
            "metadata": {
                "@type": self._metadata_type,
                "createTime": "2026-11-21T05:00:00Z",
                "target": target,
                "verb": verb,
                "apiVersion": "v2",
            },
        }
        with self._lock:
            self._ops[name] = _Op(body, polls, error, copy.deepcopy(response), response_type)
        return copy.deepcopy(body)

    def get(self, name: str) -> Reply:
        """operations.get: running while polls are left, then done with an error or response."""
        with self._lock:
            op = self._ops.get(name)
            if op is None:
                return Reply(404, error_body(404, f"operation {name} not found"))
            if op.polls > 0:
                op.polls -= 1
                return Reply(200, copy.deepcopy(op.body))
            answer = {**copy.deepcopy(op.body), "done": True}
            answer["metadata"]["endTime"] = "2026-11-21T05:01:00Z"
            if op.error is not None:
                code, message = op.error
                answer["error"] = {"code": code, "message": message}
            else:
                answer["response"] = {
                    "@type": op.response_type or self._response_type,
                    **op.response,
                }
            return Reply(200, answer)
