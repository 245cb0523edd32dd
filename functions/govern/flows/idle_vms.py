"""reap_idle_vms's flow: list idle-VM recommendations, read their VMs, reap the idle ones.

Lists ACTIVE and CLAIMED recommendations (mlgov's own stale claims are resumed, claims.py);
only the projects that have recommendations get their instances listed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from govern import blast, claims, decide
from govern.actions import ReapRecommendation, ReleaseClaim
from govern.execute import ReadCall, Runner
from govern.flows.base import Flow, inventory
from govern.flows.guarded import SINGLE_RUN, Bounds, reap
from govern.models import Report
from govern.ports import LIST_IDLE_VM_RECOMMENDATIONS, LIST_INSTANCES, Ports

REAP_IDLE_VMS: Final = Flow(
    "reap_idle_vms",
    reads=(LIST_IDLE_VM_RECOMMENDATIONS, LIST_INSTANCES),
    actions=(ReapRecommendation, ReleaseClaim),
)


def reap_idle_vms(
    ports: Ports, runner: Runner, now: datetime, bounds: Bounds = SINGLE_RUN
) -> Report:
    """Claim, stop and mark every actionable idle-VM recommendation in the governed zones.

    `now` (UTC) is when the run started: claims carry it, and older claims are judged by it.
    Within the blast-radius limits (flows/guarded.py): the running estate is the instances of
    the projects that have recommendations (the only ones it reads).
    """
    policy, recommender = runner.policy, ports.recommender
    pairs = [(p, z) for p, proj in sorted(policy.projects.items()) for z in proj.zones]

    reads = [
        ReadCall("recommender list", p, recommender.list_recommendations, (p, z)) for p, z in pairs
    ]
    recs = [r for chunk in runner.gather_all(reads) for r in chunk]
    projects = sorted({r.project for r in recs})
    instances = inventory(runner, ports, projects, kinds=("compute",))
    actions = decide.reap_idle(recs, instances, policy, claims.Run(runner.run_id, now))
    running = blast.running_estate(instances, policy)
    return reap(REAP_IDLE_VMS.entry_point, actions, ports, runner, running=running, bounds=bounds)
