"""mlgov-storage-no-public-access: public access prevention and uniform access.

Cases for mlgov_policies/rules/storage.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, s

LIFECYCLE = "mlgov-storage-lifecycle-required"
ABORT = "mlgov-storage-abort-incomplete-uploads"
ABORT_RULE = {"action": {"type": "AbortIncompleteMultipartUpload"}, "condition": {"age": 1.0}}
# A bucket that must keep live objects (the function source) deletes only old versions.
NONCURRENT_ONLY = [
    {"action": {"type": "Delete"}, "condition": {"numNewerVersions": 3.0, "withState": "ARCHIVED"}},
    ABORT_RULE,
]

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
                [
                    {
                        "action": {"type": "SetStorageClass", "storageClass": "COLDLINE"},
                        "condition": {"age": 90.0},
                    },
                    ABORT_RULE,
                ],
            ),
        ),
    ),
    Case(
        "bucket-no-abort",
        ABORT,
        (
            s(
                "source",
                "lifecycleRules",
                [{"action": {"type": "Delete"}, "condition": {"age": 30.0}}],
            ),
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
