"""Stopping Vertex AI spend: cancel training jobs, undeploy an opted-in endpoint's models.

Cancelling is asynchronous on Vertex AI (the job goes CANCELLING, then CANCELLED) and a
cancelled job is never listed again (the flow lists queued, pending and running jobs only), so a
redelivered alert cancels nothing twice; nothing records a cancelled job, and restore does not
resubmit it. `cancel` answers Empty, not an operation: there is no operation to confirm (not
done: reading the job until it is CANCELLED). Undeploying breaks serving: cap.py emits it only
where the policy and the endpoint both opt in, and each deployment is first recorded on the
endpoint (govern/vertex.py) so that `mlgov cap restore` can deploy it again with its traffic
split. Each undeploy is a long-running operation, confirmed before the next is requested.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from govern import ports as p
from govern.actions.base import Action, Call, Done
from govern.clock import OutOfTime
from govern.ports import Ports
from govern.vertex import DEPLOYMENT_PREFIX, Endpoint, VertexJob

FRESH_READS = 3
"""How many times a label write refused for a stale etag is retried after reading again."""

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
    """Record every deployed model of an endpoint on it, then undeploy them one after the other."""

    endpoint: Endpoint
    verb: ClassVar[str] = "undeploy"
    permissions: ClassVar[tuple[str, ...]] = (
        "aiplatform.endpoints.undeploy",
        # Waiting for each undeploy's long-running operation.
        "aiplatform.operations.get",
        # endpoints.get after a stale etag, endpoints.patch to write the record.
        "aiplatform.endpoints.get",
        "aiplatform.endpoints.update",
    )

    def _record(self, ports: Ports, call: Call) -> tuple[Endpoint, str]:
        """Write the deployment marks (govern/vertex.py), re-reading after a stale etag.

        Returns the endpoint as last read and what the report says of the record. A record
        that cannot be written does not stop the undeploy: stopping the spend comes first, and
        the report then says what restore cannot deploy again, with what it was.
        """
        endpoint, reads = self.endpoint, 0
        while True:
            marks, problems = endpoint.deployment_marks()
            try:
                if marks:
                    labels = {**endpoint.labels, **marks}
                    call(endpoint.project, ports.vertex.set_endpoint_labels, endpoint, labels)
                break
            except p.Conflict as err:
                if reads >= FRESH_READS:
                    return endpoint, self._unrecorded(
                        endpoint, f"the endpoint kept changing ({err})"
                    )
                reads += 1
                endpoint = call(
                    endpoint.project,
                    ports.vertex.get_endpoint,
                    endpoint.project,
                    endpoint.region,
                    endpoint.endpoint_id,
                )
            except p.PortError as err:
                return endpoint, self._unrecorded(endpoint, str(err))
        notes = [
            f"; restore cannot deploy {m.describe(endpoint.traffic.get(m.id, 0))} again: {why}"
            for m in endpoint.models
            if (why := problems.get(m.id))
        ]
        return endpoint, f"; deployments kept in labels {DEPLOYMENT_PREFIX}*" + "".join(notes)

    @staticmethod
    def _unrecorded(endpoint: Endpoint, why: str) -> str:
        was = "; ".join(m.describe(endpoint.traffic.get(m.id, 0)) for m in endpoint.models)
        return f"; NOT recorded for restore ({why}); they were: {was}"

    def run(self, ports: Ports, call: Call) -> Done:
        """Record, then UndeployModel per deployed model, each confirmed by its operation.

        The last model keeps the traffic until it goes. An undeploy whose operation fails, or
        is still running when the wait runs out, is a failure (the alert is redelivered).

        "A DeployedModel will be successfully undeployed only if it doesn't have any traffic
        assigned to it ... or if this field unassigns any traffic to it" (UndeployModelRequest
        .trafficSplit, aiplatform v1): every model but the last moves its traffic to the last.
        """
        endpoint, note = self._record(ports, call)
        models = endpoint.deployed
        if not models:
            return "skipped", "no model deployed (undeployed meanwhile)"
        last = models[-1]
        for n, model in enumerate(models):
            split = {} if model == last else {last: 100}
            left = f"{len(models) - n} of {len(models)} model(s) still deployed"
            try:
                operation = call(
                    endpoint.project, ports.vertex.undeploy_model, endpoint, model, split
                )
                # One at a time: the next undeploy relies on this one's traffic having moved.
                call(endpoint.project, ports.vertex.wait_operation, endpoint.region, operation)
            except p.OperationFailed as err:
                return "failed", f"{self.reason}: NOT undeployed ({left}): {err}{note}"
            except (OutOfTime, p.Unavailable) as err:
                # Give-up: never "done". The alert is redelivered and undeploys what is left.
                return "failed", (
                    f"{self.reason}: undeploy of model {model} requested, not confirmed ({err}); "
                    f"{left}, the next delivery undeploys them{note}"
                )
        return "done", f"{self.reason}: undeployed {len(models)} model(s){note}"
