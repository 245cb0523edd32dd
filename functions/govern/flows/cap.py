"""The budget cap's reach beyond VMs: read GKE clusters and Vertex AI, decide what to cap.

Part of on_budget_alert's flow (flows/budget.py runs `first` with the stops and `later` after
them). Every read goes through `Runner.gather`, so a listing that still fails after retries is
handled by the framework's failure rules like the VM inventory's. Decisions are govern/cap.py's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Final

from govern import cap
from govern.actions import (
    Action,
    CancelCustomJob,
    CancelTuningJob,
    CapAutoprovisioning,
    CapNodePool,
    UndeployEndpoint,
)
from govern.execute import Runner
from govern.gke import Cluster
from govern.ports import (
    LIST_CLUSTERS,
    LIST_CUSTOM_JOBS,
    LIST_ENDPOINTS,
    LIST_TUNING_JOBS,
    Ports,
    Read,
)
from govern.vertex import JOB_KINDS, Endpoint, VertexJob

CAP_READS: Final[tuple[Read, ...]] = (
    LIST_CLUSTERS,
    LIST_CUSTOM_JOBS,
    LIST_TUNING_JOBS,
    LIST_ENDPOINTS,
)
CAP_ACTIONS: Final[tuple[type[Action], ...]] = (
    CapAutoprovisioning,
    CapNodePool,
    CancelCustomJob,
    CancelTuningJob,
    UndeployEndpoint,
)

Found = list[Cluster] | list[VertexJob] | list[Endpoint]


def plan(runner: Runner, ports: Ports, projects: Sequence[str], reason: str) -> cap.CapPlan:
    """Read clusters (per project) and Vertex AI (per governed region), then decide.

    Endpoints are read only where the policy opts in to undeploying them.
    """
    policy = runner.policy
    tasks: list[Callable[[], Found]] = []
    for project in projects:
        container = ports.container
        tasks.append(
            functools.partial(runner.gather, "gke list", project, container.list_clusters, project)
        )
        for region in cap.regions(policy, project):
            vertex = ports.vertex
            tasks += [
                functools.partial(
                    runner.gather, "vertex list", project, vertex.list_jobs, project, region, kind
                )
                for kind in JOB_KINDS
            ]
            if policy.undeploy_endpoints:
                tasks.append(
                    functools.partial(
                        runner.gather,
                        "vertex endpoints",
                        project,
                        vertex.list_endpoints,
                        project,
                        region,
                    )
                )
    found = [item for chunk in runner.map(lambda task: task(), tasks) if chunk for item in chunk]
    clusters = [c for c in found if isinstance(c, Cluster)]
    result = cap.cap_clusters(clusters, policy, reason)
    jobs = [j for j in found if isinstance(j, VertexJob)]
    endpoints = [e for e in found if isinstance(e, Endpoint)]
    result.first += cap.cancel_jobs(jobs, policy, reason)
    result.first += cap.undeploy_endpoints(endpoints, policy, reason)
    return result
