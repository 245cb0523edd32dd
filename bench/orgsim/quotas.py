"""Rate limits and meters on simulated time (seconds).

`Bucket` is a token bucket used as a reservation: asked at time t, it answers when the call may
start (t, or later once a token is there) and books that token, so callers served in the order
they ask keep the rate. It is the functions' per-project RateLimiter (rate, a burst of
rate x burst_seconds).

`SlidingWindow` is the per-instance pacing of organization-level calls as the functions do it
(functions/govern/pacing.py): at most `allowed` = floor(50% of the quota / the worker's max
instances) starts in any `per` seconds.

`Window` keeps the calls of one quota and tells the most that fell in any `per`-second window:
the peak share of a per-minute quota. Standard library only.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class Bucket:
    """A token bucket of `capacity` tokens refilled at `rate` per second, as reservations."""

    rate: float
    capacity: float = 1.0
    _tat: float = 0.0
    """The theoretical arrival time of the next call at the sustained rate (GCRA)."""

    def available(self, t: float) -> float:
        """When a call asked for at `t` could start (>= t); books nothing."""
        interval = 1.0 / self.rate
        tolerance = (max(1.0, self.capacity) - 1.0) * interval
        return max(t, self._tat - tolerance)

    def reserve(self, t: float) -> float:
        """When a call asked for at `t` may start (>= t); books its token."""
        start = self.available(t)
        self._tat = max(self._tat, start) + 1.0 / self.rate
        return start


@dataclass
class SlidingWindow:
    """At most `allowed` starts in any `per` seconds, as reservations (functions' pacing.py)."""

    allowed: int
    per: float = 60.0
    _starts: deque[float] = field(default_factory=deque[float])

    def available(self, t: float) -> float:
        """When a call asked for at `t` could start (>= t); books nothing. inf: never.

        Starts are booked in order (never before the last one booked), as the functions'
        pacer books them in the order its calls ask; the model may ask out of time order.
        """
        if self.allowed < 1:
            return float("inf")
        start = max(t, self._starts[-1]) if self._starts else t
        if len(self._starts) < self.allowed:
            return start
        return max(start, self._starts[-self.allowed] + self.per)

    def reserve(self, t: float) -> float:
        """When a call asked for at `t` may start; books it (only the last `allowed` matter)."""
        start = self.available(t)
        self._starts.append(start)
        while len(self._starts) > self.allowed:
            self._starts.popleft()
        return start


@dataclass
class Window:
    """The calls of one quota: total, and the most in any `per`-second window."""

    per: float = 60.0
    times: list[float] = field(default_factory=list[float])

    def add(self, t: float) -> None:
        """A call at `t` (calls may be booked out of order: they are sorted when read)."""
        self.times.append(t)

    def peak(self) -> int:
        """The most calls within any window of `per` seconds."""
        return peak_in(self.times, self.per)


def peak_in(times: list[float], per: float) -> int:
    """The most of `times` (any order) within any `per`-second window."""
    ordered = sorted(times)
    window: deque[float] = deque()
    best = 0
    for t in ordered:
        window.append(t)
        # Half-open windows (t - per, t]; the epsilon keeps float rounding from counting a
        # start exactly `per` seconds after another in the same window.
        while t - window[0] >= per - 1e-9:
            window.popleft()
        best = max(best, len(window))
    return best
