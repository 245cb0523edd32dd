"""mlgov-functions-*: dedicated service account, event retries, internal ingress on events.

Cases for mlgov_policies/rules/functions.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, apply, case_id, check_case, d, s
from policy_fixtures import PROD_CONFIG

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources

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
    Case(
        "event-function-open-ingress",
        "mlgov-functions-event-ingress-internal",
        (s("budget-fn", "serviceConfig.ingressSettings", "ALLOW_ALL"),),
    ),
    Case(
        "event-function-default-ingress",
        "mlgov-functions-event-ingress-internal",
        (d("budget-fn", "serviceConfig.ingressSettings"),),
    ),
    Case(
        "event-function-load-balancer-ingress",
        "mlgov-functions-event-ingress-internal",
        (s("budget-fn", "serviceConfig.ingressSettings", "ALLOW_INTERNAL_AND_GCLB"),),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_http_functions_may_keep_all_ingress() -> None:
    # Scheduler-called functions: the rule covers event triggers only (dropping the trigger
    # unwires the budget, which is another rule's finding).
    stack = apply(
        (
            d("budget-fn", "eventTrigger"),
            s("budget-fn", "serviceConfig.ingressSettings", "ALLOW_ALL"),
        )
    )
    found = {v.policy for v in evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))}
    assert found == {"mlgov-budget-topic-wired"}


def test_event_ingress_message_names_the_value() -> None:
    stack = apply((d("budget-fn", "serviceConfig.ingressSettings"),))
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert violation.resource == "budget-fn"
    assert "not set (the API then uses 'ALLOW_ALL')" in violation.message
