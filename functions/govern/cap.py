"""Pure decisions of the budget cap beyond VMs: GKE accelerator pools and NAP, Vertex AI.

(what was read, policy, reason) -> actions; every resource considered yields exactly one action
(a `Skip` says why it is left alone). GKE writes are ordered in two passes: NAP limits first
(they stop the autoscaler creating accelerator nodes anywhere in the cluster), pools after.
Reading is flows/cap.py's job, carrying out execute.py's. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from govern import scopes
from govern.actions import (
    Action,
    CancelCustomJob,
    CancelTuningJob,
    CapAutoprovisioning,
    CapNodePool,
    Skip,
    UndeployEndpoint,
)
from govern.gke import Cluster
from govern.labels import UNDEPLOY_LABEL, UNDEPLOY_VALUE
from govern.models import ActionPolicy
from govern.vertex import Endpoint, VertexJob

AUTOPILOT_REASON = (
    "Autopilot cluster: GKE provisions its nodes and it has no node pools or node "
    "auto-provisioning limits the cap can set; not capped (its workloads keep running)"
)


@dataclass(frozen=True)
class NotCapped(Skip):
    """Left running because the cap cannot reach it by design (an Autopilot cluster).

    The report names each in `not_capped`, and the run says so once at WARNING.
    """


@dataclass(frozen=True)
class OutsideZones(Skip):
    """Running in a governed project, but outside the zones (or regions) its policy lists.

    The cap acts only where the policy says; what it leaves running there is named in the
    report's `not_capped` with this reason, never skipped without a trace.
    """


def outside_zones_reason(policy: ActionPolicy, project: str, location: str) -> str:
    """Why a running resource at `location` of a governed project is not capped."""
    zones = ", ".join(policy.projects[project].zones)
    return (
        f"running in {location}, outside the governed zones of {project} ({zones}) and their "
        "regions: not capped"
    )


@dataclass
class CapPlan:
    """The cap's actions in the order they run: `first` with the stops, `later` after them."""

    first: list[Action] = field(default_factory=list[Action])
    later: list[Action] = field(default_factory=list[Action])


def regions(policy: ActionPolicy, project: str) -> tuple[str, ...]:
    """The regions whose Vertex AI a governed project's cap reads (scopes.regions)."""
    return scopes.regions(policy, project)


def _governed(policy: ActionPolicy, project: str, location: str) -> bool:
    return scopes.governs(policy, project, location)


def _exempt(policy: ActionPolicy) -> str:
    key, value = policy.exempt_label
    return f"exempt ({key}={value})"


def cap_clusters(clusters: Iterable[Cluster], policy: ActionPolicy, reason: str) -> CapPlan:
    """Close NAP's accelerator limits and scale GPU/TPU pools to zero in governed clusters.

    Exempt clusters and pools are left alone, Autopilot clusters too (NotCapped: nothing the
    cap sets exists there); pools without accelerators (system pools) are never touched. Every
    other accelerator pool gets a CapNodePool, capped before or not: whether it still holds
    nodes is known only from its instance groups, which the action's flow reads.
    """
    plan = CapPlan()
    for cluster in sorted(clusters, key=lambda c: c.target):
        if not _governed(policy, cluster.project, cluster.location):
            if cluster.project in policy.projects and _accelerated(cluster, policy):
                reason = outside_zones_reason(policy, cluster.project, cluster.location)
                plan.first.append(OutsideZones(cluster.target, reason))
            continue
        if policy.is_exempt(cluster.resource_labels):
            plan.first.append(Skip(cluster.target, _exempt(policy)))
            continue
        if cluster.autopilot:
            plan.first.append(NotCapped(cluster.target, AUTOPILOT_REASON))
            continue
        if cluster.nap_open():
            plan.first.append(CapAutoprovisioning(cluster.target, reason, cluster=cluster))
        elif cluster.node_autoprovisioning and cluster.accelerator_limits():
            plan.first.append(Skip(cluster.target, "NAP accelerator limits already 0"))
        for pool in cluster.node_pools:
            if pool.accelerator_kind is None:
                plan.later.append(Skip(pool.target, "no accelerators (system pool): never touched"))
            elif policy.is_exempt(pool.resource_labels):
                plan.later.append(Skip(pool.target, _exempt(policy)))
            else:
                # A capped pool too: its label and autoscaling off say the cap ran, not that it
                # is still empty (a hand resize after the cap leaves both). The action reads
                # its instance groups and skips it at 0 nodes.
                plan.later.append(CapNodePool(pool.target, reason, pool=pool))
    return plan


def _accelerated(cluster: Cluster, policy: ActionPolicy) -> bool:
    """True if the cap would act on the cluster were it governed: an accelerator pool or NAP."""
    if policy.is_exempt(cluster.resource_labels):
        return False
    pools = [p for p in cluster.node_pools if p.accelerator_kind is not None]
    return (
        cluster.autopilot
        or bool(cluster.nap_open())
        or any(not policy.is_exempt(p.resource_labels) for p in pools)
    )


def cancel_jobs(jobs: Iterable[VertexJob], policy: ActionPolicy, reason: str) -> list[Action]:
    """Cancel every queued, pending or running training job in governed regions, exempt aside."""
    actions: list[Action] = []
    for job in sorted(jobs, key=lambda j: j.target):
        if not job.active or not _governed(policy, job.project, job.region):
            continue
        if policy.is_exempt(job.labels):
            actions.append(Skip(job.target, _exempt(policy)))
        elif job.kind == "customJobs":
            actions.append(CancelCustomJob(job.target, reason, job=job))
        else:
            actions.append(CancelTuningJob(job.target, reason, job=job))
    return actions


def undeploy_endpoints(
    endpoints: Iterable[Endpoint], policy: ActionPolicy, reason: str
) -> list[Action]:
    """Undeploy the models of opted-in endpoints, only where the policy opts in too."""
    if not policy.undeploy_endpoints:
        return []
    actions: list[Action] = []
    for endpoint in sorted(endpoints, key=lambda e: e.target):
        if not endpoint.deployed or not _governed(policy, endpoint.project, endpoint.region):
            continue
        if policy.is_exempt(endpoint.labels):
            actions.append(Skip(endpoint.target, _exempt(policy)))
        elif endpoint.labels.get(UNDEPLOY_LABEL) != UNDEPLOY_VALUE:
            actions.append(
                Skip(
                    endpoint.target,
                    f"serving: not opted in ({UNDEPLOY_LABEL}={UNDEPLOY_VALUE} absent)",
                )
            )
        else:
            actions.append(UndeployEndpoint(endpoint.target, reason, endpoint=endpoint))
    return actions
