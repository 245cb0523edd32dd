"""mlgov-budget-* and mlgov-billing-*: a wired budget, and no billing unlink in prod.

Cases for mlgov_policies/rules/billing.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from policy_cases import Case, case_id, cfg, check_case, d, s
from policy_fixtures import POLICY_JSON, PROJECT

ENV = "serviceConfig.environmentVariables.MLGOV_POLICY"


def _policy(**project: Any) -> str:
    data = json.loads(POLICY_JSON)
    data["projects"][PROJECT].update(project)
    return json.dumps(data)


CASES: tuple[Case, ...] = (
    Case(
        "no-budget",
        "mlgov-budget-required",
        (("drop", "budget"), ("drop", "spend-cap"), ("drop", "spend-cap-alerts")),
        resource="",
    ),
    Case(
        "spend-cap-unpaired",
        "mlgov-billing-spend-cap-paired",
        (("drop", "spend-cap-alerts"),),
        resource="spend-cap",
    ),
    Case(
        "spend-cap-pair-on-another-service",
        "mlgov-billing-spend-cap-paired",
        (s("spend-cap-alerts", "budgetFilter.services", ["services/AEFD-7695-64FA"]),),
        resource="spend-cap",
    ),
    Case(
        "spend-cap-on-cloud-run-functions-beside-automation",
        "mlgov-billing-spend-cap-blocks-automation",
        (
            s("spend-cap", "budgetFilter.services", ["services/29E7-DA93-CA13"]),
            s("spend-cap-alerts", "budgetFilter.services", ["services/29E7-DA93-CA13"]),
        ),
    ),
    Case(
        "spend-cap-on-cloud-run-without-functions",
        None,
        (
            s("spend-cap", "budgetFilter.services", ["services/152E-C115-5142"]),
            s("spend-cap-alerts", "budgetFilter.services", ["services/152E-C115-5142"]),
            ("drop", "budget-fn"),
        ),
    ),
    Case("budget-no-thresholds", "mlgov-budget-required", (s("budget", "thresholdRules", []),)),
    Case("budget-no-topic", "mlgov-budget-required", (d("budget", "allUpdatesRule.pubsubTopic"),)),
    Case(
        "budget-topic-unwired",
        "mlgov-budget-topic-wired",
        (s("budget-fn", "eventTrigger.pubsubTopic", f"projects/{PROJECT}/topics/other"),),
        resource="budget",
    ),
    Case("budget-no-functions", None, (("drop", "budget-fn"),)),
    Case(
        "billing-disable-prod-project",
        "mlgov-billing-disable-not-in-prod",
        (s("budget-fn", ENV, _policy(allow_billing_disable=True)),),
    ),
    Case(
        "billing-disable-prod-stack",
        "mlgov-billing-disable-not-in-prod",
        (s("budget-fn", ENV, _policy(allow_billing_disable=True, environment="dev")),),
    ),
    Case(
        "billing-disable-dev",
        None,
        (s("budget-fn", ENV, _policy(allow_billing_disable=True, environment="dev")),),
        cfg(environment="dev"),
    ),
    Case(
        "billing-policy-not-json",
        "mlgov-billing-disable-not-in-prod",
        (s("budget-fn", ENV, "{not json"),),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


PUBLISHER = "mlgov-billing-budget-topic-publisher"
OTHER = "serviceAccount:someone@acme-ml-prod.iam.gserviceaccount.com"
PUBLISHER_CASES: tuple[Case, ...] = (
    Case("topic-other-publisher", PUBLISHER, (s("budget-publisher", "member", OTHER),)),
    Case(
        "topic-editor-role",
        PUBLISHER,
        (
            s("budget-publisher", "role", "roles/pubsub.editor"),
            s("budget-publisher", "member", OTHER),
        ),
    ),
    Case(
        "project-wide-publisher",
        PUBLISHER,
        (s("gov-role-binding", "role", "roles/pubsub.publisher"),),
    ),
    Case(
        "custom-role-that-publishes",
        PUBLISHER,
        (s("gov-role", "permissions", ["compute.instances.stop", "pubsub.topics.publish"]),),
        resource="gov-role-binding",
    ),
    Case(
        "another-topic",
        None,
        (
            s("budget-publisher", "topic", "projects/acme-ml-prod/topics/x"),
            s("budget-publisher", "member", OTHER),
        ),
    ),
    Case(
        "billing-is-the-publisher", None, (s("budget-publisher", "role", "roles/pubsub.publisher"),)
    ),
)


CASES = (*CASES, *PUBLISHER_CASES)  # what test_policy_registry counts per rules module


@pytest.mark.parametrize("case", PUBLISHER_CASES, ids=case_id)
def test_budget_topic_publisher(case: Case) -> None:
    check_case(case)
