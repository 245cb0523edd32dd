"""The custom role of each function equals what its flow needs, as the functions state it.

governance/automation.py keeps its own literal mapping (governance never imports functions/);
functions/govern/permissions.py derives one from each flow's declared reads and action kinds.
They must not drift.
"""

from __future__ import annotations

import pytest

from govern.actions import DisableBilling, UndeployEndpoint
from govern.permissions import PERMISSIONS as FUNCTIONS_PERMISSIONS
from govern.ports import GET_BILLING_INFO, GET_SPEND_CAP, LIST_ENDPOINTS
from governance.components.action_settings import ENTRY_POINTS
from governance.components.automation import (
    PERMISSIONS,
    READ_SPEND_CAPS,
    UNDEPLOY_ENDPOINTS,
    UNLINK_BILLING,
    function_permissions,
)

# Unlinking billing is the action plus the read that decides it (is billing still linked?);
# without the opt-in the budget flow does neither. Likewise undeploying endpoints.
BILLING_ONLY = {*DisableBilling.permissions, *GET_BILLING_INFO.permissions}
UNDEPLOY_ONLY = {*UndeployEndpoint.permissions, *LIST_ENDPOINTS.permissions}
# Reading spend caps (only stacks that declare some); resourcemanager.projects.get is shared
# with the billing read, so it goes only when neither is wanted.
CAPS_ONLY = set(GET_SPEND_CAP.permissions)


def test_same_entry_points():
    assert set(PERMISSIONS) == set(FUNCTIONS_PERMISSIONS) == set(ENTRY_POINTS)


@pytest.mark.parametrize("entry_point", sorted(FUNCTIONS_PERMISSIONS))
def test_role_with_every_opt_in_equals_the_functions_mapping(entry_point):
    assert function_permissions(
        entry_point, allow_billing_disable=True, undeploy_endpoints=True, read_spend_caps=True
    ) == tuple(sorted(FUNCTIONS_PERMISSIONS[entry_point]))


@pytest.mark.parametrize("entry_point", sorted(FUNCTIONS_PERMISSIONS))
def test_role_without_opt_ins_lacks_exactly_the_opt_in_permissions(entry_point):
    granted = set(FUNCTIONS_PERMISSIONS[entry_point])
    expected = sorted(granted - BILLING_ONLY - UNDEPLOY_ONLY - CAPS_ONLY)
    assert function_permissions(entry_point, allow_billing_disable=False) == tuple(expected)
    without_undeploy = sorted(granted - UNDEPLOY_ONLY - (CAPS_ONLY - BILLING_ONLY))
    assert function_permissions(entry_point, allow_billing_disable=True) == tuple(without_undeploy)
    caps_only = sorted(granted - UNDEPLOY_ONLY - (BILLING_ONLY - CAPS_ONLY))
    assert function_permissions(
        entry_point, allow_billing_disable=False, read_spend_caps=True
    ) == tuple(caps_only)


def test_reading_spend_caps_is_the_budget_get_read_and_only_the_budget_function_has_it():
    assert sorted(READ_SPEND_CAPS) == sorted(CAPS_ONLY)
    assert "billing.resourcebudgets.read" in function_permissions(
        "on_budget_alert", allow_billing_disable=False, read_spend_caps=True
    )
    assert "resourcemanager.projects.get" in function_permissions(
        "on_budget_alert", allow_billing_disable=False, read_spend_caps=True
    )
    holders = [
        ep for ep, perms in FUNCTIONS_PERMISSIONS.items() if "billing.resourcebudgets.read" in perms
    ]
    assert holders == ["on_budget_alert"]


def test_undeploy_permissions_are_the_undeploy_action_and_its_read():
    assert sorted(UNDEPLOY_ENDPOINTS) == sorted(UNDEPLOY_ONLY)


def test_unlink_permissions_are_the_disable_billing_action_and_its_read():
    assert sorted(UNLINK_BILLING) == sorted(BILLING_ONLY)
    holders = [
        ep for ep, perms in FUNCTIONS_PERMISSIONS.items() if set(UNLINK_BILLING) & set(perms)
    ]
    assert holders == ["on_budget_alert"]
