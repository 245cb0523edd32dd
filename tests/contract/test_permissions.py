"""The custom role of each function equals what its flow needs, as the functions state it.

governance/components/automation.py keeps its own literal mapping (governance never imports functions/);
functions/govern/permissions.py derives one from each flow's declared reads and action kinds.
They must not drift. Two permissions of the dispatchers are granted on their own resource, never
in the project role: finding a scope's projects (on the scope's folder or organization) and
publishing work items (on the work topic).
Fan-out adds the worker `on_work_item`, the dead-letter logger `on_dead_letter` and the
dispatchers' two permissions.
"""

from __future__ import annotations

import pytest

from govern.actions import DisableBilling, UndeployEndpoint
from govern.permissions import PERMISSIONS as FUNCTIONS_PERMISSIONS
from govern.ports import GET_BILLING_INFO, GET_SPEND_CAP, LIST_ENDPOINTS
from governance.components.action_settings import DISPATCHERS, ENTRY_POINTS, WORKERS
from governance.components.automation import (
    GRANTED_ELSEWHERE,
    PERMISSIONS,
    PUBLISH_WORK,
    READ_SPEND_CAPS,
    RESOLVE_SCOPES,
    UNDEPLOY_ENDPOINTS,
    UNLINK_BILLING,
    function_permissions,
    scope_work_permissions,
)

# Unlinking billing is the action plus the read that decides it (is billing still linked?);
# without the opt-in the budget flow does neither. Likewise undeploying endpoints.
BILLING_ONLY = {*DisableBilling.permissions, *GET_BILLING_INFO.permissions}
UNDEPLOY_ONLY = {*UndeployEndpoint.permissions, *LIST_ENDPOINTS.permissions}
# Reading spend caps (only stacks that declare some); resourcemanager.projects.get is shared
# with the billing read, so it goes only when neither is wanted.
CAPS_ONLY = set(GET_SPEND_CAP.permissions)


def _functions(entry_point: str) -> set[str]:
    return set(FUNCTIONS_PERMISSIONS[entry_point])


def test_same_entry_points():
    assert set(PERMISSIONS) == set(FUNCTIONS_PERMISSIONS) == set(ENTRY_POINTS)


def test_the_functions_entry_points_are_all_deployed():
    # Holds before and after the fan-out merge: governance deploys every flow the functions have.
    assert set(FUNCTIONS_PERMISSIONS) <= set(ENTRY_POINTS) == set(PERMISSIONS)


@pytest.mark.parametrize("entry_point", ENTRY_POINTS)
def test_the_mirror_equals_the_functions_mapping(entry_point):
    assert PERMISSIONS[entry_point] == tuple(sorted(_functions(entry_point)))


@pytest.mark.parametrize("entry_point", sorted(FUNCTIONS_PERMISSIONS))
def test_role_with_every_opt_in_equals_the_functions_mapping(entry_point):
    assert function_permissions(
        entry_point, allow_billing_disable=True, undeploy_endpoints=True, read_spend_caps=True
    ) == tuple(sorted(_functions(entry_point) - GRANTED_ELSEWHERE))


@pytest.mark.parametrize("entry_point", sorted(FUNCTIONS_PERMISSIONS))
def test_role_without_opt_ins_lacks_exactly_the_opt_in_permissions(entry_point):
    granted = _functions(entry_point) - GRANTED_ELSEWHERE
    expected = sorted(granted - BILLING_ONLY - UNDEPLOY_ONLY - CAPS_ONLY)
    assert function_permissions(entry_point, allow_billing_disable=False) == tuple(expected)
    without_undeploy = sorted(granted - UNDEPLOY_ONLY - (CAPS_ONLY - BILLING_ONLY))
    assert function_permissions(entry_point, allow_billing_disable=True) == tuple(without_undeploy)
    # Reading caps keeps the read it shares with unlinking only where the function reads caps.
    reads_caps = granted >= CAPS_ONLY
    caps_only = sorted(
        granted - UNDEPLOY_ONLY - (BILLING_ONLY - (CAPS_ONLY if reads_caps else set()))
    )
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
    # The budget function reports the caps itself; a work item never reads them.
    assert holders == ["on_budget_alert"]


def test_undeploy_permissions_are_the_undeploy_action_and_its_read():
    assert sorted(UNDEPLOY_ENDPOINTS) == sorted(UNDEPLOY_ONLY)


def test_unlink_permissions_are_the_disable_billing_action_and_its_read():
    assert sorted(UNLINK_BILLING) == sorted(BILLING_ONLY)
    holders = [
        ep for ep, perms in FUNCTIONS_PERMISSIONS.items() if set(UNLINK_BILLING) & set(perms)
    ]
    assert set(holders) <= {"on_budget_alert", "on_work_item"}
    assert "on_budget_alert" in holders


# ------------------------------------------------------------------ fan-out (issue 29)
def test_what_the_dispatchers_are_granted_elsewhere_is_exactly_resolving_and_publishing():
    assert frozenset({*RESOLVE_SCOPES, *PUBLISH_WORK}) == GRANTED_ELSEWHERE
    assert RESOLVE_SCOPES == ("cloudasset.assets.searchAllResources",)
    assert PUBLISH_WORK == ("pubsub.topics.publish",)
    for ep in DISPATCHERS:
        assert set(PERMISSIONS[ep]) >= GRANTED_ELSEWHERE
        role = function_permissions(
            ep, allow_billing_disable=True, undeploy_endpoints=True, read_spend_caps=True
        )
        assert not GRANTED_ELSEWHERE & set(role)
    for ep in WORKERS:
        assert not GRANTED_ELSEWHERE & set(PERMISSIONS[ep])


def test_the_worker_may_do_to_a_project_what_any_dispatcher_does_when_it_acts_itself():
    acting = {p for ep in DISPATCHERS for p in PERMISSIONS[ep]} - GRANTED_ELSEWHERE
    # ...except reading the stack's spend caps, which the budget function reports itself.
    assert set(PERMISSIONS["on_work_item"]) == acting - {"billing.resourcebudgets.read"}
    assert PERMISSIONS["on_dead_letter"] == ()


def test_in_a_scope_the_worker_never_unlinks_nor_reads_spend_caps():
    # Unlinking is a role of its own, granted only on a scope that allows it (scope_grants.py).
    scoped = set(scope_work_permissions(undeploy_endpoints=True))
    assert "resourcemanager.projects.deleteBillingAssignment" not in scoped
    assert "billing.resourcebudgets.read" not in scoped
    assert scoped == set(PERMISSIONS["on_work_item"]) - set(UNLINK_BILLING)
