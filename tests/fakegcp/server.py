"""Generic fake GCP REST server: routes, a request log, injected latency and faults.

It knows nothing about any one API. Service modules register handlers with `route`, keep their
own state, and answer with the JSON shapes the real API uses (see ../shared/realdata/).
The server binds 127.0.0.1 on an ephemeral port and is meant to live for one test module.
With a `clock` (tests/fakegcp/clock.py), injected latency moves that clock instead of sleeping.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Request:
    """One request as the fake server saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    headers: dict[str, str]


@dataclass
class Reply:
    """What a handler answers: an HTTP status and a JSON body."""

    status: int = 200
    body: Any = field(default_factory=dict)


Handler = Callable[[Request, "re.Match[str]"], Reply]


class Clock(Protocol):
    """What the server needs of a fake clock: letting time pass."""

    def advance(self, seconds: float) -> None: ...


@dataclass
class Fault:
    """Answer `status` for the next `times` requests whose path matches `pattern`."""

    pattern: str
    status: int
    times: int = 1
    method: str | None = None


def error_body(status: int, message: str) -> dict[str, Any]:
    """The JSON error envelope Google REST APIs answer with."""
    reasons = {
        400: "INVALID_ARGUMENT",
        404: "NOT_FOUND",
        409: "ABORTED",
        412: "FAILED_PRECONDITION",
        429: "RESOURCE_EXHAUSTED",
        500: "INTERNAL",
        503: "UNAVAILABLE",
    }
    return {"error": {"code": status, "message": message, "status": reasons.get(status, "UNKNOWN")}}


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 resets connections when a function runs 64 calls at once.
    request_queue_size = 128


class FakeGcp:
    """A threaded HTTP server on 127.0.0.1 with pluggable routes; use as a context manager."""

    def __init__(self, latency_s: float = 0.0, clock: Clock | None = None) -> None:
        self.latency_s = latency_s
        self.clock = clock
        self.requests: list[Request] = []
        self.exchanges: list[tuple[Request, Reply]] = []  # each request with the reply it got
        self.faults: list[Fault] = []
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- routing -------------------------------------------------------------
    def route(self, method: str, pattern: str, handler: Handler) -> None:
        """Register `handler` for `method` on paths fully matching the regex `pattern`."""
        self._routes.append((method.upper(), re.compile(pattern), handler))

    def inject(self, pattern: str, status: int, times: int = 1, method: str | None = None) -> None:
        """Make the next `times` matching requests fail with `status` (e.g. 429, 500)."""
        with self._lock:
            self.faults.append(Fault(pattern, status, times, method))

    def calls(self, method: str | None = None, path_contains: str = "") -> list[Request]:
        """Recorded requests, optionally filtered by method and a path substring."""
        with self._lock:
            return [
                r
                for r in self.requests
                if (method is None or r.method == method) and path_contains in r.path
            ]

    # -- lifecycle -----------------------------------------------------------
    @property
    def url(self) -> str:
        """Base URL (with the http:// scheme the client libraries need for plain HTTP)."""
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeGcp:
        """Start serving on an ephemeral port in a daemon thread."""
        fake = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # silence stderr
                return

            def _serve(self) -> None:
                fake._dispatch(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        # A short poll interval: shutdown() waits for the loop to notice, 0.5 s by default.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeGcp:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- request handling ----------------------------------------------------
    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if (
                    fault.times > 0
                    and re.search(fault.pattern, path)
                    and (fault.method is None or fault.method == method)
                ):
                    fault.times -= 1
                    return fault
        return None

    def _dispatch(self, http: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(http.path)
        length = int(http.headers.get("Content-Length") or 0)
        raw = http.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = Request(
            http.command,
            parts.path,
            parse_qs(parts.query),
            body,
            {k.lower(): v for k, v in http.headers.items()},
        )
        with self._lock:
            self.requests.append(request)
        if self.latency_s and self.clock is not None:
            self.clock.advance(self.latency_s)
        elif self.latency_s:
            time.sleep(self.latency_s)
        reply = self._reply(request)
        with self._lock:
            self.exchanges.append((request, reply))
        payload = json.dumps(reply.body).encode()
        http.send_response(reply.status)
        http.send_header("Content-Type", "application/json; charset=UTF-8")
        http.send_header("Content-Length", str(len(payload)))
        http.end_headers()
        http.wfile.write(payload)

    def _reply(self, request: Request) -> Reply:
        fault = self._take_fault(request.method, request.path)
        if fault is not None:
            return Reply(fault.status, error_body(fault.status, "injected fault"))
        for method, pattern, handler in self._routes:
            if method == request.method and (match := pattern.fullmatch(request.path)):
                return handler(request, match)
        return Reply(404, error_body(404, f"no fake route for {request.method} {request.path}"))


@contextmanager
def serving(latency_s: float = 0.0) -> Iterator[FakeGcp]:
    """Run a FakeGcp for the duration of a with-block."""
    with FakeGcp(latency_s) as fake:
        yield fake
