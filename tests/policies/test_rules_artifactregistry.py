"""mlgov-artifactregistry-cleanup-policies: repositories delete old images, for real outside dev.

Cases for mlgov_policies/rules/artifactregistry.py: one change to the known-good stack each,
checked offline and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, cfg, check_case, d, s

RULE = "mlgov-artifactregistry-cleanup-policies"
KEEP_ONLY = [{"id": "keep", "action": "KEEP", "mostRecentVersions": {"keepCount": 10.0}}]

CASES: tuple[Case, ...] = (
    Case("repo-no-cleanup", RULE, (d("images", "cleanupPolicies"),)),
    Case("repo-keep-only", RULE, (s("images", "cleanupPolicies", KEEP_ONLY),)),
    Case("repo-dry-run-prod", RULE, (s("images", "cleanupPolicyDryRun", True),)),
    Case(
        "repo-dry-run-staging",
        RULE,
        (s("images", "cleanupPolicyDryRun", True),),
        cfg(environment="staging"),
    ),
    Case(
        "repo-dry-run-dev",
        None,
        (s("images", "cleanupPolicyDryRun", True),),
        cfg(environment="dev"),
    ),
    Case(
        "remote-repo-stores-nothing",
        None,
        (s("images", "mode", "REMOTE_REPOSITORY"), d("images", "cleanupPolicies")),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
