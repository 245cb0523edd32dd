"""The budget cap's reach beyond VMs: read GKE clusters and Vertex AI, decide what to cap.

Part of on_budget_alert's flow (flows/budget.py runs `first` with the stops and `later` after
them). Every read goes through `Runner.gather`, so a listing that still fails after retries is
handled by the framework's failure rules like the VM inventory's. Decisions are govern/cap.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from govern import cap
from govern.actions import (
    Action,
    CancelCustomJob,
    CancelTuningJob,
    CapAutoprovisioning,
    CapNodePool,
    UndeployEndpoint,
)
from govern.execute import ReadCall, Runner
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


def plan(runner: Runner, ports: Ports, projects: Sequence[str], reason: str) -> cap.CapPlan:
    """Read clusters (per project) and Vertex AI (per governed region), then decide.

    Endpoints are read only where the policy opts in to undeploying them.
    """
    policy = runner.policy
    # One list of reads of three kinds (ReadCall is invariant); sorted by type below.
    reads: list[ReadCall[Any]] = []
    for project in projects:
        reads.append(ReadCall("gke list", project, ports.container.list_clusters, (project,)))
        for region in cap.regions(policy, project):
            reads += [
                ReadCall("vertex list", project, ports.vertex.list_jobs, (project, region, kind))
                for kind in JOB_KINDS
            ]
            if policy.undeploy_endpoints:
                reads.append(
                    ReadCall(
                        "vertex endpoints", project, ports.vertex.list_endpoints, (project, region)
                    )
                )
    # gather_all: a read that failed, or that the time budget never started, is a run error.
    found = [item for chunk in runner.gather_all(reads) for item in chunk]
    clusters = [c for c in found if isinstance(c, Cluster)]
    result = cap.cap_clusters(clusters, policy, reason)
    jobs = [j for j in found if isinstance(j, VertexJob)]
    endpoints = [e for e in found if isinstance(e, Endpoint)]
    result.first += cap.cancel_jobs(jobs, policy, reason)
    result.first += cap.undeploy_endpoints(endpoints, policy, reason)
    return result
