"""reap_idle_vms's flow: list idle-VM recommendations, read their VMs, reap the idle ones.

Lists ACTIVE and CLAIMED recommendations (mlgov's own stale claims are resumed, claims.py);
only the projects that have recommendations get their instances listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Final

from govern import blast, claims, decide
from govern.actions import ReapRecommendation, ReleaseClaim
from govern.execute import ReadCall, Runner
from govern.flows import scoped
from govern.flows.base import Flow, inventory
from govern.flows.guarded import SINGLE_RUN, Bounds, reap
from govern.models import ActionPolicy, Report, Workload
from govern.ports import (
    COUNT_CANDIDATES,
    LIST_IDLE_VM_RECOMMENDATIONS,
    LIST_INSTANCES,
    PUBLISH_WORK,
    SEARCH_PROJECTS,
    Ports,
)

REAP_IDLE_VMS: Final = Flow(
    "reap_idle_vms",
    reads=(
        SEARCH_PROJECTS,
        COUNT_CANDIDATES,  # the running estate, with max_stop_percent
        PUBLISH_WORK,
        LIST_IDLE_VM_RECOMMENDATIONS,
        LIST_INSTANCES,
    ),
    actions=(ReapRecommendation, ReleaseClaim),
)


def reap_idle_vms(
    ports: Ports, runner: Runner, now: datetime, bounds: Bounds = SINGLE_RUN
) -> Report:
    """Claim, stop and mark every actionable idle-VM recommendation in the governed zones.

    `now` (UTC) is when the run started: claims carry it, and older claims are judged by it.
    The policy's scopes are resolved first (flows/scoped.py). A project governed in every zone
    (found through a scope) has its instances listed first, and its recommendations read only
    in the zones where it runs a VM the recommender could flag (never every zone of the world).
    Within the blast-radius limits (flows/guarded.py), plus what `bounds` adds: the running
    estate is the instances it listed (the projects with recommendations, and every project
    governed in every zone).
    """
    scoped.govern_scopes(runner, ports, tuple(runner.policy.scopes))
    policy, recommender = runner.policy, ports.recommender
    every_zone = sorted(p for p, proj in policy.projects.items() if proj.every_zone)
    listed = inventory(runner, ports, every_zone, kinds=("compute",))
    pairs = [(p, z) for p, proj in sorted(policy.projects.items()) for z in proj.zones]
    pairs += recommendable_zones(listed, policy)

    reads = [
        ReadCall("recommender list", p, recommender.list_recommendations, (p, z)) for p, z in pairs
    ]
    recs = [r for chunk in runner.gather_all(reads) for r in chunk]
    projects = sorted({r.project for r in recs} - set(every_zone))
    instances = listed + inventory(runner, ports, projects, kinds=("compute",))
    actions = decide.reap_idle(recs, instances, policy, claims.Run(runner.run_id, now))
    running = blast.running_estate(instances, policy)
    return reap(REAP_IDLE_VMS.entry_point, actions, ports, runner, running=running, bounds=bounds)


def recommendable_zones(
    instances: Sequence[Workload], policy: ActionPolicy
) -> list[tuple[str, str]]:
    """(project, zone) where a running VM could be flagged idle AND reaped: the only zones read.

    "The idle VM recommender does not generate recommendations for VMs with GPUs or TPUs, or for GKE
    nodes" (Google's idle VM recommendations docs), nor for VMs with Local SSDs; and a
    recommendation for a VM the reaper would leave alone (exempt, or managed by GKE, a managed
    instance group, Workbench or Dataproc: decide.py) would only be skipped. Recommender reads are
    an organization-level quota (pacing.py): a zone with no such VM is not read.
    """
    return sorted(
        {
            (w.project, w.zone)
            for w in instances
            if w.kind == "compute"
            and w.running
            and w.gpus == 0
            and w.local_ssds == 0
            and w.managed_by is None
            and not policy.is_exempt(w.labels)
        }
    )
