"""The IAM permissions of each function, derived from what its flow declares.

`PERMISSIONS[entry_point]` is the sorted union of the permissions of the reads the flow performs
and of the action kinds it can run (flows/*.py declare both; actions/ and ports.py state each
one's permissions with its source), and nothing else: a function's custom role holds exactly
what its code calls. governance/components/automation.py keeps its own literal copy (governance
never imports functions/); tests/contract/test_permissions.py pins the two equal, and
tests/functions/test_permissions.py checks them against the REST calls each flow makes.
"""

from __future__ import annotations

from typing import Final

from govern.flows import FLOWS

PERMISSIONS: Final[dict[str, tuple[str, ...]]] = {
    flow.entry_point: flow.permissions for flow in FLOWS
}

GRANTED_ELSEWHERE: Final[dict[str, str]] = {
    "cloudasset.assets.searchAllResources": "scope",
    "pubsub.topics.publish": "work topic",
}
"""Permissions a project custom role cannot carry usefully, and where each is granted instead.

An Asset Inventory search is authorized on the scope searched (each scope's folder or
organization); publishing, on the work topic alone (roles/pubsub.publisher there, for the four
dispatchers only). Every other permission of PERMISSIONS goes in the function's role, in each
governed project, and on each scope's parent for the projects found through it.
"""
