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

from govern.gke import Autoscaling, Cluster, NodePool, ResourceLimit
from govern.models import FoundProject, QueuedResource, Recommendation, SpendCapState, Workload
from govern.vertex import Endpoint, JobKind, VertexJob
from govern.workitems import Message

STOPPED = {"compute": "TERMINATED", "notebook": "STOPPED", "tpu": "STOPPED"}


@dataclass
class MemoryCloud:
    """State behind the memory ports, and the log of calls made to them."""

    workloads: list[Workload] = field(default_factory=list)
    queued: list[QueuedResource] = field(default_factory=list)  # TPU queued resources
    recommendations: list[Recommendation] = field(default_factory=list)
    billing: dict[str, bool] = field(default_factory=dict)
    utilization: dict[str, float] = field(default_factory=dict)
    duty_cycle: dict[str, float] = field(default_factory=dict)
    clusters: dict[str, Cluster] = field(default_factory=dict)
    pool_sizes: dict[str, int] = field(default_factory=dict)
    group_sizes: dict[str, int] = field(default_factory=dict)  # instance group name -> size
    jobs: list[VertexJob] = field(default_factory=list)
    endpoints: list[Endpoint] = field(default_factory=list)
    rec_states: dict[str, str] = field(default_factory=dict)
    spend_caps: dict[str, SpendCapState] = field(default_factory=dict)
    scopes: dict[str, list[FoundProject]] = field(default_factory=dict)  # scope -> projects
    published: list[tuple[str, Message]] = field(default_factory=list)  # (topic, message)
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
            if w.kind == kind and w.project == project and zone in (None, "-", w.zone)
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


class _MemoryListed(_MemoryWorkloads):
    """What the Compute and Notebooks ports share: a project-wide list."""

    def list_instances(self, project: str) -> list[Workload]:
        self.cloud.record(f"{self.port}.list_instances", project, project)
        return self.cloud._listed(self.kind, project)

    def group_size(self, project: str, zone: str, name: str) -> int:
        self.cloud.record("compute.group_size", name, project, zone, name)
        return self.cloud.group_sizes.get(name, 0)


class MemoryInstances(_MemoryListed):
    """ports.Compute (port "compute")."""

    def wait_stopped(self, project: str, zone: str, name: str) -> str:
        # A VM left STOPPING has stopped by the time it is read again (the fake cloud varies it).
        self.cloud.record("compute.wait_stopped", name, project, zone, name)
        with self.cloud._lock:
            for i, w in enumerate(self.cloud.workloads):
                if (w.kind, w.project, w.zone, w.name) == ("compute", project, zone, name):
                    if w.stopping:
                        self.cloud.workloads[i] = dataclasses.replace(w, state="TERMINATED")
                    return self.cloud.workloads[i].state
        return "GONE"

    def wait_operation(self, project: str, zone: str, operation: str) -> str:
        # Keyed by the operation name (`operation-<instance>`) for `errors`.
        self.cloud.record("compute.wait_operation", operation, project, zone, operation)
        return "DONE"


class MemoryNotebooks(_MemoryListed):
    """ports.Notebooks (port "notebooks")."""

    def wait_operation(self, operation: str) -> str:
        self.cloud.record("notebooks.wait_operation", operation, operation)
        return "done"


class MemoryTpus(_MemoryWorkloads):
    def wait_operation(self, operation: str) -> str:
        self.cloud.record("tpus.wait_operation", operation, operation)
        return "done"

    def list_nodes(self, project: str, zone: str) -> list[Workload]:
        self.cloud.record("tpus.list_nodes", project, project, zone)
        return self.cloud._listed("tpu", project, zone)

    def list_queued_resources(self, project: str, zone: str) -> list[QueuedResource]:
        self.cloud.record("tpus.list_queued_resources", project, project, zone)
        # `-` lists every zone, like the real API's wildcard location (and _listed's).
        return [q for q in self.cloud.queued if q.project == project and zone in ("-", q.zone)]

    def delete_queued_resource(self, name: str) -> str:
        self.cloud.record("tpus.delete_queued_resource", name.rsplit("/", 1)[-1], name)
        with self.cloud._lock:
            self.cloud.queued = [q for q in self.cloud.queued if q.path != name]
        return f"{name.rsplit('/queuedResources/', 1)[0]}/operations/delete-{name}"


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

    def tpu_duty_cycle(
        self, project: str, window_minutes: int, node_names: Sequence[str]
    ) -> Mapping[str, float]:
        self.cloud.record(
            "monitoring.tpu_duty_cycle", project, project, window_minutes, tuple(node_names)
        )
        return {n: u for n, u in self.cloud.duty_cycle.items() if n in node_names}


