# pyright: basic
"""Fake Cloud Logging API v2: `POST /v2/entries:list` over stored LogEntry objects, paged.

Request and response shapes as the logging v2 discovery document gives them
(ListLogEntriesRequest: resourceNames, filter, orderBy, pageSize, pageToken; ListLogEntriesResponse:
entries, nextPageToken; LogEntry: logName, resource {type, labels}, timestamp, receiveTimestamp,
severity, insertId, jsonPayload, labels). A 2nd gen function's stdout line lands as a
`cloud_run_revision` entry whose jsonPayload is the JSON the function printed (`severity` and
`message` lifted by Cloud Logging; `message` stays in the payload).

The filter is evaluated for the clauses `mlgov cap status` sends (governance/cap/runs.py): resource
type, project and service names, `timestamp>=`, and the presence tests `jsonPayload.X.run:*`; any
other clause is refused with 400, so a change of the query cannot pass unnoticed.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

MAX_PAGE_SIZE = 1000
_CLAUSE = re.compile(
    r'resource\.type="(?P<type>[^"]+)"'
    r'|resource\.labels\.project_id="(?P<project>[^"]+)"'
    r"|resource\.labels\.service_name=\((?P<services>[^)]*)\)"
    r'|timestamp>="(?P<since>[^"]+)"'
    r"|\((?P<present>jsonPayload\.[a-z_.]+:\*(?: OR jsonPayload\.[a-z_.]+:\*)*)\)"
)


def _present(payload: dict[str, Any], path: str) -> bool:
    node: Any = payload
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def _matcher(text: str) -> Any:
    """A predicate over entries for the filter, or a str saying which clause is unknown."""
    tests: list[Any] = []
    for clause in [c.strip() for c in text.split(" AND ") if c.strip()]:
        m = _CLAUSE.fullmatch(clause)
        if m is None:
            return f"filter clause not supported by the fake: {clause!r}"
        if m["type"]:
            tests.append(lambda e, t=m["type"]: e["resource"]["type"] == t)
        elif m["project"]:
            tests.append(lambda e, p=m["project"]: e["resource"]["labels"].get("project_id") == p)
        elif m["services"] is not None:
            names = set(re.findall(r'"([^"]+)"', m["services"]))
            tests.append(lambda e, n=names: e["resource"]["labels"].get("service_name") in n)
        elif m["since"]:
            tests.append(lambda e, s=m["since"]: e["timestamp"] >= s)
        else:
            paths = [
                p.removeprefix("jsonPayload.").removesuffix(":*")
                for p in m["present"].split(" OR ")
            ]
            tests.append(
                lambda e, ps=paths: any(_present(e.get("jsonPayload") or {}, p) for p in ps)
            )
    return lambda entry: all(test(entry) for test in tests)


class FakeLogging:
    """Log entries of any project; `entries:list` filters, orders and pages them."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def write(
        self,
        project: str,
        service: str,
        payload: dict[str, Any],
        timestamp: str,
        *,
        severity: str = "INFO",
        region: str = "europe-west4",
    ) -> dict[str, Any]:
        """Store what a function's stdout JSON line becomes in Cloud Logging."""
        with self._lock:
            n = len(self.entries)
            entry = {
                "logName": f"projects/{project}/logs/run.googleapis.com%2Fstdout",
                "resource": {
                    "type": "cloud_run_revision",
                    "labels": {
                        "project_id": project,
                        "service_name": service,
                        "revision_name": f"{service}-00001-abc",
                        "location": region,
                        "configuration_name": service,
                    },
                },
                "timestamp": timestamp,
                "receiveTimestamp": timestamp,
                "severity": str(payload.get("severity") or severity),
                "insertId": f"{n:08x}fake",
                "jsonPayload": dict(payload),
                "labels": {"instanceId": "0069f5c3fake"},
            }
            self.entries.append(entry)
            return entry

    def install(self, fake: FakeGcp) -> FakeLogging:
        fake.route("POST", r"/v2/entries:list", self._list)
        return self

    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        names = body.get("resourceNames")
        if not isinstance(names, list) or not names:
            return Reply(400, error_body(400, "resource_names: at least one is required"))
        size = body.get("pageSize", 50)
        if not isinstance(size, int) or size < 0:
            return Reply(400, error_body(400, "page_size: must not be negative"))
        size = min(size or 50, MAX_PAGE_SIZE)
        order = body.get("orderBy", "timestamp asc")
        if order not in ("timestamp asc", "timestamp desc"):
            return Reply(400, error_body(400, f"order_by: unsupported {order!r}"))
        matches = _matcher(str(body.get("filter", "")))
        if isinstance(matches, str):
            return Reply(400, error_body(400, matches))
        projects = {str(n).removeprefix("projects/") for n in names}
        with self._lock:
            found = [
                e
                for e in self.entries
                if e["resource"]["labels"].get("project_id") in projects and matches(e)
            ]
        found.sort(key=lambda e: (e["timestamp"], e["insertId"]), reverse=order.endswith("desc"))
        start = int(str(body.get("pageToken") or "0"))
        page = found[start : start + size]
        reply: dict[str, Any] = {"entries": page} if page else {}
        if start + size < len(found):
            reply["nextPageToken"] = str(start + size)
        return Reply(200, reply)
