"""What the flows and actions need from GCP, as Protocols, and the reads flows declare.

gcp/ implements the Protocols over the real clients, tests over memory. Each `Read` names an
API read a flow performs and the IAM permissions it needs.
Adapters translate the client libraries' exceptions into the errors below, so the core can
react (already gone, concurrent change, unavailable, failed) without importing google.*, and
return listings as a `Listing`, which carries the resources they could not parse beside the
ones they could. Adding a service: a Protocol and a `Ports` property here, an adapter module in
gcp/ (built on gcp/clients.py, which gives it the retry and error rules), a property in main.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

from govern.gke import Autoscaling, Cluster, NodePool, ResourceLimit
from govern.models import (
    FoundProject,
    QueuedResource,
    Recommendation,
    SpendCapState,
    Usage,
    Workload,
)
from govern.vertex import Endpoint, JobKind, VertexJob
from govern.workitems import Message

T = TypeVar("T")


class PortError(Exception):
    """An API call failed (after retries); the message is safe to put in a report."""


class Gone(PortError):
    """The target does not exist any more (HTTP 404)."""


class Conflict(PortError):
    """The target changed under us (stale etag: HTTP 400/409/412)."""


class OperationFailed(PortError):
    """The API accepted a write (HTTP 200), but the operation it started ended in an error.

    Nothing was changed: the VM still runs, the model is still deployed. `transient`: the
    operation's own error says trying again may work (Compute's `httpErrorStatusCode` 5xx or
    429, google.rpc UNAVAILABLE...: parse/operation.py); otherwise the same write may fail the
    same way, though a later run may still succeed.
    """

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class ServiceDisabled(PortError):
    """The API is not enabled in the project (HTTP 403 SERVICE_DISABLED): nothing of it can run.

    A project without the GKE or Vertex AI API has no clusters or jobs to stop, so a listing that
    meets this is an empty answer (logged once per run), not a failure to retry.
    """


class Unavailable(PortError):
    """Still failing transiently (5xx, 429, rate limit, reset, timeout) when retries ran out.

    Trying again later may succeed: a run with such a failure is answered so that its caller
    retries it (HTTP 503, or a raise for Pub/Sub), and claims are left for the next run.
    """


class Unconfirmed(Unavailable):
    """A write's operation could not be read back (HTTP 404): it is not confirmed, never done.

    An operation Google no longer knows (or never had at that location) says nothing about the
    write: the resource may have stopped or not. Like Unavailable, the caller retries, and the
    next attempt reads the resource itself.
    """


@dataclass(frozen=True)
class Unreadable:
    """A listed resource whose JSON could not be parsed: reported and skipped, never acted on."""

    target: str
    reason: str


class Listing(list[T]):
    """A list call's parsed items, the resources it could not parse, the places it could not read.

    A plain list to its callers. `unreadable`: listed resources that did not parse. `missing`:
    locations (zones or regions) the API said it could not reach, whose resources are absent
    from the answer (Compute's `unreachables`, GKE's `missingZones`, the TPU and Notebooks lists'
    `unreachable`). execute.Runner.gather reports both, so one bad resource or one unreachable
    zone never hides the others, and a governed location that was not read fails the run.
    """

    def __init__(
        self,
        items: Iterable[T] = (),
        unreadable: Iterable[Unreadable] = (),
        missing: Iterable[str] = (),
    ) -> None:
        super().__init__(items)
        self.unreadable: tuple[Unreadable, ...] = tuple(unreadable)
        self.missing: tuple[str, ...] = tuple(missing)


VM_GONE: Final = "GONE"
"""What Compute.wait_stopped answers for a VM that does not exist (any more)."""


class Compute(Protocol):
    """Compute Engine instances."""

    def list_instances(self, project: str) -> list[Workload]:
        """All instances in the project (one aggregatedList)."""
        ...

    def group_size(self, project: str, zone: str, name: str) -> int:
        """A managed instance group's targetSize (instanceGroupManagers.get): how many VMs it keeps.

        GKE node pools are such groups, one per zone; their sizes are the pool's node count.
        """
        ...

    def stop(self, project: str, zone: str, name: str, *, keep_local_ssd: bool = False) -> str:
        """Request a stop; returns the (usually PENDING) operation status.

        `keep_local_ssd` (the VM has Local SSDs) asks Compute to preserve their data
        (`discardLocalSsd=false`); the API requires the choice for such VMs.
        """
        ...

    def wait_operation(self, project: str, zone: str, operation: str) -> str:
        """Wait for a zonal operation (the first word of what `stop` returned) to be DONE.

        Raises:
            OperationFailed: the operation finished with an error.
            clock.OutOfTime: it was still running when the wait ran out.
        """
        ...

    def wait_stopped(self, project: str, zone: str, name: str) -> str:
        """Read the VM (instances.get) until it is no longer stopping; its status then.

        VM_GONE when it does not exist (any more).

        Raises:
            clock.OutOfTime: it was still stopping when the wait ran out.
        """
        ...


class Notebooks(Protocol):
    """Vertex AI Workbench instances (Notebooks API v2)."""

    def list_instances(self, project: str) -> list[Workload]:
        """All instances in the project (locations/-)."""
        ...

    def stop(self, project: str, zone: str, name: str) -> str:
        """Request a stop; returns the long-running operation name."""
        ...

    def wait_operation(self, operation: str) -> str:
        """Wait for the operation `stop` returned to be done.

        Raises:
            OperationFailed: the operation finished with an error.
            clock.OutOfTime: it was still running when the wait ran out.
        """
        ...


class Tpus(Protocol):
    """Cloud TPU VMs (TPU API v2)."""

    def list_nodes(self, project: str, zone: str) -> list[Workload]:
        """Nodes in one zone."""
        ...

    def list_queued_resources(self, project: str, zone: str) -> list[QueuedResource]:
        """Queued resources (requests for TPU VMs) in one zone."""
        ...

    def delete_queued_resource(self, name: str) -> str:
        """queuedResources.delete (no force) of `projects/P/locations/Z/queuedResources/N`.

        Returns the long-running operation's name (waited for by `wait_operation`).
        """
        ...

    def stop(self, project: str, zone: str, name: str) -> str:
        """Request a stop; returns the long-running operation name."""
        ...

    def wait_operation(self, operation: str) -> str:
        """Wait for the operation `stop` returned to be done.

        Raises:
            OperationFailed: the operation finished with an error.
            clock.OutOfTime: it was still running when the wait ran out.
        """
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

    def list_recommendations(self, project: str, zone: str) -> list[Recommendation]:
        """ACTIVE and CLAIMED recommendations for one zone (CLAIMED ones may be mlgov's)."""
        ...

    def mark_claimed(self, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        """Claim, with `metadata` as stateMetadata; returns the new etag.

        Raises:
            Conflict: the etag is stale.
        """
        ...

    def mark_succeeded(self, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        """Mark succeeded; returns the new etag."""
        ...

    def mark_failed(self, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        """Mark failed (the reason goes in `metadata`); returns the new etag."""
        ...


class Monitoring(Protocol):
    """Cloud Monitoring time series."""

    def gpu_utilization(
        self, project: str, window_minutes: int, instance_ids: Sequence[str]
    ) -> Mapping[str, Usage]:
        """{instance_id: busiest GPU's mean utilization %, or why not judged}; no data: absent."""
        ...

    def tpu_duty_cycle(
        self, project: str, window_minutes: int, node_names: Sequence[str]
    ) -> Mapping[str, Usage]:
        """{TPU node name: busiest worker's mean duty cycle % or why not judged}; no data: none."""
        ...


class Container(Protocol):
    """GKE clusters and node pools (container v1).

    GKE runs one cluster-level operation at a time, or one operation per node pool (pools of
    one cluster in parallel): every write but `request_pool_size` returns only once its
    operation is DONE (the next write on that cluster or pool could not start earlier); each
    returns the operation's name. A write GKE refuses while another operation runs there is
    tried again by the adapter, within the invocation's time.
    """

    def list_clusters(self, project: str) -> list[Cluster]:
        """Every cluster of the project, with its node pools (locations/-)."""
        ...

    def get_cluster(self, project: str, location: str, name: str) -> Cluster:
        """One cluster as it is now (clusters.get): a fresh fingerprint after a Conflict."""
        ...

    def set_pool_labels(self, pool: NodePool, labels: Mapping[str, str]) -> str:
        """nodePools.update with these resource labels (the whole map)."""
        ...

    def set_pool_autoscaling(self, pool: NodePool, autoscaling: Autoscaling) -> str:
        """nodePools.setAutoscaling."""
        ...

    def request_pool_size(self, pool: NodePool, nodes: int) -> str:
        """nodePools.setSize, once GKE accepted it (not waited for): its operation's name.

        Scaling to zero drains the nodes, which takes minutes: the caller confirms it later
        (`wait_operation`), so that no other request waits behind the drain.
        """
        ...

    def wait_operation(self, project: str, location: str, operation: str) -> str:
        """Wait until a GKE operation is DONE; its name.

        Raises:
            OperationFailed: it ended with an error (the write did not happen).
            Unconfirmed: the operation answered 404.
            clock.OutOfTime: still running when the wait ran out.
        """
        ...

    def set_cluster_labels(self, cluster: Cluster, labels: Mapping[str, str]) -> str:
        """clusters.setResourceLabels (the whole map, with the cluster's fingerprint).

        Raises:
            Conflict: the fingerprint is stale (the labels changed since the cluster was read).
        """
        ...

    def set_resource_limits(self, cluster: Cluster, limits: Sequence[ResourceLimit]) -> str:
        """clusters.update: the cluster's autoscaling as read, with these NAP limits."""
        ...


class Vertex(Protocol):
    """Vertex AI training jobs and endpoints (aiplatform v1, regional hosts)."""

    def list_jobs(self, project: str, region: str, kind: JobKind) -> list[VertexJob]:
        """The jobs of `kind` in a queued, pending or running state."""
        ...

    def cancel_job(self, job: VertexJob) -> None:
        """<kind>.cancel (Vertex AI cancels asynchronously; the job goes CANCELLING)."""
        ...

    def list_endpoints(self, project: str, region: str) -> list[Endpoint]:
        """Every endpoint in the region, with its deployed models."""
        ...

    def get_endpoint(self, project: str, region: str, endpoint_id: str) -> Endpoint:
        """One endpoint as it is now (endpoints.get): a fresh etag after a Conflict."""
        ...

    def set_endpoint_labels(self, endpoint: Endpoint, labels: Mapping[str, str]) -> None:
        """endpoints.patch of the labels (the whole map), guarded by the endpoint's etag.

        Raises:
            Conflict: the etag is stale (the endpoint changed since it was read).
        """
        ...

    def undeploy_model(
        self, endpoint: Endpoint, deployed_model_id: str, traffic_split: Mapping[str, int]
    ) -> str:
        """endpoints.undeployModel (traffic_split empty: leave it to the API); the operation."""
        ...

    def wait_operation(self, region: str, operation: str) -> str:
        """Wait for an operation (its full name) of the region to be done.

        Raises:
            OperationFailed: the operation finished with an error.
            clock.OutOfTime: it was still running when the wait ran out.
        """
        ...


class Budgets(Protocol):
    """Cloud Billing budgets (Budget API v1): read only."""

    def get_spend_cap(self, name: str) -> SpendCapState:
        """A spend-cap budget's state (`billingAccounts/<id>/budgets/<id>`)."""
        ...


class Assets(Protocol):
    """Cloud Asset Inventory: which projects a folder or organization holds, and what runs there.

    The index is eventually consistent (minutes): it finds projects and counts candidates, and
    never decides an action alone (the flows read live state before acting).
    """

    def search_projects(self, scope: str) -> list[FoundProject]:
        """Every project under `scope` (folders/N or organizations/N), every page read.

        Raises:
            PortError: the search failed (any page); nothing of the scope may be assumed.
        """
        ...

    def search_workloads(
        self, scope: str, asset_types: Sequence[str], query: str
    ) -> list[Workload]:
        """Every VM, TPU VM or Workbench instance of `asset_types` matching `query`.

        Under `scope`, every page read; only what the index holds (kind, place, state, labels).

        Raises:
            PortError: the search failed (any page).
        """
        ...


class WorkQueue(Protocol):
    """Pub/Sub: the work topic the dispatchers publish work items to."""

    def publish(self, topic: str, messages: Sequence[Message]) -> list[str]:
        """topics.publish of at most 1,000 messages (one request); the message ids, in order."""
        ...


class Ports(Protocol):
    """The adapters an invocation may use.

    main.py builds each on first use and tests pass in-memory ones; a flow touches only the
    ports it needs, so the others are never built.
    """

    @property
    def compute(self) -> Compute:
        """Compute Engine instances."""
        ...

    @property
    def notebooks(self) -> Notebooks:
        """Workbench instances."""
        ...

    @property
    def tpus(self) -> Tpus:
        """TPU VMs."""
        ...

    @property
    def billing(self) -> Billing:
        """Project billing info."""
        ...

    @property
    def recommender(self) -> Recommender:
        """Idle-VM recommendations."""
        ...

    @property
    def monitoring(self) -> Monitoring:
        """Time series."""
        ...

    @property
    def container(self) -> Container:
        """GKE clusters and node pools."""
        ...

    @property
    def vertex(self) -> Vertex:
        """Vertex AI jobs and endpoints."""
        ...

    @property
    def budgets(self) -> Budgets:
        """Cloud Billing budgets (spend caps), read only."""
        ...

    @property
    def assets(self) -> Assets:
        """Cloud Asset Inventory (the projects under a scope)."""
        ...

    @property
    def work(self) -> WorkQueue:
        """Pub/Sub (the work topic of fan-out)."""
        ...


# -- the reads flows perform, with the IAM permission each needs ------------------------------
# Flows list the reads they do beside their code (flows/*.py); permissions.py adds them to the
# permissions of the action kinds the flow runs. Sources: each method's REST reference page.


@dataclass(frozen=True)
class Read:
    """One API read through a port: the REST method and the IAM permissions it needs."""

    method: str
    permissions: tuple[str, ...]


# GetBudget: "For single-project budgets, the caller can have the following permissions on the
# project instead of billing account permissions: resourcemanager.projects.get,
# billing.resourcebudgets.read" (a spend cap is always a single-project budget):
# https://cloud.google.com/billing/docs/how-to/budget-api-access-control
GET_SPEND_CAP: Final = Read(
    "billingbudgets.billingAccounts.budgets.get",
    ("billing.resourcebudgets.read", "resourcemanager.projects.get"),
)
# https://cloud.google.com/compute/docs/reference/rest/v1/instances/aggregatedList
LIST_INSTANCES: Final = Read("compute.instances.aggregatedList", ("compute.instances.list",))
# https://cloud.google.com/vertex-ai/docs/workbench/reference/rest/v2/projects.locations.instances/list
LIST_NOTEBOOKS: Final = Read(
    "notebooks.projects.locations.instances.list", ("notebooks.instances.list",)
)
# https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.nodes/list
LIST_TPU_NODES: Final = Read("tpu.projects.locations.nodes.list", ("tpu.nodes.list",))
# https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.queuedResources/list
LIST_QUEUED_RESOURCES: Final = Read(
    "tpu.projects.locations.queuedResources.list", ("tpu.queuedResources.list",)
)
# "The current authenticated user must have the resourcemanager.projects.get permission":
# https://cloud.google.com/billing/docs/reference/rest/v1/projects/getBillingInfo
GET_BILLING_INFO: Final = Read(
    "cloudbilling.projects.getBillingInfo", ("resourcemanager.projects.get",)
)
# "Requires the recommender.*.list IAM permission for the specified recommender":
# https://cloud.google.com/recommender/docs/reference/rest/v1/projects.locations.recommenders.recommendations/list
LIST_IDLE_VM_RECOMMENDATIONS: Final = Read(
    "recommender.projects.locations.recommenders.recommendations.list",
    ("recommender.computeInstanceIdleResourceRecommendations.list",),
)
# https://cloud.google.com/monitoring/api/ref_v3/rest/v3/projects.timeSeries/list
LIST_TIME_SERIES: Final = Read(
    "monitoring.projects.timeSeries.list", ("monitoring.timeSeries.list",)
)
# https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions
# ("projects.locations.clusters.list: container.clusters.list on the requested Cloud project")
LIST_CLUSTERS: Final = Read(
    "container.projects.locations.clusters.list", ("container.clusters.list",)
)
# https://cloud.google.com/compute/docs/reference/rest/v1/instanceGroupManagers/get
# (a GKE node pool's size: its managed instance groups' targetSize)
GET_INSTANCE_GROUP: Final = Read(
    "compute.instanceGroupManagers.get", ("compute.instanceGroupManagers.get",)
)
# https://cloud.google.com/vertex-ai/docs/general/iam-permissions ("List a customJob",
# "List a hyperparameterTuningJob", "List an endpoint")
LIST_CUSTOM_JOBS: Final = Read(
    "aiplatform.projects.locations.customJobs.list", ("aiplatform.customJobs.list",)
)
LIST_TUNING_JOBS: Final = Read(
    "aiplatform.projects.locations.hyperparameterTuningJobs.list",
    ("aiplatform.hyperparameterTuningJobs.list",),
)
LIST_ENDPOINTS: Final = Read(
    "aiplatform.projects.locations.endpoints.list", ("aiplatform.endpoints.list",)
)

# https://cloud.google.com/asset-inventory/docs/reference/rest/v1/TopLevel/searchAllResources
# ("The caller must be granted the cloudasset.assets.searchAllResources permission on the
# desired scope"): granted on each scope's folder or organization, not in a project role.
SEARCH_PROJECTS: Final = Read(
    "cloudasset.searchAllResources", ("cloudasset.assets.searchAllResources",)
)
# The same method and permission, over the reapers' workloads: a fan-out dispatcher counts each
# project's candidates (and, with max_stop_percent, the running estate) before it publishes.
COUNT_CANDIDATES: Final = Read(
    "cloudasset.searchAllResources (workloads)", ("cloudasset.assets.searchAllResources",)
)
# https://cloud.google.com/pubsub/docs/access-control (topics.publish: pubsub.topics.publish):
# granted on the work topic only (roles/pubsub.publisher there), to the four dispatchers. Not a
# read, but a call a flow makes outside its actions, declared the same way.
PUBLISH_WORK: Final = Read("pubsub.projects.topics.publish", ("pubsub.topics.publish",))
