"""mlgov-storage-no-public-access: public access prevention and uniform access.

Cases for mlgov_policies/rules/storage.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, s

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
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
