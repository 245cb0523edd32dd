"""Time as a port: the monotonic clock and the sleeps of one invocation, injectable in tests.

Everything that waits (rate limiter, retry backoff) or measures a time budget asks a `Clock`
rather than `time`, so tests pass a fake one and never sleep. `execute.Runner` owns the clock
and deadline of an invocation and publishes them here (`within`) for the adapters, which run
deep inside client-library callbacks and cannot take them as arguments. Standard library only.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Final, Protocol


class Clock(Protocol):
    """Monotonic seconds and a way to wait."""

    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait `seconds`."""
        ...


class SystemClock:
    """The real clock: time.monotonic and time.sleep."""

    def now(self) -> float:
        """time.monotonic()."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """time.sleep(seconds)."""
        time.sleep(seconds)


SYSTEM: Final = SystemClock()


@dataclass(frozen=True)
class Deadline:
    """When the invocation must be done, on its clock."""

    clock: Clock
    at: float

    def left(self) -> float:
        """Seconds until the deadline (negative once passed)."""
        return self.at - self.clock.now()


_CURRENT: ContextVar[Deadline | None] = ContextVar("mlgov_deadline", default=None)


@contextmanager
def within(deadline: Deadline) -> Generator[None, None, None]:
    """Make `deadline` (and its clock) the current one for the calls made in the block."""
    token = _CURRENT.set(deadline)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> Clock:
    """The clock of the invocation being served (the system clock outside one)."""
    deadline = _CURRENT.get()
    return SYSTEM if deadline is None else deadline.clock


def seconds_left(cap: float) -> float:
    """Seconds until the invocation's deadline, at most `cap` (and at least 1)."""
    deadline = _CURRENT.get()
    if deadline is None:
        return cap
    return max(1.0, min(cap, deadline.left()))
