"""mlgov-logging-retention-bounded: log buckets keep logs no longer than the maximum.

Cases for mlgov_policies/rules/cloudlogging.py: one change to the known-good stack each, checked
offline and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, apply, case_id, cfg, check_case, d, s
from policy_fixtures import PROD_CONFIG

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources

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
    Case("retention-unset-is-30-days", None, (d("default-logs", "retentionDays"),)),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_retention_that_is_not_a_number_breaks_the_rule_and_the_input_type() -> None:
    stack = apply((s("default-logs", "retentionDays", "forever"),))
    found = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert {(v.policy, v.resource) for v in found} == {
        (RULE, "default-logs"),
        ("mlgov-schema-valid-inputs", "default-logs"),
    }
    [rule] = [v for v in found if v.policy == RULE]
    assert rule.message == "retentionDays is 'forever', not a number of days"
