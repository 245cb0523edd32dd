"""Vertex AI as the budget cap sees it: training jobs to cancel, endpoints whose models to undeploy.

Custom jobs and hyperparameter tuning jobs bill while they are queued, pending or running; the
cap cancels them. Endpoints bill for every deployed model's nodes; the cap undeploys them only
where the policy opts in (`undeploy_endpoints`) and the endpoint carries the opt-in label, since
undeploying breaks serving. REST shapes are parsed in parse/vertex.py, calls are gcp/vertex.py's.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

JobKind = Literal["customJobs", "hyperparameterTuningJobs"]
JOB_KINDS: Final[tuple[JobKind, ...]] = ("customJobs", "hyperparameterTuningJobs")
# The JobState values in which a job holds (or waits for) paid resources; CANCELLING and the
# final states need nothing. Enum: aiplatform v1 discovery document, CustomJob.state.
ACTIVE_STATES: Final = ("JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING")


def region_of(zone: str) -> str:
    """`us-central1` for `us-central1-a` (a region stays as it is)."""
    head, _, tail = zone.rpartition("-")
    return head if head and len(tail) == 1 else zone


@dataclass(frozen=True)
class VertexJob:
    """A custom job or hyperparameter tuning job."""

    kind: JobKind
    project: str
    region: str
    job_id: str
    state: str
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    display_name: str = ""

    @property
    def path(self) -> str:
        """The REST name `projects/P/locations/R/<kind>/ID`."""
        return f"projects/{self.project}/locations/{self.region}/{self.kind}/{self.job_id}"

    @property
    def target(self) -> str:
        """Full resource name, as reports name it."""
        return f"//aiplatform.googleapis.com/{self.path}"

    @property
    def active(self) -> bool:
        """True while the job holds or waits for paid resources."""
        return self.state in ACTIVE_STATES


@dataclass(frozen=True)
class Endpoint:
    """A Vertex AI endpoint with the ids of its deployed models and its traffic split."""

    project: str
    region: str
    endpoint_id: str
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    deployed: tuple[str, ...] = ()
    traffic: Mapping[str, int] = field(default_factory=dict[str, int])
    display_name: str = ""

    @property
    def path(self) -> str:
        """The REST name `projects/P/locations/R/endpoints/ID`."""
        return f"projects/{self.project}/locations/{self.region}/endpoints/{self.endpoint_id}"

    @property
    def target(self) -> str:
        """Full resource name, as reports name it."""
        return f"//aiplatform.googleapis.com/{self.path}"
