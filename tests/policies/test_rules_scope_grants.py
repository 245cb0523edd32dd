"""mlgov-iam-scope-least-privilege: folder and organization grants are least privilege.

Cases for mlgov_policies/rules/scope_grants.py over the known-good stack, whose functions govern
folders/111222 (prod, no billing unlink) and grant the organization work role there.
"""

from __future__ import annotations

import json

import pytest
from policy_cases import Case, case_id, cfg, check_case, s
from policy_fixtures import FOLDER, ORG_ID, POLICY_JSON

RULE = "mlgov-iam-scope-least-privilege"
UNLINK = "resourcemanager.projects.deleteBillingAssignment"
WORK_ROLE = f"organizations/{ORG_ID}/roles/acme_prod_fn_work"
POLICY = "serviceConfig.environmentVariables.MLGOV_POLICY"


def _policy_allowing_unlink(environment: str) -> str:
    policy = json.loads(POLICY_JSON)
    policy["scopes"][FOLDER] = {"environment": environment, "allow_billing_disable": True}
    return json.dumps(policy)


UNLINKING_ROLE = s("work-role", "permissions", ["compute.instances.stop", UNLINK])

CASES: tuple[Case, ...] = (
    Case("basic-role-on-the-folder", RULE, (s("work-folder-grant", "role", "roles/editor"),)),
    Case(
        "basic-role-to-a-group",
        RULE,
        (
            s("work-folder-grant", "role", "roles/viewer"),
            s("work-folder-grant", "member", "group:ml@acme.example"),
        ),
    ),
    Case(
        "public-on-the-folder", RULE, (s("work-folder-grant", "member", "allAuthenticatedUsers"),)
    ),
    Case(
        "unlink-where-the-scope-does-not-allow-it",
        RULE,
        (UNLINKING_ROLE,),
        resource="work-folder-grant",
    ),
    Case(
        "project-billing-manager-on-the-folder",
        RULE,
        (s("work-folder-grant", "role", "roles/billing.projectManager"),),
    ),
    Case(
        "unlink-where-a-dev-scope-allows-it",
        None,
        (UNLINKING_ROLE, s("budget-fn", POLICY, _policy_allowing_unlink("dev"))),
        config=cfg(environment="dev"),
    ),
    Case(
        "unlink-in-a-prod-stack-even-if-the-policy-says-so",
        RULE,
        (UNLINKING_ROLE, s("budget-fn", POLICY, _policy_allowing_unlink("dev"))),
        resource="work-folder-grant",
    ),
    Case(
        "unlink-on-a-prod-scope-of-a-dev-stack",
        RULE,
        (UNLINKING_ROLE, s("budget-fn", POLICY, _policy_allowing_unlink("prod"))),
        config=cfg(environment="dev"),
        resource="work-folder-grant",
    ),
    Case(
        "unlink-on-another-folder",
        RULE,
        (
            UNLINKING_ROLE,
            s("budget-fn", POLICY, _policy_allowing_unlink("dev")),
            s("work-folder-grant", "folder", "folders/999"),
        ),
        config=cfg(environment="dev"),
        resource="work-folder-grant",
    ),
    Case(
        "a-narrow-role-is-fine", None, (s("work-folder-grant", "role", "roles/cloudasset.viewer"),)
    ),
    Case(
        "a-folder-known-only-after-apply",
        None,
        (UNLINKING_ROLE, s("work-folder-grant", "folder", "04da6b54-80e4-46f7-96ec-b56ff0331ba9")),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_an_organization_grant_is_checked_on_the_organization():
    from mlgov_policies.config import PolicyConfig
    from mlgov_policies.rule import StackResource
    from mlgov_policies.rules.scope_grants import scope_least_privilege

    grant = StackResource(
        "gcp:organizations/iAMMember:IAMMember",
        "org-grant",
        {"orgId": ORG_ID, "role": "roles/owner", "member": "user:admin@acme.example"},
    )
    found = list(scope_least_privilege([grant], PolicyConfig(environment="dev")))
    assert found == [
        (
            0,
            f"member grants basic role roles/owner on organizations/{ORG_ID} to "
            "'user:admin@acme.example': thousands of permissions in every project below",
        )
    ]
