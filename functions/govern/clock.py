"""Time as a port: the clocks and the sleeps of one invocation, injectable in tests.

Everything that waits (rate limiter, retry backoff), measures a time budget or stamps a claim
asks a `Clock` rather than `time`/`datetime`, so tests pass a fake one and never sleep.
`execute.Runner` owns the clock and deadline of an invocation and publishes them here
(`within`) for the adapters, which run deep inside client-library callbacks and cannot take them
as arguments. main.py takes its clock from `default()`, which tests replace with `using`
(the way pulumi.runtime.set_mocks replaces the engine). Standard library only.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Protocol

# Never wait less than this for one API reply, however little of the budget is left: a shorter
# socket timeout would fail calls that were about to succeed.
MIN_CALL_TIMEOUT_SECONDS: Final = 1.0


class OutOfTime(Exception):
    """The invocation's time budget ran out before a call could start."""


class Clock(Protocol):
    """Monotonic seconds, the wall-clock time, and a way to wait."""

    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""
        ...

    def wall(self) -> datetime:
        """The current UTC time (claims and expiry dates are stamped with it)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait `seconds`."""
        ...


class SystemClock:
    """The real clock: time.monotonic, datetime.now(UTC) and time.sleep."""

    def now(self) -> float:
        """time.monotonic()."""
        return time.monotonic()

    def wall(self) -> datetime:
        """datetime.now(UTC)."""
        return datetime.now(UTC)

    def sleep(self, seconds: float) -> None:
        """time.sleep(seconds)."""
        time.sleep(seconds)


SYSTEM: Final = SystemClock()
_DEFAULT: ContextVar[Clock] = ContextVar("mlgov_default_clock", default=SYSTEM)


def default() -> Clock:
    """The clock a new invocation runs on: the system clock unless a test installed another."""
    return _DEFAULT.get()


@contextmanager
def using(clock: Clock) -> Generator[None, None, None]:
    """Run the invocations started in the block on `clock` (tests: a FakeClock)."""
    token = _DEFAULT.set(clock)
    try:
        yield
    finally:
        _DEFAULT.reset(token)


@dataclass(frozen=True)
class Deadline:
    """When the call being made must be done, on its clock, and how long one reply may take."""

    clock: Clock
    at: float
    call_timeout: float = 30.0

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


def time_left() -> float | None:
    """Seconds until the current call's deadline (None outside an invocation)."""
    deadline = _CURRENT.get()
    return None if deadline is None else deadline.left()


def seconds_left(cap: float) -> float:
    """Seconds until the invocation's deadline, at most `cap` (and at least min(cap, 1))."""
    left = time_left()
    if left is None:
        return cap
    return max(min(cap, MIN_CALL_TIMEOUT_SECONDS), min(cap, left))


def call_timeout() -> float:
    """How long to wait for one API reply: the invocation's call timeout, within its deadline."""
    deadline = _CURRENT.get()
    return seconds_left(30.0 if deadline is None else deadline.call_timeout)
