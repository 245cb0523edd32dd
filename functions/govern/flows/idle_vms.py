"""reap_idle_vms's flow: list ACTIVE idle-VM recommendations, read their VMs, reap the idle ones.

Only the projects that have recommendations get their instances listed.
"""

from __future__ import annotations

from typing import Final

from govern import decide, execute
from govern.actions import ReapRecommendation
from govern.execute import Runner
from govern.flows.base import Flow, inventory
from govern.models import Recommendation, Report
from govern.ports import LIST_IDLE_VM_RECOMMENDATIONS, LIST_INSTANCES, Ports

REAP_IDLE_VMS: Final = Flow(
    "reap_idle_vms",
    reads=(LIST_IDLE_VM_RECOMMENDATIONS, LIST_INSTANCES),
    actions=(ReapRecommendation,),
)


def reap_idle_vms(ports: Ports, runner: Runner) -> Report:
    """Claim, stop and mark every actionable idle-VM recommendation in the governed zones."""
    policy, recommender = runner.policy, ports.recommender
    pairs = [(p, z) for p, proj in sorted(policy.projects.items()) for z in proj.zones]

    def recommendations(pz: tuple[str, str]) -> list[Recommendation]:
        return runner.gather("recommender list", pz[0], recommender.list_active, *pz)

    recs = [r for chunk in runner.map(recommendations, pairs) if chunk for r in chunk]
    projects = sorted({r.project for r in recs})
    instances = inventory(runner, ports, projects, kinds=("compute",))
    actions = decide.reap_idle(recs, instances, policy)
    results = execute.apply(
        actions, ports, runner, REAP_IDLE_VMS.entry_point, dry_run=policy.dry_run
    )
    return execute.report(REAP_IDLE_VMS.entry_point, results, runner)
