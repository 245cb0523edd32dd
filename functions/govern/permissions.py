"""The IAM permissions of each function, derived from what its flow declares.

`PERMISSIONS[entry_point]` is the sorted union of the permissions of the reads the flow performs
and of the action kinds it can run (flows/*.py declare both; actions/ and ports.py state each
one's permissions with its source). governance/automation.py keeps its own literal copy
(governance never imports functions/); tests/contract/test_permissions.py pins the two equal,
and tests/functions/test_permissions.py checks them against the REST calls each flow makes.
"""

from __future__ import annotations

from typing import Final

from govern.flows import FLOWS

EXTRA_GRANTS: Final[dict[str, tuple[str, ...]]] = {
    # reap_idle_gpus stops Workbench VMs but never lists Workbench instances. The grant dates
    # from when StopNotebook carried the list permission; governance/automation.py grants it
    # too, and the two must stay equal. Remove it here and there together.
    "reap_idle_gpus": ("notebooks.instances.list",),
}
"""Granted beyond what the flow needs; kept only to match the deployed role."""

PERMISSIONS: Final[dict[str, tuple[str, ...]]] = {
    flow.entry_point: tuple(sorted({*flow.permissions, *EXTRA_GRANTS.get(flow.entry_point, ())}))
    for flow in FLOWS
}
