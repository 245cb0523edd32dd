# pyright: basic
"""What the demo starts, undone whatever happens: Ctrl-C, SIGTERM, a failed step or success.

`Teardown` is a contextlib.ExitStack that also turns SIGTERM and SIGHUP into an exception (so
`finally` blocks run, as they do for Ctrl-C's KeyboardInterrupt) and ignores further Ctrl-C
while it cleans up, so an impatient second Ctrl-C cannot leave a server or a temp dir behind.
`Child` runs a server process in its own process group and ends the whole group (gunicorn's
workers included) with SIGTERM, then SIGKILL after a grace period.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO

GRACE_S = 10.0


class Stopped(BaseException):
    """The demo got SIGTERM or SIGHUP (BaseException, like KeyboardInterrupt: not an error)."""


def _raise_stopped(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signal.Signals(signum).name)


class Teardown(contextlib.ExitStack):
    """An ExitStack that runs its callbacks on signals too, and cannot be interrupted itself."""

    def __enter__(self) -> Teardown:
        self._previous = {
            sig: signal.signal(sig, _raise_stopped) for sig in (signal.SIGTERM, signal.SIGHUP)
        }
        # Ctrl-C stops the demo even when it was started with SIGINT ignored (a background job
        # of a non-interactive shell inherits that, and Python then installs no handler).
        self._previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
        return super().__enter__()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        # Cleaning up takes a few seconds at most; a second Ctrl-C must not cut it short.
        for sig in self._previous:
            signal.signal(sig, signal.SIG_IGN)
        try:
            return bool(super().__exit__(exc_type, exc, tb))
        finally:
            for sig, handler in self._previous.items():
                signal.signal(sig, handler)


def free_port() -> int:
    """A TCP port nobody listens on right now, on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Child:
    """A server process in its own process group, logging to a file; `stop` ends the group."""

    def __init__(
        self, name: str, argv: Sequence[str], env: Mapping[str, str], cwd: Path, log: Path
    ) -> None:
        self.name = name
        self.log = log
        self._out: IO[bytes] = log.open("wb")
        # Its own session: the terminal's Ctrl-C reaches only the demo, which then stops the
        # server in order; and killpg reaches the workers a server forks.
        self.process = subprocess.Popen(  # noqa: S603 - argv built by the demo, no shell
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdout=self._out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""
        return self.process.pid

    def wait_http(self, url: str, timeout_s: float) -> None:
        """Return once `url` answers HTTP at all; RuntimeError if the process exits or times out."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.output()[-2000:]}")
            try:
                urllib.request.urlopen(url, timeout=2).close()  # noqa: S310 - our own server
            except urllib.error.HTTPError:
                return  # it answered, with an error status: it is up
            except OSError:
                time.sleep(0.2)
                continue
            return
        raise RuntimeError(f"{self.name} did not answer within {timeout_s:.0f} s")

    def output(self) -> str:
        """What the process has written so far."""
        self._out.flush()
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        """SIGTERM the process group; SIGKILL it if it is still there after GRACE_S."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=GRACE_S)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        # The group may outlive its leader (a worker still exiting): make sure it is gone.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self._out.close()


def describe(exc: BaseException) -> str:
    """One line for an exception that ended the demo."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
