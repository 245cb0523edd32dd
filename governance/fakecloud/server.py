# pyright: basic
"""Generic fake GCP REST server: routes, a request log, injected latency and faults.

It knows nothing about any one API. Service modules register handlers with `route`, keep their
own state, and answer with the JSON shapes the real API uses (see tests/fakegcp/recorded/).
The server binds 127.0.0.1 on an ephemeral port and is meant to live for one test module.
With a `clock` (governance/fakecloud/clock.py), injected latency moves that clock instead of sleeping.

Faults (`inject`) model what the real cloud does to a client: an HTTP error status with an
optional `Retry-After` (429, 503 bursts, 403 rateLimitExceeded), a connection reset before the
request is handled (`reset`), and a reply slower than the client's timeout (`slow`: the request
is handled, the clock moves on by `seconds`, and the reply comes too late to be read).
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import selectors
import socket
import struct
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
    at: float = 0.0  # time.monotonic() when it arrived (bench/ measures request rates with it)


@dataclass
class Reply:
    """What a handler answers: an HTTP status and a JSON body."""

    status: int = 200
    body: Any = field(default_factory=dict)


Handler = Callable[[Request, "re.Match[str]"], Reply]


class Clock(Protocol):
    """What the server needs of a fake clock: letting time pass."""

    def advance(self, seconds: float) -> None: ...


RESET = "reset"
SLOW = "slow"


@dataclass
class Chaos:
    """Fail a random `rate` of all requests transiently, with one of `kinds` (seeded)."""

    rate: float
    kinds: tuple[int | str, ...] = (503, RESET, 429)
    retry_after: str = "1"
    seed: int = 0


@dataclass
class Fault:
    """Misbehave on the next `times` requests whose path matches `pattern`.

    `status` is an HTTP status, or RESET (drop the connection before handling the request) or
    SLOW (handle it, let `seconds` pass on the clock, answer only after the client gave up).
    """

    pattern: str
    status: int | str
    times: int = 1
    method: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 30.0
    body: dict[str, Any] | None = None


def error_body(status: int, message: str) -> dict[str, Any]:
    """The JSON error envelope Google REST APIs answer with."""
    reasons = {
        400: "INVALID_ARGUMENT",
        403: "PERMISSION_DENIED",
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

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        # stop() writes to this pair to wake the accept loop at once. serve_forever() notices a
        # shutdown() only at its next poll (about 10 ms per server with poll_interval=0.01),
        # a wait every test that starts a fake cloud paid when it stopped.
        # Made before the base class binds: when binding fails or is interrupted (Ctrl-C in the
        # demo), TCPServer.__init__ calls server_close(), which closes this pair, and the
        # original exception must surface rather than an AttributeError.
        self._wake_reader, self._waker = socket.socketpair()
        super().__init__(address, handler)

    def serve_until_woken(self) -> None:
        """Accept and handle connections (each in its thread) until wake() is called."""
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake_reader, selectors.EVENT_READ)
            while True:
                ready = {key.fileobj for key, _ in selector.select()}
                if self._wake_reader in ready:
                    return
                self.handle_request()  # the listening socket is readable: accepts at once

    def wake(self) -> None:
        """Make serve_until_woken() return (it may be blocked in select)."""
        self._waker.send(b"x")

    def server_close(self) -> None:
        super().server_close()
        self._wake_reader.close()
        self._waker.close()


class FakeGcp:
    """A threaded HTTP server on 127.0.0.1 with pluggable routes; use as a context manager."""

    def __init__(self, latency_s: float = 0.0, clock: Clock | None = None) -> None:
        self.latency_s = latency_s
        self.clock = clock
        self.requests: list[Request] = []
        self.exchanges: list[tuple[Request, Reply]] = []  # each request with the reply it got
        self.faults: list[Fault] = []
        # How long (real seconds) a SLOW reply holds its connection: longer than the client's
        # call timeout in the tests (MLGOV_POLICY.call_timeout_seconds), so it gives up first.
        self.slow_hold_s = 2.0
        self._closing = threading.Event()
        self.chaos: Chaos | None = None
        self._random = random.Random(0)  # noqa: S311 - reproducible faults, not secrecy
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- routing -------------------------------------------------------------
    def route(self, method: str, pattern: str, handler: Handler, *, first: bool = False) -> None:
        """Register `handler` for `method` on paths fully matching the regex `pattern`.

        `first`: ahead of every route already registered (a test wrapping a fake's own route).
        """
        entry = (method.upper(), re.compile(pattern), handler)
        if first:
            self._routes.insert(0, entry)
        else:
            self._routes.append(entry)

    def inject(
        self,
        pattern: str,
        status: int | str,
        times: int = 1,
        method: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        seconds: float = 30.0,
        body: dict[str, Any] | None = None,
    ) -> None:
        """Make the next `times` matching requests fail: an HTTP `status` (e.g. 429, 503, with
        `headers` such as Retry-After and an error `body`), RESET or SLOW (see Fault).
        """
        with self._lock:
            self.faults.append(
                Fault(pattern, status, times, method, dict(headers or {}), seconds, body)
            )

    def chaotic(self, chaos: Chaos) -> None:
        """From now on fail a random fraction of requests transiently (benchmarks)."""
        with self._lock:
            self.chaos = chaos
            self._random = random.Random(chaos.seed)  # noqa: S311 - reproducible faults

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
            # Headers and body go out in two writes; on a kept-alive connection Nagle's algorithm
            # then holds the body until the client's delayed ACK (~40 ms per request), a delay of
            # this stdlib server, not of Google's front ends. Off, so timings measure our code.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # silence stderr
                return

            def _serve(self) -> None:
                fake._dispatch(self)

            def finish(self) -> None:
                # A reset or a late reply leaves a socket the client closed: nothing to flush.
                with contextlib.suppress(OSError):
                    super().finish()

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_until_woken, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._closing.set()
        if self._httpd is not None:
            self._httpd.wake()
            if self._thread is not None:
                self._thread.join()
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
            chaos = self.chaos
            if chaos is not None and self._random.random() < chaos.rate:
                kind = self._random.choice(chaos.kinds)
                headers = {"Retry-After": chaos.retry_after} if kind == 429 else {}
                return Fault(path, kind, headers=headers)
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
            time.monotonic(),
        )
        with self._lock:
            self.requests.append(request)
        fault = self._take_fault(request.method, request.path)
        if fault is not None and fault.status == RESET:
            self._reset(http)
            return
        if self.latency_s and self.clock is not None:
            self.clock.advance(self.latency_s)
        elif self.latency_s:
            time.sleep(self.latency_s)
        headers: dict[str, str] = {}
        if fault is None or fault.status == SLOW:
            reply = self._route(request)
        else:
            status = int(fault.status)
            reply = Reply(status, fault.body or error_body(status, "injected fault"))
            headers = fault.headers
        if fault is not None and fault.status == SLOW:
            # The work is done; the answer comes after the client's timeout, on both clocks.
            if self.clock is not None:
                self.clock.advance(fault.seconds)
            self._closing.wait(self.slow_hold_s)
        with self._lock:
            self.exchanges.append((request, reply))
        payload = json.dumps(reply.body).encode()
        try:
            http.send_response(reply.status)
            for key, value in headers.items():
                http.send_header(key, value)
            http.send_header("Content-Type", "application/json; charset=UTF-8")
            http.send_header("Content-Length", str(len(payload)))
            http.end_headers()
            http.wfile.write(payload)
        except OSError:
            http.close_connection = True  # the client gave up on a slow reply

    @staticmethod
    def _reset(http: BaseHTTPRequestHandler) -> None:
        """Abort the connection with a TCP RST (SO_LINGER 0), as a failing load balancer does."""
        conn = http.connection
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        http.close_connection = True
        conn.close()
        http.wfile = io.BytesIO()  # what the handler still flushes goes nowhere

    def _route(self, request: Request) -> Reply:
        for method, pattern, handler in self._routes:
            if method == request.method and (match := pattern.fullmatch(request.path)):
                return handler(request, match)
        return Reply(404, error_body(404, f"no fake route for {request.method} {request.path}"))


@contextmanager
def serving(latency_s: float = 0.0) -> Iterator[FakeGcp]:
    """Run a FakeGcp for the duration of a with-block."""
    with FakeGcp(latency_s) as fake:
        yield fake
