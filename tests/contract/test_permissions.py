"""The custom role of each function equals what its actions need, as the functions state it.

governance/automation.py keeps its own literal mapping (governance never imports functions/);
functions/govern/permissions.py derives one from the action classes. They must not drift.
"""

from __future__ import annotations

import pytest

from govern.models import DisableBilling
from govern.permissions import PERMISSIONS as FUNCTIONS_PERMISSIONS
from governance.components.action_settings import ENTRY_POINTS
from governance.components.automation import PERMISSIONS, UNLINK_BILLING, function_permissions


def test_same_entry_points():
    assert set(PERMISSIONS) == set(FUNCTIONS_PERMISSIONS) == set(ENTRY_POINTS)


@pytest.mark.parametrize("entry_point", sorted(FUNCTIONS_PERMISSIONS))
def test_role_with_billing_opt_in_equals_the_functions_mapping(entry_point):
    assert function_permissions(entry_point, allow_billing_disable=True) == tuple(
        sorted(FUNCTIONS_PERMISSIONS[entry_point])
    )


@pytest.mark.parametrize("entry_point", sorted(FUNCTIONS_PERMISSIONS))
def test_role_without_opt_in_lacks_exactly_the_unlink_permissions(entry_point):
    expected = sorted(set(FUNCTIONS_PERMISSIONS[entry_point]) - set(DisableBilling.permissions))
    assert function_permissions(entry_point, allow_billing_disable=False) == tuple(expected)


def test_unlink_permissions_are_the_disable_billing_action():
    assert sorted(UNLINK_BILLING) == sorted(DisableBilling.permissions)
    holders = [
        ep for ep, perms in FUNCTIONS_PERMISSIONS.items() if set(UNLINK_BILLING) & set(perms)
    ]
    assert holders == ["on_budget_alert"]
