"""mlgov-iam-*: no public members and no primitive roles, on every kind of grant.

Cases for mlgov_policies/rules/iam.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, s

CASES: tuple[Case, ...] = (
    Case(
        "function-public", "mlgov-iam-no-public-members", (s("reap-invoker", "member", "allUsers"),)
    ),
    Case(
        "run-public", "mlgov-iam-no-public-members", (s("reap-run-invoker", "member", "allUsers"),)
    ),
    Case(
        "bucket-public",
        "mlgov-iam-no-public-members",
        (s("source-reader", "member", "allAuthenticatedUsers"),),
    ),
    Case(
        "bucket-binding-public",
        "mlgov-iam-no-public-members",
        (s("source-binding", "members", ["allUsers"]),),
    ),
    Case(
        "dataset-member-public",
        "mlgov-iam-no-public-members",
        (s("features-reader", "member", "allUsers"),),
    ),
    Case(
        "dataset-access-public",
        "mlgov-iam-no-public-members",
        (s("features-owners", "specialGroup", "allAuthenticatedUsers"),),
    ),
    Case(
        "dataset-inline-public",
        "mlgov-iam-no-public-members",
        (s("features", "accesses", [{"role": "READER", "specialGroup": "allAuthenticatedUsers"}]),),
    ),
    Case(
        "topic-public",
        "mlgov-iam-no-public-members",
        (s("budget-publisher", "member", "allUsers"),),
    ),
    Case(
        "sa-editor",
        "mlgov-iam-no-primitive-roles",
        (s("gov-role-binding", "role", "roles/editor"),),
    ),
    Case(
        "sa-owner-binding",
        "mlgov-iam-no-primitive-roles",
        (s("log-writers", "role", "roles/owner"),),
    ),
    Case(
        "group-viewer",
        None,
        (
            s("gov-role-binding", "role", "roles/viewer"),
            s("gov-role-binding", "member", "group:ml@acme.example"),
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
