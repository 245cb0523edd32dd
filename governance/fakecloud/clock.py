# pyright: basic
"""A fake govern.clock.Clock: sleeping returns at once and moves time forward.

Tests hand it to execute.Runner (rate limiter, time budget, retry backoff), install it for
main.py's invocations (govern.clock.using) and give it to FakeGcp (injected latency, slow
replies), so nothing in a functions test waits for real time to pass.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta


class FakeClock:
    """Monotonic time that only moves when someone sleeps or calls `advance` (thread-safe).

    Its wall clock starts at `wall` (default: the real UTC time of its creation) and moves with
    it, so a test that depends on the date (budget periods, expiry dates) can pin it.
    """

    def __init__(self, start: float = 1000.0, wall: datetime | None = None) -> None:
        self._start = self._now = start
        self._epoch = wall if wall is not None else datetime.now(UTC)
        self._lock = threading.Lock()
        self.slept: list[float] = []

    def now(self) -> float:
        with self._lock:
            return self._now

    def wall(self) -> datetime:
        with self._lock:
            return self._epoch + timedelta(seconds=self._now - self._start)

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.slept.append(seconds)
            self._now += max(0.0, seconds)

    def set_wall(self, wall: datetime) -> None:
        """Make the wall clock read `wall` now (monotonic time is unchanged)."""
        with self._lock:
            self._epoch = wall - timedelta(seconds=self._now - self._start)

    def advance(self, seconds: float) -> None:
        """Let `seconds` pass without anyone sleeping (work that takes time)."""
        with self._lock:
            self._now += seconds
