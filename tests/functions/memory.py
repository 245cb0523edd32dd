"""In-memory implementations of govern.ports, for testing flows and actions without HTTP.

`MemoryCloud` holds the state (workloads, recommendations, billing links, GPU utilization) and
records every port call as (port.method, args); `errors` makes a call raise instead, keyed by
(port.method, name) where name is the instance, node, recommendation or project it concerns.
The end-to-end tests (real clients against tests/fakegcp) cover the adapters; these cover the
flows' sequencing and the actions' logic.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from govern.models import Recommendation, Workload

STOPPED = {"compute": "TERMINATED", "notebook": "STOPPED", "tpu": "STOPPED"}


@dataclass
class MemoryCloud:
    """State behind the memory ports, and the log of calls made to them."""

    workloads: list[Workload] = field(default_factory=list)
    recommendations: list[Recommendation] = field(default_factory=list)
    billing: dict[str, bool] = field(default_factory=dict)
    utilization: dict[str, float] = field(default_factory=dict)
    rec_states: dict[str, str] = field(default_factory=dict)
    errors: dict[tuple[str, str], Exception] = field(default_factory=dict)
    calls: list[tuple[str, tuple[object, ...]]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _etags: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def record(self, method: str, name: str, *args: object) -> None:
        """Log the call, then raise the error injected for it, if any."""
        with self._lock:
            self.calls.append((method, args))
        if (method, name) in self.errors:
            raise self.errors[(method, name)]

    def called(self, method: str) -> list[tuple[object, ...]]:
        """The arguments of every call to `method` (e.g. "compute.stop"), in order."""
        return [args for m, args in self.calls if m == method]

    def methods(self) -> set[str]:
        """Every port method called."""
        return {m for m, _ in self.calls}

    def state(self, kind: str, name: str) -> str:
        return next(w.state for w in self.workloads if w.kind == kind and w.name == name)

    def _listed(self, kind: str, project: str, zone: str | None = None) -> list[Workload]:
        return [
            w
            for w in self.workloads
            if w.kind == kind and w.project == project and (zone is None or w.zone == zone)
        ]

    def _stop(self, kind: str, project: str, zone: str, name: str) -> str:
        with self._lock:
            for i, w in enumerate(self.workloads):
                if (w.kind, w.project, w.zone, w.name) == (kind, project, zone, name):
                    self.workloads[i] = dataclasses.replace(w, state=STOPPED[kind])
        return f"operation-{name} PENDING"


class _MemoryWorkloads:
    """A port over one kind of workload: stop one (listing differs per kind)."""

    def __init__(self, cloud: MemoryCloud, port: str, kind: str) -> None:
        self.cloud, self.port, self.kind = cloud, port, kind

    def stop(self, project: str, zone: str, name: str, **options: object) -> str:
        flags = (f"{k}={v}" for k, v in options.items() if v)
        self.cloud.record(f"{self.port}.stop", name, project, zone, name, *flags)
        return self.cloud._stop(self.kind, project, zone, name)


class MemoryInstances(_MemoryWorkloads):
    """ports.Compute (port "compute") or ports.Notebooks (port "notebooks")."""

    def list_instances(self, project: str) -> list[Workload]:
        self.cloud.record(f"{self.port}.list_instances", project, project)
        return self.cloud._listed(self.kind, project)


class MemoryTpus(_MemoryWorkloads):
    def list_nodes(self, project: str, zone: str) -> list[Workload]:
        self.cloud.record("tpus.list_nodes", project, project, zone)
        return self.cloud._listed("tpu", project, zone)


class MemoryBilling:
    def __init__(self, cloud: MemoryCloud) -> None:
        self.cloud = cloud

    def billing_enabled(self, project: str) -> bool:
        self.cloud.record("billing.billing_enabled", project, project)
        return self.cloud.billing[project]

    def unlink(self, project: str) -> None:
        self.cloud.record("billing.unlink", project, project)
        self.cloud.billing[project] = False


class MemoryRecommender:
    def __init__(self, cloud: MemoryCloud) -> None:
        self.cloud = cloud

    def list_recommendations(self, project: str, zone: str) -> list[Recommendation]:
        self.cloud.record("recommender.list_recommendations", project, project, zone)
        return [
            r
            for r in self.cloud.recommendations
            if r.project == project and r.zone == zone and r.state in ("ACTIVE", "CLAIMED")
        ]

    def _mark(self, method: str, state: str, name: str, etag: str, meta: object) -> str:
        self.cloud.record(f"recommender.{method}", name, name, etag, meta)
        self.cloud.rec_states[name] = state
        return f"etag-{next(self.cloud._etags)}"

    def mark_claimed(self, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        return self._mark("mark_claimed", "CLAIMED", name, etag, dict(metadata))

    def mark_succeeded(self, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        return self._mark("mark_succeeded", "SUCCEEDED", name, etag, dict(metadata))

    def mark_failed(self, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        return self._mark("mark_failed", "FAILED", name, etag, dict(metadata))


class MemoryMonitoring:
    def __init__(self, cloud: MemoryCloud) -> None:
        self.cloud = cloud

    def gpu_utilization(
        self, project: str, window_minutes: int, instance_ids: Sequence[str]
    ) -> Mapping[str, float]:
        self.cloud.record(
            "monitoring.gpu_utilization", project, project, window_minutes, tuple(instance_ids)
        )
        return {i: u for i, u in self.cloud.utilization.items() if i in instance_ids}


class MemoryPorts:
    """govern.ports.Ports over one MemoryCloud."""

    def __init__(self, cloud: MemoryCloud) -> None:
        self.compute = MemoryInstances(cloud, "compute", "compute")
        self.notebooks = MemoryInstances(cloud, "notebooks", "notebook")
        self.tpus = MemoryTpus(cloud, "tpus", "tpu")
        self.billing = MemoryBilling(cloud)
        self.recommender = MemoryRecommender(cloud)
        self.monitoring = MemoryMonitoring(cloud)
