"""IAM permissions each entry point needs, derived from the action classes it can run.

The deployer (governance/automation.py) builds one custom role per function from
`PERMISSIONS`; a contract test compares the two. Each Action class states its own permissions
(models.py), c7n-style; this module only says which actions each entry point may run.
"""

from __future__ import annotations

from govern.models import (
    Action,
    DisableBilling,
    ReadGpuUtilization,
    ReapRecommendation,
    StopInstance,
    StopNotebook,
    StopTpuNode,
)

ENTRY_POINT_ACTIONS: dict[str, tuple[type[Action], ...]] = {
    "on_budget_alert": (StopInstance, StopNotebook, StopTpuNode, DisableBilling),
    "reap_idle_vms": (ReapRecommendation,),
    "reap_expired": (StopInstance, StopNotebook, StopTpuNode),
    "reap_idle_gpus": (StopInstance, StopNotebook, ReadGpuUtilization),
}


def permissions_for(actions: tuple[type[Action], ...]) -> tuple[str, ...]:
    """Sorted union of the permissions the given action classes state."""
    return tuple(sorted({perm for action in actions for perm in action.permissions}))


PERMISSIONS: dict[str, tuple[str, ...]] = {
    ep: permissions_for(a) for ep, a in ENTRY_POINT_ACTIONS.items()
}
