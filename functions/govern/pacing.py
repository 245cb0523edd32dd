"""Pacing of calls counted against an ORGANIZATION-level quota, in each worker process.

With fan-out, up to `fan_out.worker_instances` worker processes call the same APIs at once, and
some quotas are counted for the whole organization, not per project (Google's quota pages,
read 2026-11-28): Cloud Billing 975 calls a minute, Cloud Asset Inventory searches 1,500 a
minute, Recommender 3,000 writes a minute with a support package (6,000 reads; 100 of each on
the free tier, where the per-day quota binds first: ORG_QUOTAS_PER_MINUTE is the lower, write,
figure). Each process spaces its calls to one service so that it uses at most HALF the quota
divided by the number of processes: every worker together never passes half of it, leaving the
rest for everything else in the organization. Per-project quotas stay the Runner's rate limiter's.

A call whose turn would come after the invocation's deadline is not waited for: it raises
clock.OutOfTime, so the action is left for the item's redelivery instead of outliving the run.
Standard library only.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Final

from govern import clock, ports

ORG_QUOTAS_PER_MINUTE: Final[Mapping[str, float]] = {
    "cloudbilling": 975.0,
    "cloudasset": 1500.0,
    "recommender": 3000.0,
}
SHARE: Final = 0.5
"""The share of an organization-level quota all workers together may use."""


def interval_seconds(service: str, worker_instances: int) -> float:
    """Seconds between two calls to `service` in one process (0.0: not an org-level quota).

    e.g. Cloud Billing with 100 instances: 60 / (975 x 0.5 / 100) = 12.3 s per process, so 100
    processes make at most 487.5 calls a minute.
    """
    quota = ORG_QUOTAS_PER_MINUTE.get(service)
    if quota is None:
        return 0.0
    return 60.0 / (quota * SHARE / max(1, worker_instances))


class Pacer:
    """The next free slot of each paced service, shared by every request of this process."""

    def __init__(self, worker_instances: int) -> None:
        self.worker_instances = worker_instances
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait_turn(self, service: str) -> None:
        """Wait (on the invocation's clock) for this process's next slot for `service`.

        Raises:
            clock.OutOfTime: the slot comes after the invocation's deadline.
        """
        interval = interval_seconds(service, self.worker_instances)
        if interval <= 0:
            return
        time = clock.current()
        with self._lock:
            now = time.now()
            turn = max(now, self._next.get(service, now))
            left = clock.time_left()
            if left is not None and turn - now > left:
                raise clock.OutOfTime(
                    f"{service}: this worker's share of the organization quota has no slot "
                    "before the deadline; left for the redelivery"
                )
            self._next[service] = turn + interval
        if turn > now:
            time.sleep(turn - now)


class Paced:
    """An adapter whose every method call first waits for the pacer's turn for `service`."""

    def __init__(self, adapter: Any, service: str, pacer: Pacer) -> None:
        self._adapter = adapter
        self._service = service
        self._pacer = pacer

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._adapter, name)
        if not callable(attribute):
            return attribute

        def paced(*args: Any, **kwargs: Any) -> Any:
            self._pacer.wait_turn(self._service)
            return attribute(*args, **kwargs)

        return paced


class PacedPorts:
    """govern.ports.Ports whose organization-quota services wait for the pacer's turn."""

    def __init__(self, inner: ports.Ports, pacer: Pacer) -> None:
        self._inner = inner
        self._pacer = pacer

    def _paced(self, adapter: Any, service: str) -> Any:
        return Paced(adapter, service, self._pacer)

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
        paced: ports.Billing = self._paced(self._inner.billing, "cloudbilling")
        return paced

    @property
    def recommender(self) -> ports.Recommender:
        """Recommender: an organization-level quota, paced."""
        paced: ports.Recommender = self._paced(self._inner.recommender, "recommender")
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
        paced: ports.Assets = self._paced(self._inner.assets, "cloudasset")
        return paced

    @property
    def work(self) -> ports.WorkQueue:
        """Pub/Sub."""
        return self._inner.work