class MemoryContainer:
    """ports.Container: clusters keyed by path; writes replace the frozen models."""

    def __init__(self, cloud: MemoryCloud) -> None:
        self.cloud = cloud

    def list_clusters(self, project: str) -> list[Cluster]:
        self.cloud.record("container.list_clusters", project, project)
        return [c for c in self.cloud.clusters.values() if c.project == project]

    def get_cluster(self, project: str, location: str, name: str) -> Cluster:
        self.cloud.record("container.get_cluster", name, project, location, name)
        return self.cloud.clusters[f"projects/{project}/locations/{location}/clusters/{name}"]

    def _pool(self, pool: NodePool, **changes: object) -> str:
        path = pool.path.rsplit("/nodePools/", 1)[0]
        cluster = self.cloud.clusters[path]
        pools = tuple(
            dataclasses.replace(p, **changes) if p.name == pool.name else p
            for p in cluster.node_pools
        )
        self.cloud.clusters[path] = dataclasses.replace(cluster, node_pools=pools)
        return f"operation-{pool.name}"

    def set_pool_labels(self, pool: NodePool, labels: Mapping[str, str]) -> str:
        self.cloud.record("container.set_pool_labels", pool.name, pool.name, dict(labels))
        return self._pool(pool, resource_labels=dict(labels))

    def set_pool_autoscaling(self, pool: NodePool, autoscaling: Autoscaling) -> str:
        self.cloud.record("container.set_pool_autoscaling", pool.name, pool.name, autoscaling)
        return self._pool(pool, autoscaling=autoscaling)

    def request_pool_size(self, pool: NodePool, nodes: int) -> str:
        self.cloud.record("container.request_pool_size", pool.name, pool.name, nodes)
        self.cloud.pool_sizes[pool.path] = nodes
        return f"operation-{pool.name}"

    def wait_operation(self, project: str, location: str, operation: str) -> str:
        self.cloud.record("container.wait_operation", operation, project, location, operation)
        return operation

    def set_cluster_labels(self, cluster: Cluster, labels: Mapping[str, str]) -> str:
        self.cloud.record("container.set_cluster_labels", cluster.name, cluster.name, dict(labels))
        current = self.cloud.clusters[cluster.path]
        self.cloud.clusters[cluster.path] = dataclasses.replace(
            current, resource_labels=dict(labels)
        )
        return f"operation-{cluster.name}"

    def set_resource_limits(self, cluster: Cluster, limits: Sequence[ResourceLimit]) -> str:
        self.cloud.record(
            "container.set_resource_limits", cluster.name, cluster.name, tuple(limits)
        )
        current = self.cloud.clusters[cluster.path]
        self.cloud.clusters[cluster.path] = dataclasses.replace(current, limits=tuple(limits))
        return f"operation-{cluster.name}"


class MemoryVertex:
    """ports.Vertex: jobs and endpoints in lists; cancel moves a job to CANCELLING."""

    def __init__(self, cloud: MemoryCloud) -> None:
        self.cloud = cloud

    def list_jobs(self, project: str, region: str, kind: JobKind) -> list[VertexJob]:
        self.cloud.record("vertex.list_jobs", project, project, region, kind)
        return [
            j
            for j in self.cloud.jobs
            if (j.project, j.region, j.kind) == (project, region, kind) and j.active
        ]

    def cancel_job(self, job: VertexJob) -> None:
        self.cloud.record("vertex.cancel_job", job.job_id, job.job_id)
        self.cloud.jobs = [
            dataclasses.replace(j, state="JOB_STATE_CANCELLING") if j == job else j
            for j in self.cloud.jobs
        ]

    def list_endpoints(self, project: str, region: str) -> list[Endpoint]:
        self.cloud.record("vertex.list_endpoints", project, project, region)
        return [e for e in self.cloud.endpoints if (e.project, e.region) == (project, region)]

    def get_endpoint(self, project: str, region: str, endpoint_id: str) -> Endpoint:
        self.cloud.record("vertex.get_endpoint", endpoint_id, project, region, endpoint_id)
        return next(
            e
            for e in self.cloud.endpoints
            if (e.project, e.region, e.endpoint_id) == (project, region, endpoint_id)
        )

    def set_endpoint_labels(self, endpoint: Endpoint, labels: Mapping[str, str]) -> None:
        self.cloud.record(
            "vertex.set_endpoint_labels", endpoint.endpoint_id, endpoint.endpoint_id, dict(labels)
        )
        self.cloud.endpoints = [
            dataclasses.replace(e, labels=dict(labels)) if e.path == endpoint.path else e
            for e in self.cloud.endpoints
        ]

    def undeploy_model(
        self, endpoint: Endpoint, deployed_model_id: str, traffic_split: Mapping[str, int]
    ) -> str:
        self.cloud.record(
            "vertex.undeploy_model",
            endpoint.endpoint_id,
            endpoint.endpoint_id,
            deployed_model_id,
            dict(traffic_split),
        )
        return f"operation-{deployed_model_id}"

    def wait_operation(self, region: str, operation: str) -> str:
        self.cloud.record("vertex.wait_operation", operation, region, operation)
        return "done"


