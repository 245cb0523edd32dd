"""mlgov-functions-*: dedicated service account and event retries.

Cases for mlgov_policies/rules/functions.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, d, s

CASES: tuple[Case, ...] = (
    Case(
        "function-default-sa",
        "mlgov-functions-service-account",
        (
            s(
                "budget-fn",
                "serviceConfig.serviceAccountEmail",
                "123456789012-compute@developer.gserviceaccount.com",
            ),
        ),
    ),
    Case(
        "function-no-sa",
        "mlgov-functions-service-account",
        (d("budget-fn", "serviceConfig.serviceAccountEmail"),),
    ),
    Case(
        "function-no-retry",
        "mlgov-functions-event-retry",
        (s("budget-fn", "eventTrigger.retryPolicy", "RETRY_POLICY_DO_NOT_RETRY"),),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
