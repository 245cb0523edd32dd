"""mlgov-storage-*: public access, lifecycle rules that bound storage, function sources kept.

Cases for mlgov_policies/rules/storage.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, apply, case_id, check_case, d, s
from policy_fixtures import PROD_CONFIG

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources

LIFECYCLE = "mlgov-storage-lifecycle-required"
ABORT = "mlgov-storage-abort-incomplete-uploads"
SOURCE_KEPT = "mlgov-storage-function-source-kept"
ABORT_RULE = {"action": {"type": "AbortIncompleteMultipartUpload"}, "condition": {"age": 1.0}}


def _delete(condition: dict) -> dict:
    return {"action": {"type": "Delete"}, "condition": condition}


def _rules(*rules: dict) -> list[dict]:
    """Lifecycle rules plus the abort rule every bucket needs, so one rule is under test."""
    return [*rules, ABORT_RULE]


_KEEP = _delete({"withState": "ARCHIVED", "daysSinceNoncurrentTime": 30.0})
# A bucket that must keep live objects (the function source) deletes only old versions.
NONCURRENT_ONLY = _rules(_delete({"numNewerVersions": 3.0, "withState": "ARCHIVED"}))

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
    Case("bucket-abort-only", LIFECYCLE, (s("source", "lifecycleRules", [ABORT_RULE]),)),
    Case("bucket-keeps-live-objects", None, (s("source", "lifecycleRules", NONCURRENT_ONLY),)),
    Case(
        "bucket-moves-to-coldline",
        None,
        (
            s(
                "source",
                "lifecycleRules",
                _rules(
                    {
                        "action": {"type": "SetStorageClass", "storageClass": "COLDLINE"},
                        "condition": {"age": 90.0},
                    }
                ),
            ),
            # Not the functions' source, so only the lifecycle rules are judged.
            d("budget-fn", "buildConfig.source"),
        ),
    ),
    Case(
        "bucket-no-abort",
        ABORT,
        (s("source", "lifecycleRules", [_KEEP]),),
    ),
    Case(
        "source-age-rule",
        SOURCE_KEPT,
        (s("source", "lifecycleRules", _rules(_delete({"age": 30.0}))),),
    ),
    Case(
        "source-delete-live-versions",
        SOURCE_KEPT,
        (s("source", "lifecycleRules", _rules(_delete({"age": 30.0, "withState": "LIVE"}))),),
    ),
    Case(
        "source-delete-any-state",
        SOURCE_KEPT,
        (
            s(
                "source",
                "lifecycleRules",
                _rules(_delete({"createdBefore": "2026-01-01", "withState": "ANY"})),
            ),
        ),
    ),
    Case(
        "source-delete-without-condition",
        SOURCE_KEPT,
        (s("source", "lifecycleRules", _rules(_delete({}))),),
    ),
    Case(
        "source-noncurrent-by-age",
        None,
        (s("source", "lifecycleRules", _rules(_delete({"daysSinceNoncurrentTime": 7.0}))),),
    ),
    Case(
        "source-older-versions",
        None,
        (s("source", "lifecycleRules", _rules(_delete({"numNewerVersions": 2.0, "age": 1.0}))),),
    ),
    Case(
        "source-colder-storage",
        None,
        (
            s(
                "source",
                "lifecycleRules",
                _rules(
                    {
                        "action": {"type": "SetStorageClass", "storageClass": "COLDLINE"},
                        "condition": {"age": 30.0},
                    }
                ),
            ),
        ),
    ),
    Case(
        "other-bucket-age-rule",
        None,
        (
            s("source", "lifecycleRules", _rules(_delete({"age": 30.0}))),
            d("budget-fn", "buildConfig.source"),
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_a_bucket_without_lifecycle_rules_breaks_both_lifecycle_rules() -> None:
    stack = apply((d("source", "lifecycleRules"),))
    found = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert {(v.policy, v.resource) for v in found} == {(LIFECYCLE, "source"), (ABORT, "source")}


def test_source_message_names_the_rule_and_the_functions() -> None:
    stack = apply((s("source", "lifecycleRules", _rules(_KEEP, _delete({"age": 30.0}))),))
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert violation.resource == "source"
    assert violation.type == "gcp:storage/bucket:Bucket"
    assert violation.message.startswith(
        "lifecycleRules[1] deletes live objects, and functions ['budget-fn'] are built from"
    )