class MemoryBudgets:
    """Spend-cap states by budget name (a missing one raises ports.Gone)."""

    def __init__(self, cloud: MemoryCloud) -> None:
        self.cloud = cloud

    def get_spend_cap(self, name: str) -> SpendCapState:
        from govern import ports

        self.cloud.record("budgets.get_spend_cap", name, name)
        if name not in self.cloud.spend_caps:
            raise ports.Gone(f"billingbudgets budgets.get {name}: not found")
        return self.cloud.spend_caps[name]


class MemoryAssets:
    """The projects each scope holds (an unknown scope raises ports.PortError, like a 403)."""

    def __init__(self, cloud: MemoryCloud) -> None:
        self.cloud = cloud

    def search_projects(self, scope: str) -> list[FoundProject]:
        from govern import ports

        self.cloud.record("assets.search_projects", scope, scope)
        if scope not in self.cloud.scopes:
            raise ports.PortError(f"asset search {scope}: HTTP 403 permission denied")
        return list(self.cloud.scopes[scope])

    def search_workloads(
        self, scope: str, asset_types: Sequence[str], query: str
    ) -> list[Workload]:
        """The live workloads of the scope's projects (an index that is never behind).

        Only the queries the dispatchers send: `labels.K:*`, and `state:S` / `state:(S OR ...)`.
        """
        from govern import census, ports

        self.cloud.record("assets.search_workloads", scope, scope, tuple(asset_types), query)
        if scope not in self.cloud.scopes:
            raise ports.PortError(f"asset search {scope}: HTTP 403 permission denied")
        kinds = {
            census.COMPUTE: "compute",
            census.TPU: "tpu",
            census.WORKBENCH: "notebook",
        }
        wanted = {kinds[t] for t in asset_types}
        projects = {p.project_id for p in self.cloud.scopes[scope]}
        if query.startswith("labels."):
            key = query.removeprefix("labels.").removesuffix(":*")
            match = lambda w: key in w.labels  # noqa: E731
        else:
            states = set(query.removeprefix("state:").strip("()").split(" OR "))
            match = lambda w: w.state in states  # noqa: E731
        return [
            w
            for w in self.cloud.workloads
            if w.kind in wanted and w.project in projects and match(w)
        ]


class MemoryWork:
    """Pub/Sub: records each published message; ids count up."""

    def __init__(self, cloud: MemoryCloud) -> None:
        self.cloud = cloud

    def publish(self, topic: str, messages: Sequence[Message]) -> list[str]:
        self.cloud.record("work.publish", topic, topic, len(messages))
        with self.cloud._lock:
            first = len(self.cloud.published)
            self.cloud.published += [(topic, m) for m in messages]
        return [str(first + i + 1) for i in range(len(messages))]


class MemoryPorts:
    """govern.ports.Ports over one MemoryCloud."""

    def __init__(self, cloud: MemoryCloud) -> None:
        self.compute = MemoryInstances(cloud, "compute", "compute")
        self.notebooks = MemoryNotebooks(cloud, "notebooks", "notebook")
        self.tpus = MemoryTpus(cloud, "tpus", "tpu")
        self.billing = MemoryBilling(cloud)
        self.recommender = MemoryRecommender(cloud)
        self.monitoring = MemoryMonitoring(cloud)
        self.container = MemoryContainer(cloud)
        self.vertex = MemoryVertex(cloud)
        self.budgets = MemoryBudgets(cloud)
        self.assets = MemoryAssets(cloud)
        self.work = MemoryWork(cloud)
