"""What execute.py needs from GCP, as Protocols; gcp.py implements them over the real clients.

Adapters translate the client libraries' exceptions into the three below, so the core can
react (already gone, concurrent change, failed) without importing google.*.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from govern.models import Recommendation, Workload


class PortError(Exception):
    """An API call failed after retries; the message is safe to put in a report."""


class Gone(PortError):
    """The target does not exist any more (HTTP 404)."""


class Conflict(PortError):
    """The target changed under us (stale etag: HTTP 400/409/412)."""


class Compute(Protocol):
    """Compute Engine instances."""

    def list_instances(self, project: str) -> list[Workload]:
        """All instances in the project (one aggregatedList)."""
        ...

    def stop(self, project: str, zone: str, name: str) -> str:
        """Request a stop; returns the (usually PENDING) operation status."""
        ...


class Notebooks(Protocol):
    """Vertex AI Workbench instances (Notebooks API v2)."""

    def list_instances(self, project: str) -> list[Workload]:
        """All instances in the project (locations/-)."""
        ...

    def stop(self, project: str, zone: str, name: str) -> str:
        """Request a stop; returns the long-running operation name."""
        ...


class Tpus(Protocol):
    """Cloud TPU VMs (TPU API v2)."""

    def list_nodes(self, project: str, zone: str) -> list[Workload]:
        """Nodes in one zone."""
        ...

    def stop(self, project: str, zone: str, name: str) -> str:
        """Request a stop; returns the long-running operation name."""
        ...


class Billing(Protocol):
    """Cloud Billing project assignment."""

    def billing_enabled(self, project: str) -> bool:
        """True if a billing account is linked (projects.getBillingInfo)."""
        ...

    def unlink(self, project: str) -> None:
        """Unlink the billing account (updateBillingInfo with an empty account name)."""
        ...


class Recommender(Protocol):
    """Idle-VM recommendations (google.compute.instance.IdleResourceRecommender)."""

    def list_active(self, project: str, zone: str) -> list[Recommendation]:
        """ACTIVE recommendations for one zone."""
        ...

    def mark_claimed(self, name: str, etag: str) -> str:
        """Claim; returns the new etag. Raises Conflict on a stale etag."""
        ...

    def mark_succeeded(self, name: str, etag: str) -> str:
        """Mark succeeded; returns the new etag."""
        ...

    def mark_failed(self, name: str, etag: str, reason: str) -> str:
        """Mark failed with a reason in stateMetadata; returns the new etag."""
        ...


class Monitoring(Protocol):
    """Cloud Monitoring time series."""

    def gpu_utilization(
        self, project: str, window_minutes: int, instance_ids: Sequence[str]
    ) -> Mapping[str, float]:
        """{instance_id: busiest GPU's mean utilization %} over the window; no data => absent."""
        ...


@dataclass(frozen=True)
class Ports:
    """The adapters one invocation uses; any may be None if the entry point does not need it."""

    compute: Compute | None = None
    notebooks: Notebooks | None = None
    tpus: Tpus | None = None
    billing: Billing | None = None
    recommender: Recommender | None = None
    monitoring: Monitoring | None = None


# The invocation's deadline (time.monotonic() value), set by execute.py for the calls it makes,
# so adapters can cap their retry time at what is left.
DEADLINE: ContextVar[float | None] = ContextVar("mlgov_deadline", default=None)


def seconds_left(cap: float) -> float:
    """Seconds until the invocation's deadline, at most `cap` (and at least 1)."""
    deadline = DEADLINE.get()
    if deadline is None:
        return cap
    return max(1.0, min(cap, deadline - time.monotonic()))
