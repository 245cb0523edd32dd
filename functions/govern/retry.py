"""Retrying transient API errors: truncated exponential backoff with full jitter, on a Clock.

Same schedule as google.api_core.retry.Retry (sleep uniform in [0, ceiling], ceiling doubling
from `initial` up to `maximum`; give up when the next sleep would pass the timeout), with two
differences that are why it exists: it waits on the invocation's clock (tests inject time
instead of sleeping), and it honours a server's `Retry-After` (api_core's Retry never looks at
the response). A wait the server asked for may run past the per-call `timeout`, up to the
invocation's deadline; one that would pass the deadline gives up at once, without waiting.
A `Retrying` is what the client libraries accept as `retry=`: a decorator over the call (pagers
reuse it per page). Which errors are transient, and what a server asked for, is the adapters'
business (gcp/clients.py). Standard library only.
"""

from __future__ import annotations

import contextvars
import functools
import random
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from govern import clock

R = TypeVar("R")


class GaveUp(Exception):
    """Still failing when the retry timeout ran out; `cause` is the last error."""

    def __init__(self, cause: BaseException, note: str = "") -> None:
        super().__init__(f"gave up retrying ({cause}){note}")
        self.cause = cause


def retry_after_seconds(value: str | None, date: str | None = None) -> float | None:
    """A `Retry-After` header value in seconds: delay-seconds or an HTTP-date (RFC 9110 10.2.3).

    An HTTP-date counts from the response's own `Date` header when it has one (so the two
    clocks that matter are the server's), else from now; past dates mean 0; junk means None.
    """
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
        sent = parsedate_to_datetime(date) if date else datetime.now(UTC)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None or sent.tzinfo is None:
        return None
    return max(0.0, (when - sent).total_seconds())


def _never(_: BaseException) -> float | None:
    return None


_gate: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "mlgov_attempt_gate", default=None
)


@contextmanager
def gated(gate: Callable[[], None]) -> Generator[None, None, None]:
    """Within the block, every attempt a `Retrying` makes first calls `gate()`.

    What counts against a quota is each request sent, retries and further pages included, so
    a pacer (pacing.py) gates the attempts, not the port call. An error `gate` raises (e.g.
    clock.OutOfTime) ends the call without sending that attempt.
    """
    token = _gate.set(gate)
    try:
        yield
    finally:
        _gate.reset(token)


@dataclass(frozen=True)
class Retrying:
    """Retry errors `transient` accepts for up to `timeout` seconds of the invocation's clock.

    `retry_after(err)` is the wait the server asked for (seconds), or None.
    """

    transient: Callable[[BaseException], bool]
    timeout: float
    retry_after: Callable[[BaseException], float | None] = _never
    initial: float = 0.2
    maximum: float = 4.0
    multiplier: float = 2.0

    def __call__(self, func: Callable[..., R]) -> Callable[..., R]:
        """`func` wrapped in the retry loop."""

        @functools.wraps(func)
        def retried(*args: Any, **kwargs: Any) -> R:
            time = clock.current()
            start = time.now()
            deadline = start + self.timeout
            left = clock.time_left()
            hard_deadline = max(deadline, start + left) if left is not None else deadline
            ceiling = min(self.initial, self.maximum)
            gate = _gate.get()
            while True:
                if gate is not None:
                    gate()
                try:
                    return func(*args, **kwargs)
                except Exception as err:
                    if not self.transient(err):
                        raise
                    pause = random.uniform(0.0, ceiling)  # noqa: S311 - jitter, not secrecy
                    limit = deadline
                    asked = self.retry_after(err)
                    if asked is not None:
                        pause, limit = max(pause, asked), hard_deadline
                    now = time.now()
                    if now + pause > limit:
                        note = ""
                        if asked is not None:
                            note = f"; asked to retry after {asked:g} s, {limit - now:.0f} s left"
                        raise GaveUp(err, note) from err
                    time.sleep(pause)
                    ceiling = min(ceiling * self.multiplier, self.maximum)

        return retried
