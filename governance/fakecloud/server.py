# pyright: basic
"""Generic fake GCP REST server: routes, a request log, injected latency and faults.

It knows nothing about any one API. Service modules register handlers with `route`, keep their
own state, and answer with the JSON shapes the real API uses (see tests/fakegcp/recorded/).
The server binds 127.0.0.1 on an ephemeral port and is meant to live for one test module.
With a `clock` (governance/fakecloud/clock.py), injected latency moves that clock instead of sleeping.

Faults (`inject`) model what the real cloud does to a client: an HTTP error status with an
optional `Retry-After` (429, 503 bursts, 403 rateLimitExceeded), a connection reset before the
request is handled (`reset`), and a reply slower than the client's timeout (`slow`: the request
is handled, the clock moves on by `seconds`, and the reply is held until the client gives up).

The server notices every reply a client gave up on (`abandoned`): it closed the connection
before the reply was written, or reset it with the reply unread. A test that makes one reply
slow can so tell a client that timed out on that reply (what it tests) from one that timed out
on another, merely late, reply of a loaded machine (a run that tested something else).
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import select
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
        # Replies the client gave up on (see _client_gone); `held` are those a SLOW fault held.
        self.abandoned: list[Request] = []
        self.held: list[Request] = []
        # The longest (real seconds) a SLOW reply is held: it is written, late, only if the client
        # is still waiting then, i.e. it set no call timeout (MLGOV_POLICY.call_timeout_seconds)
        # shorter than this. A client that gives up ends the hold at once.
        self.slow_hold_s = 10.0
        self._open: set[socket.socket] = set()  # the connections being served (see settle)
        self._answered: dict[socket.socket, Request] = {}  # each one's last reply written
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

    def settle(self, timeout_s: float = 10.0) -> None:
        """Wait until the server has seen every connection a client closed or reset by now.

        A client that times out closes its connection before it retries, so once a run is over
        its kernel has told ours; what remains is for the connection's thread (maybe starved on
        a loaded machine) to notice, and record the reply as `abandoned`. Until it has, its
        socket stays readable (end of file, or a reset); an idle kept-alive one does not.
        """
        end = time.monotonic() + timeout_s
        while True:
            with self._lock:
                open_ = list(self._open)
                pending = select.select(open_, [], [], 0)[0] if open_ else []
            if not pending:
                return
            if time.monotonic() > end:
                raise TimeoutError(f"{len(pending)} connection(s) closed by the client unnoticed")
            time.sleep(0.002)

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

            def setup(self) -> None:
                super().setup()
                with fake._lock:
                    fake._open.add(self.connection)

            def handle(self) -> None:
                try:
                    super().handle()
                except ConnectionResetError:
                    # Reset with our reply unread: the client had given up on it.
                    fake._abandon(fake._last_answered(self.connection))
                    return
                answered = fake._last_answered(self.connection)
                if answered is not None and _socket_error(self.connection):
                    # It closed before the reply came, which then met a closed socket.
                    fake._abandon(answered)

            def _serve(self) -> None:
                fake._dispatch(self)

            def finish(self) -> None:
                with fake._lock:
                    fake._open.discard(self.connection)
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
            with self._lock:
                self.held.append(request)
            self._hold(http.connection)
        with self._lock:
            self.exchanges.append((request, reply))
        if _client_gone(http.connection):
            self._abandon(request)
            http.close_connection = True
            return
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
            self._abandon(request)  # it closed while the reply was being written
            http.close_connection = True
            return
        with self._lock:
            self._answered[http.connection] = request

    def _hold(self, conn: socket.socket) -> None:
        """Wait until the client gives up on this connection, the server stops, or the hold ends."""
        end = time.monotonic() + self.slow_hold_s
        while not self._closing.is_set() and time.monotonic() < end:
            if select.select([conn], [], [], 0.01)[0]:
                return  # readable with a request outstanding: closed or reset by the client

    def _last_answered(self, conn: socket.socket) -> Request | None:
        with self._lock:
            return self._answered.pop(conn, None)

    def _abandon(self, request: Request | None) -> None:
        if request is not None:
            with self._lock:
                self.abandoned.append(request)

    def _reset(self, http: BaseHTTPRequestHandler) -> None:
        """Abort the connection with a TCP RST (SO_LINGER 0), as a failing load balancer does."""
        conn = http.connection
        self._last_answered(conn)  # what it answered before was read: the reset is ours
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        http.close_connection = True
        conn.close()
        http.wfile = io.BytesIO()  # what the handler still flushes goes nowhere

    def _route(self, request: Request) -> Reply:
        for method, pattern, handler in self._routes:
            if method == request.method and (match := pattern.fullmatch(request.path)):
                return handler(request, match)
        return Reply(404, error_body(404, f"no fake route for {request.method} {request.path}"))


def _client_gone(conn: socket.socket) -> bool:
    """Whether the client closed or reset the connection (it waits for no reply any more)."""
    try:
        return conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False  # open, nothing sent: still waiting
    except OSError:
        return True  # reset


def _socket_error(conn: socket.socket) -> bool:
    """Whether a reset came in after the client's end of file (our reply hit a closed socket)."""
    try:
        return conn.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0
    except OSError:
        return True


@contextmanager
def serving(latency_s: float = 0.0) -> Iterator[FakeGcp]:
    """Run a FakeGcp for the duration of a with-block."""
    with FakeGcp(latency_s) as fake:
        yield fake
