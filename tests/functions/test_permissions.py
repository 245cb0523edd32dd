"""The IAM permissions per entry point: derived from the action classes, pinned literally."""

from __future__ import annotations

import main

from govern.models import (
    DisableBilling,
    ReapRecommendation,
    StopInstance,
    StopNotebook,
    StopTpuNode,
)
from govern.permissions import ENTRY_POINT_ACTIONS, PERMISSIONS, permissions_for

EXPECTED = {
    "on_budget_alert": (
        "compute.instances.list",
        "compute.instances.stop",
        "notebooks.instances.list",
        "notebooks.instances.stop",
        "resourcemanager.projects.deleteBillingAssignment",
        "resourcemanager.projects.get",
        "tpu.nodes.list",
        "tpu.nodes.stop",
    ),
    "reap_idle_vms": (
        "compute.instances.list",
        "compute.instances.stop",
        "recommender.computeInstanceIdleResourceRecommendations.list",
        "recommender.computeInstanceIdleResourceRecommendations.update",
    ),
    "reap_expired": (
        "compute.instances.list",
        "compute.instances.stop",
        "notebooks.instances.list",
        "notebooks.instances.stop",
        "tpu.nodes.list",
        "tpu.nodes.stop",
    ),
    "reap_idle_gpus": (
        "compute.instances.list",
        "compute.instances.stop",
        "monitoring.timeSeries.list",
        "notebooks.instances.list",
        "notebooks.instances.stop",
    ),
}


def test_permissions_are_pinned():
    assert PERMISSIONS == EXPECTED


def test_permissions_derive_from_action_classes():
    for entry_point, actions in ENTRY_POINT_ACTIONS.items():
        assert PERMISSIONS[entry_point] == permissions_for(actions)
    assert "resourcemanager.projects.deleteBillingAssignment" in DisableBilling.permissions
    assert set(StopInstance.permissions) <= set(ReapRecommendation.permissions)
    assert StopNotebook.permissions
    assert StopTpuNode.permissions


def test_every_entry_point_has_permissions():
    entry_points = {
        name
        for name in ("on_budget_alert", "reap_idle_vms", "reap_expired", "reap_idle_gpus")
        if callable(getattr(main, name, None))
    }
    assert entry_points == set(PERMISSIONS)
