"""The budget cap's reach beyond VMs: read GKE clusters and Vertex AI, decide what to cap.

Part of on_budget_alert's flow (flows/budget.py runs `first` with the stops and `later` after
them). Every read goes through `Runner.gather`, so a listing that still fails after retries is
handled by the framework's failure rules like the VM inventory's. `sized` reads the node count of
the pools to cap from their instance groups (the record restore brings them back to); the budget
flow runs it beside the first actions, so no stop waits for it. Decisions are govern/cap.py's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
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
from govern.gke import Cluster, InstanceGroup
from govern.ports import (
    GET_INSTANCE_GROUP,
    LIST_CLUSTERS,
    LIST_CUSTOM_JOBS,
    LIST_ENDPOINTS,
    LIST_TUNING_JOBS,
    PortError,
    Ports,
    Read,
)
from govern.vertex import JOB_KINDS, Endpoint, VertexJob

CAP_READS: Final[tuple[Read, ...]] = (
    LIST_CLUSTERS,
    GET_INSTANCE_GROUP,
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
    # Job cancels first: one quick call each, while a cluster's NAP steps wait for two GKE
    # operations; with a few threads per work item, no cancel waits behind them.
    result.first[:0] = cap.cancel_jobs(jobs, policy, reason)
    result.first += cap.undeploy_endpoints(endpoints, policy, reason)
    return result


@dataclass(frozen=True)
class _GroupSize:
    """One instance group's targetSize, or why it could not be read."""

    group: InstanceGroup
    nodes: int | None
    problem: str = ""


def sized(runner: Runner, ports: Ports, actions: list[Action]) -> list[Action]:
    """The pool actions with each pool's node count now (its instance groups' sizes summed).

    The size is what restore brings a pool back to (not its initialNodeCount). A size that
    cannot be read does not hold up the cap: stopping spend comes first, and the pool's record
    then says its size is unknown.
    """
    wanted = [a for a in actions if isinstance(a, CapNodePool) and a.needs_size]
    groups = [g for a in wanted for g in a.pool.instance_groups]

    def size(project: str, zone: str, name: str) -> list[_GroupSize]:
        group = InstanceGroup(project, zone, name)
        try:
            return [_GroupSize(group, ports.compute.group_size(project, zone, name))]
        except PortError as err:
            return [_GroupSize(group, None, str(err))]

    reads = [
        ReadCall("instance group get", g.project, size, (g.project, g.zone, g.name)) for g in groups
    ]
    found = {s.group: s for chunk in runner.gather_all(reads) for s in chunk}
    sized: list[Action] = []
    for action in actions:
        if not isinstance(action, CapNodePool) or not action.needs_size:
            sized.append(action)
            continue
        pool = action.pool
        read = [found.get(g) for g in pool.instance_groups]
        problems = [
            r.problem if r else "not read in time" for r in read if not r or r.nodes is None
        ]
        problem = problems[0] if problems else ""
        if not pool.instance_groups:
            problem = "no instance groups listed"
        nodes = None if problem else sum(r.nodes or 0 for r in read if r)
        # Each zone's own size too: restore sets one count for every zone (setSize), so it
        # needs the smallest zone to never raise any zone above its size at cap time.
        by_zone = sorted((r.group.zone, r.nodes or 0) for r in read if r)
        zone_nodes = None if problem else tuple(n for _, n in by_zone)
        sized.append(
            dataclasses.replace(action, nodes=nodes, zone_nodes=zone_nodes, size_note=problem)
        )
    return sized
