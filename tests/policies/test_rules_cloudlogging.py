"""mlgov-logging-retention-bounded: log buckets keep logs no longer than the maximum.

Cases for mlgov_policies/rules/cloudlogging.py: one change to the known-good stack each, checked
offline and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, cfg, check_case, d, s

RULE = "mlgov-logging-retention-bounded"

CASES: tuple[Case, ...] = (
    Case("retention-at-limit", None, (s("default-logs", "retentionDays", 90.0),)),
    Case("retention-over-limit", RULE, (s("default-logs", "retentionDays", 91.0),)),
    Case("retention-ten-years", RULE, (s("default-logs", "retentionDays", 3650.0),)),
    Case(
        "retention-default-limit",
        RULE,
        (s("default-logs", "retentionDays", 31.0),),
        cfg(max_log_retention_days=None),
    ),
    Case("retention-not-a-number", RULE, (s("default-logs", "retentionDays", "forever"),)),
    Case("retention-unset-is-30-days", None, (d("default-logs", "retentionDays"),)),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
