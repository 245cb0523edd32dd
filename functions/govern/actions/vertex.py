"""Stopping Vertex AI spend: cancel training jobs, undeploy an opted-in endpoint's models.

Cancelling is asynchronous on Vertex AI (the job goes CANCELLING, then CANCELLED) and a
cancelled job is never listed again (the flow lists queued, pending and running jobs only), so a
redelivered alert cancels nothing twice. Undeploying breaks serving: decide.py emits it only
where the policy and the endpoint both opt in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from govern.actions.base import Action, Call, Done
from govern.ports import Ports
from govern.vertex import Endpoint, VertexJob

# Permissions: https://cloud.google.com/vertex-ai/docs/general/iam-permissions
# ("Cancel a customJob", "Cancel a hyperparameterTuningJob", "Undeploy a model from an endpoint").


@dataclass(frozen=True)
class CancelVertexJob(Action):
    """Request the cancellation of a Vertex AI training job."""

    job: VertexJob
    verb: ClassVar[str] = "cancel"

    def run(self, ports: Ports, call: Call) -> Done:
        """<kind>.cancel; Vertex AI stops the job's resources asynchronously."""
        call(self.job.project, ports.vertex.cancel_job, self.job)
        return "done", f"{self.reason}: cancel requested (was {self.job.state})"


@dataclass(frozen=True)
class CancelCustomJob(CancelVertexJob):
    """Cancel a custom training job."""

    permissions: ClassVar[tuple[str, ...]] = ("aiplatform.customJobs.cancel",)


@dataclass(frozen=True)
class CancelTuningJob(CancelVertexJob):
    """Cancel a hyperparameter tuning job (and with it its trials)."""

    permissions: ClassVar[tuple[str, ...]] = ("aiplatform.hyperparameterTuningJobs.cancel",)


@dataclass(frozen=True)
class UndeployEndpoint(Action):
    """Undeploy every model of an endpoint, one after the other."""

    endpoint: Endpoint
    verb: ClassVar[str] = "undeploy"
    permissions: ClassVar[tuple[str, ...]] = ("aiplatform.endpoints.undeploy",)

    def run(self, ports: Ports, call: Call) -> Done:
        """UndeployModel per deployed model; the last one keeps the traffic until it goes.

        "A DeployedModel will be successfully undeployed only if it doesn't have any traffic
        assigned to it ... or if this field unassigns any traffic to it" (UndeployModelRequest
        .trafficSplit, aiplatform v1): every model but the last moves its traffic to the last.
        """
        endpoint, models = self.endpoint, self.endpoint.deployed
        last = models[-1]
        for model in models:
            split = {} if model == last else {last: 100}
            call(endpoint.project, ports.vertex.undeploy_model, endpoint, model, split)
        return "done", f"{self.reason}: undeploy requested for {len(models)} model(s)"
