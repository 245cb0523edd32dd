"""mlgov-storage-*: public access prevention and uniform access; function sources kept while live.

Cases for mlgov_policies/rules/storage.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, apply, case_id, check_case, d, s
from policy_fixtures import PROD_CONFIG

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources


def _delete(condition: dict) -> dict:
    return {"action": {"type": "Delete"}, "condition": condition}


_KEEP = _delete({"withState": "ARCHIVED", "daysSinceNoncurrentTime": 30.0})

CASES: tuple[Case, ...] = (
    Case(
        "bucket-pap-inherited",
        "mlgov-storage-no-public-access",
        (s("source", "publicAccessPrevention", "inherited"),),
    ),
    Case(
        "bucket-acls",
        "mlgov-storage-no-public-access",
        (s("source", "uniformBucketLevelAccess", False),),
    ),
    Case(
        "source-age-rule",
        "mlgov-storage-function-source-kept",
        (s("source", "lifecycleRules", [_delete({"age": 30.0})]),),
    ),
    Case(
        "source-delete-live-versions",
        "mlgov-storage-function-source-kept",
        (s("source", "lifecycleRules", [_delete({"age": 30.0, "withState": "LIVE"})]),),
    ),
    Case(
        "source-delete-any-state",
        "mlgov-storage-function-source-kept",
        (
            s(
                "source",
                "lifecycleRules",
                [_delete({"createdBefore": "2026-01-01", "withState": "ANY"})],
            ),
        ),
    ),
    Case(
        "source-delete-without-condition",
        "mlgov-storage-function-source-kept",
        (s("source", "lifecycleRules", [_delete({})]),),
    ),
    Case(
        "source-noncurrent-by-age",
        None,
        (s("source", "lifecycleRules", [_delete({"daysSinceNoncurrentTime": 7.0})]),),
    ),
    Case(
        "source-older-versions",
        None,
        (s("source", "lifecycleRules", [_delete({"numNewerVersions": 2.0, "age": 1.0})]),),
    ),
    Case(
        "source-colder-storage",
        None,
        (
            s(
                "source",
                "lifecycleRules",
                [
                    {
                        "action": {"type": "SetStorageClass", "storageClass": "COLDLINE"},
                        "condition": {"age": 30.0},
                    }
                ],
            ),
        ),
    ),
    Case(
        "source-no-lifecycle",
        None,
        (d("source", "lifecycleRules"),),
    ),
    Case(
        "other-bucket-age-rule",
        None,
        (
            s("source", "lifecycleRules", [_delete({"age": 30.0})]),
            d("budget-fn", "buildConfig.source"),
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_source_message_names_the_rule_and_the_functions() -> None:
    stack = apply((s("source", "lifecycleRules", [_KEEP, _delete({"age": 30.0})]),))
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert violation.resource == "source"
    assert violation.type == "gcp:storage/bucket:Bucket"
    assert violation.message.startswith(
        "lifecycleRules[1] deletes live objects, and functions ['budget-fn'] are built from"
    )
