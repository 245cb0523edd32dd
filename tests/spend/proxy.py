"""A recording proxy in front of the emulator, which can also answer as BigQuery would.

The emulator reports no bytes and keeps no `maximumBytesBilled`, so tests read what the client
really sent (`requests`) to check that every query filters on the partition column and carries
the byte cap. The emulator has no IAM and no byte accounting either, so a test can make the
proxy answer matching requests itself (`answer`: BigQuery's documented error body, e.g. HTTP
403 reason `accessDenied` or 400 reason `bytesBilledLimitExceeded`,
https://cloud.google.com/bigquery/docs/error-messages) or change a field of the emulator's
answer (`rewrite`: a dry run's `statistics.totalBytesProcessed`, a string of int64 as in the
Job resource).
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"}


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    body: Any


Match = Callable[[Seen], bool]


def error_body(code: int, reason: str, message: str) -> dict[str, Any]:
    """BigQuery's error response body."""
    status = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND"}[code]
    errors = [{"message": message, "domain": "global", "reason": reason}]
    return {"error": {"code": code, "message": message, "errors": errors, "status": status}}


def is_query_job(dry_run: bool | None = None) -> Match:
    """Matches jobs.insert of a query job (only dry runs, only real runs, or both)."""

    def match(seen: Seen) -> bool:
        if seen.method != "POST" or not seen.path.split("?")[0].endswith("/jobs"):
            return False
        config = seen.body.get("configuration", {}) if isinstance(seen.body, dict) else {}
        return "query" in config and (dry_run is None or bool(config.get("dryRun")) == dry_run)

    return match


def is_table_get(seen: Seen) -> bool:
    return seen.method == "GET" and "/tables/" in seen.path


class RecordingProxy:
    """Forwards to `upstream` and records every request; `answer` and `rewrite` change replies."""

    def __init__(self, upstream: str) -> None:
        self.upstream = urlsplit(upstream)
        self.requests: list[Seen] = []
        self.answers: list[tuple[Match, int, dict[str, Any]]] = []
        self.rewrites: list[tuple[Match, Callable[[dict[str, Any]], dict[str, Any]]]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                seen = Seen(self.command, self.path, body)
                proxy.requests.append(seen)
                canned = next((a for a in proxy.answers if a[0](seen)), None)
                if canned is not None:
                    self._reply(
                        canned[1],
                        {"Content-Type": "application/json"},
                        json.dumps(canned[2]).encode(),
                    )
                    return
                conn = http.client.HTTPConnection(proxy.upstream.netloc, timeout=600)
                headers = {
                    k: v for k, v in self.headers.items() if k.lower() not in _HOP | {"host"}
                }
                conn.request(self.command, self.path, body=raw or None, headers=headers)
                answer = conn.getresponse()
                data = answer.read()
                conn.close()
                for matches, change in proxy.rewrites:
                    if matches(seen) and answer.status == 200:
                        data = json.dumps(change(json.loads(data))).encode()
                self._reply(
                    answer.status,
                    {k: v for k, v in answer.getheaders() if k.lower() not in _HOP},
                    data,
                )

            def _reply(self, status: int, headers: dict[str, str], data: bytes) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # A short poll interval: shutdown() waits for the loop to notice, 0.5 s by default.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def start(self) -> RecordingProxy:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, matches: Match, code: int, reason: str, message: str) -> None:
        """Answer matching requests with a BigQuery error instead of forwarding them."""
        self.answers.append((matches, code, error_body(code, reason, message)))

    def query_jobs(self) -> list[dict[str, Any]]:
        """The `configuration` of every query job the client inserted, in order."""
        match = is_query_job()
        return [s.body["configuration"] for s in self.requests if match(s)]
