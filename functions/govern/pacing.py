"""Pacing of calls counted against an ORGANIZATION-level quota, in each worker process.

With fan-out, up to `fan_out.worker_instances` worker processes call the same APIs at once, and
some quotas are counted for the whole organization, not per project (Google's quota pages,
read 2026-11-28): Cloud Billing 975 calls a minute, Cloud Asset Inventory searches 1,500 a
minute, Recommender 6,000 reads and 3,000 writes a minute with a support package
(https://cloud.google.com/recommender/quotas; 100 of each on the free tier, where the per-day
quota of 100 reads binds first). Each process may start, in ANY 60 seconds, at most
floor(quota x SHARE / worker_instances) calls against one quota, so all the processes together
never pass half of it, whatever their timing, leaving the rest for everything else in the
organization. The bound is counted per HTTP request, retries and further pages included: the
gate runs before every attempt the retry loop makes (retry.gated). Per-project quotas stay the
Runner's rate limiter's.

A call whose turn would come after the invocation's deadline is not waited for: it raises
clock.OutOfTime, so the action is left for the item's redelivery instead of outliving the run.
Standard library only.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Final

from govern import clock, ports, retry

ORG_QUOTAS_PER_MINUTE: Final[Mapping[str, float]] = {
    "cloudbilling": 975.0,
    "cloudasset": 1500.0,
    "recommender-read": 6000.0,
    "recommender-write": 3000.0,
}
"""Organization-level quotas, by name: calls a minute (paid Recommender tier)."""
SHARE: Final = 0.5
"""The share of an organization-level quota all workers together may use."""
WINDOW_SECONDS: Final = 60.0
"""Google counts these quotas per minute."""
_RECOMMENDER_READS: Final = frozenset({"list_recommendations"})
"""Recommender methods charged to its read quota (ListRecommendations); the marks are writes."""


def calls_per_window(quota: str, worker_instances: int) -> int | None:
    """Calls one process may start in any 60 s against `quota` (None: not an org-level quota).

    e.g. Cloud Billing with 100 instances: floor(975 x 0.5 / 100) = 4 a minute per process, so
    100 processes start at most 400 a minute, never more than half of 975.
    """
    quota_per_minute = ORG_QUOTAS_PER_MINUTE.get(quota)
    if quota_per_minute is None:
        return None
    return math.floor(quota_per_minute * SHARE / max(1, worker_instances))


class Pacer:
    """When this process may start its next call to each paced quota (a sliding 60 s window).

    Each quota keeps the start times of its last `allowed` calls (booked, some still ahead):
    the next call starts once the oldest of them is 60 s old. Every 60 s window then holds at
    most `allowed` starts, exactly.
    """

    def __init__(self, worker_instances: int) -> None:
        self.worker_instances = worker_instances
        self._starts: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait_turn(self, quota: str) -> None:
        """Wait (on the invocation's clock) for this process's next start against `quota`.

        Raises:
            clock.OutOfTime: the turn comes after the invocation's deadline (nothing booked).
            ports.PortError: the share of this process is below one call a minute (more
                worker instances than half the quota a minute): it may never call.
        """
        allowed = calls_per_window(quota, self.worker_instances)
        if allowed is None:
            return
        if allowed < 1:
            raise ports.PortError(
                f"{quota}: fan_out.worker_instances {self.worker_instances} leaves each worker "
                f"less than one call a minute of half the organization's quota "
                f"({ORG_QUOTAS_PER_MINUTE[quota]:g} a minute); deploy fewer worker instances"
            )
        time = clock.current()
        with self._lock:
            now = time.now()
            starts = self._starts.setdefault(quota, deque(maxlen=allowed))
            turn = now if len(starts) < allowed else max(now, starts[0] + WINDOW_SECONDS)
            left = clock.time_left()
            if left is not None and turn - now > left:
                raise clock.OutOfTime(
                    f"{quota}: this worker's share of the organization quota has no slot "
                    "before the deadline; left for the redelivery"
                )
            starts.append(turn)  # the deque drops the oldest: only the last `allowed` matter
        if turn > now:
            time.sleep(turn - now)


class Paced:
    """An adapter whose every HTTP request first waits for the pacer's turn.

    `quota_of(method)` names the quota a method's requests count against. The wait runs before
    each attempt of the call (govern.retry.gated): a retried request or a further page counts
    against the quota like the first.
    """

    def __init__(self, adapter: Any, quota_of: Callable[[str], str], pacer: Pacer) -> None:
        self._adapter = adapter
        self._quota_of = quota_of
        self._pacer = pacer

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._adapter, name)
        if not callable(attribute):
            return attribute
        quota = self._quota_of(name)

        def paced(*args: Any, **kwargs: Any) -> Any:
            with retry.gated(lambda: self._pacer.wait_turn(quota)):
                return attribute(*args, **kwargs)

        return paced


def _one(quota: str) -> Callable[[str], str]:
    return lambda _method: quota


def recommender_quota(method: str) -> str:
    """The Recommender quota a port method's requests are charged to (its quotas page)."""
    return "recommender-read" if method in _RECOMMENDER_READS else "recommender-write"


class PacedPorts:
    """govern.ports.Ports whose organization-quota services wait for the pacer's turn."""

    def __init__(self, inner: ports.Ports, pacer: Pacer) -> None:
        self._inner = inner
        self._pacer = pacer

    def _paced(self, adapter: Any, quota_of: Callable[[str], str]) -> Any:
        # Any: a Paced stands in for the port it wraps (every method, same signature).
        return Paced(adapter, quota_of, self._pacer)

    @property
    def compute(self) -> ports.Compute:
        """Compute Engine (per-project quotas: not paced here)."""
        return self._inner.compute

    @property
    def notebooks(self) -> ports.Notebooks:
        """Workbench."""
        return self._inner.notebooks

    @property
    def tpus(self) -> ports.Tpus:
        """TPU VMs."""
        return self._inner.tpus

    @property
    def billing(self) -> ports.Billing:
        """Cloud Billing: an organization-level quota, paced."""
        paced: ports.Billing = self._paced(self._inner.billing, _one("cloudbilling"))
        return paced

    @property
    def recommender(self) -> ports.Recommender:
        """Recommender: organization-level read and write quotas, paced apart."""
        paced: ports.Recommender = self._paced(self._inner.recommender, recommender_quota)
        return paced

    @property
    def monitoring(self) -> ports.Monitoring:
        """Cloud Monitoring."""
        return self._inner.monitoring

    @property
    def container(self) -> ports.Container:
        """GKE."""
        return self._inner.container

    @property
    def vertex(self) -> ports.Vertex:
        """Vertex AI."""
        return self._inner.vertex

    @property
    def budgets(self) -> ports.Budgets:
        """Cloud Billing budgets (the Budget API)."""
        return self._inner.budgets

    @property
    def assets(self) -> ports.Assets:
        """Cloud Asset Inventory: an organization-level quota, paced."""
        paced: ports.Assets = self._paced(self._inner.assets, _one("cloudasset"))
        return paced

    @property
    def work(self) -> ports.WorkQueue:
        """Pub/Sub."""
        return self._inner.work
