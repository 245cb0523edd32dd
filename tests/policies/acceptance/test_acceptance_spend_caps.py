"""mlgov-billing-spend-cap-*: every rule the Budget API fixes for a spend cap, refused at plan time.

Each case breaks one rule of a good spend-cap body (the one mlgov renders) and expects exactly one
finding that names the field, the discovery-document field whose documentation states the rule,
and the source. The rules themselves are checked against the discovery document
(billingbudgets.v1, revision 20261011): every cited field exists and its documentation speaks of
spend caps, and the constants mlgov uses are the document's.
"""

from __future__ import annotations

import copy
import re

import pytest
from acceptance_support import DELETE, changed, run

from governance.spend_caps.body import cap_body
from mlgov_policies import vocabulary as v
from mlgov_policies.acceptance.spend_caps import spend_cap_currency
from mlgov_policies.compat import spend_caps as facts
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import UNKNOWN_SENTINELS
from mlgov_policies.rule import StackResource
from tests.policies.compat.discovery_documents import document, properties

RULE = "mlgov-billing-spend-cap-accepted"
CAP = v.SPEND_CAP_BUDGET
SOURCE = (
    "source: Cloud Billing Budget API v1 billingAccounts.budgets (discovery document "
    "billingbudgets.v1, revision 20261011) "
    "https://cloud.google.com/billing/docs/reference/budget/rest/v1/billingAccounts.budgets)"
)
UNKNOWN = next(iter(UNKNOWN_SENTINELS))


def good() -> dict:
    body = cap_body(
        display_name="acme-prod-cap-vertex-ai",
        project_number="123456789012",
        service="services/C7E2-9256-1C43",
        amount=2000,
    )
    return {"parent": "billingAccounts/01D4EE-079462-DFD6EC", **body}


def test_the_rendered_body_is_accepted() -> None:
    assert run(RULE, CAP, good()) == []


CASES = [
    ("budgetFilter.projects", [], "budgetFilter.projects", "Filter.projects", "exactly one project, got 0"),
    ("budgetFilter.projects", ["projects/1", "projects/2"], "budgetFilter.projects", "Filter.projects", "got 2"),
    ("budgetFilter.services", DELETE, "budgetFilter.services", "Filter.services", "exactly one eligible service, got 0"),
    ("budgetFilter.services", ["services/C7E2-9256-1C43", "services/AEFD-7695-64FA"], "budgetFilter.services", "Filter.services", "got 2"),
    ("budgetFilter.calendarPeriod", "QUARTER", "budgetFilter.calendarPeriod", "Filter.calendarPeriod", "must be MONTH (or unset), got 'QUARTER'"),
    ("budgetFilter.customPeriod", {"startDate": {"year": 2026, "month": 1, "day": 1}}, "budgetFilter.customPeriod", "Filter.customPeriod", "cannot have a custom period"),
    ("budgetFilter.creditTypesTreatment", "INCLUDE_ALL_CREDITS", "budgetFilter.creditTypesTreatment", "Filter.creditTypesTreatment", "EXCLUDE_ALL_CREDITS, got 'INCLUDE_ALL_CREDITS'"),
    ("budgetFilter.creditTypesTreatment", DELETE, "budgetFilter.creditTypesTreatment", "Filter.creditTypesTreatment", "got not set"),
    ("budgetFilter.creditTypes", ["PROMOTION"], "budgetFilter.creditTypes", "Filter.creditTypes", "must be empty"),
    ("budgetFilter.labels", {"team": ["vision"]}, "budgetFilter.labels", "Filter.labels", "must be empty"),
    ("budgetFilter.resourceAncestors", ["folders/123"], "budgetFilter.resourceAncestors", "Filter.resourceAncestors", "must be empty"),
    ("budgetFilter.subaccounts", ["billingAccounts/0AAAAA-BBBBBB-CCCCCC"], "budgetFilter.subaccounts", "Filter.subaccounts", "must be empty"),
    ("amount.lastPeriodAmount", {}, "amount.lastPeriodAmount", "BudgetAmount.lastPeriodAmount", "last period's amount"),
    ("amount.specifiedAmount", DELETE, "amount.specifiedAmount", "BudgetAmount.specifiedAmount", "needs a specified amount"),
    ("amount.specifiedAmount.units", "-5", "amount.specifiedAmount", "BudgetAmount.specifiedAmount", "must be >= 0, got -5"),
    ("amount.specifiedAmount.currencyCode", "usd", "amount.specifiedAmount.currencyCode", "GoogleTypeMoney.currencyCode", "not an ISO 4217 code"),
    ("thresholdRules", [{"thresholdPercent": 0.5}, {"thresholdPercent": 1.0}], "thresholdRules", "Budget.thresholdRules", "got [0.5, 1]"),
    ("thresholdRules.1.thresholdPercent", 0.9, "thresholdRules", "Budget.thresholdRules", "got [0.5, 0.9, 1]"),
    ("thresholdRules.2.spendBasis", "FORECASTED_SPEND", "thresholdRules[2].spendBasis", "ThresholdRule.spendBasis", "current spend, got 'FORECASTED_SPEND'"),
    ("notificationsRule", DELETE, "notificationsRule", "NotificationsRule.enableProjectLevelRecipients", "enableProjectLevelRecipients: true"),
    ("notificationsRule.enableProjectLevelRecipients", False, "notificationsRule.enableProjectLevelRecipients", "NotificationsRule.enableProjectLevelRecipients", "must be true"),
    ("notificationsRule.disableDefaultIamRecipients", True, "notificationsRule.disableDefaultIamRecipients", "NotificationsRule.disableDefaultIamRecipients", "cannot be turned off"),
    ("notificationsRule.pubsubTopic", "projects/p/topics/t", "notificationsRule.pubsubTopic", "NotificationsRule.pubsubTopic", "cannot publish to Pub/Sub"),
    ("notificationsRule.monitoringNotificationChannels", ["projects/p/notificationChannels/1"], "notificationsRule.monitoringNotificationChannels", "NotificationsRule.monitoringNotificationChannels", "no monitoring notification channels"),
    ("ownershipScope", "BILLING_ACCOUNT", "ownershipScope", "Budget.ownershipScope", "ALL_USERS (or unset), got 'BILLING_ACCOUNT'"),
    ("spendCap", DELETE, "spendCap", "Budget.spendCap", "spendCap must be set"),
    ("spendCap.inputState", "AWAITING_NEXT_PERIOD", "spendCap.inputState", "SpendCap.inputState", "only lifts an enforced cap: `mlgov cap lift`"),
    ("spendCap.outputState", "ENFORCED", "spendCap.outputState", "SpendCap.outputState", "output only"),
    ("displayName", "x" * 61, "displayName", "Budget.displayName", "61 characters; a budget's displayName is at most 60"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "value", "field", "schema_field", "says"),
    CASES,
    ids=[f"{c[0]}=" + ("<deleted>" if c[1] is DELETE else repr(c[1]))[:40] for c in CASES],
)
def test_each_rule_is_one_finding_naming_field_rule_and_source(
    path, value, field, schema_field, says
) -> None:
    [message] = run(RULE, CAP, changed(good(), path, value))
    assert message.startswith(f"{field}: "), message
    assert says in message, message
    schema, _, name = schema_field.rpartition(".")
    prefix = "" if schema.startswith("Google") else "GoogleCloudBillingBudgetsV1"
    assert f"(rule: {prefix}{schema}.{name}; " in message, message
    if schema_field != "GoogleTypeMoney.currencyCode":
        assert message.endswith(SOURCE), message


def test_an_ineligible_service_is_refused_with_the_list_and_its_source() -> None:
    [message] = run(
        RULE, CAP, changed(good(), "budgetFilter.services", ["services/24E6-581D-38E5"])
    )
    assert message == (
        "budgetFilter.services: 'services/24E6-581D-38E5' is not a service spend caps can cover; "
        "eligible: services/C7E2-9256-1C43 (Vertex AI), services/AEFD-7695-64FA (Gemini API), "
        "services/152E-C115-5142 (Cloud Run), services/29E7-DA93-CA13 (Cloud Run functions) "
        "(rule: GoogleCloudBillingBudgetsV1Filter.services; source: Create, edit, or delete "
        "spend cap budgets: Services that are eligible for spend cap budgets "
        "https://docs.cloud.google.com/billing/docs/how-to/budgets-spend-caps#eligible-services)"
    )


def test_schema_version_is_refused_citing_googles_guide() -> None:
    [message] = run(RULE, CAP, changed(good(), "notificationsRule.schemaVersion", "1.0"))
    assert message.startswith("notificationsRule.schemaVersion: a spend cap takes no other")
    assert "budget-api-spend-cap" in message


def test_a_bad_parent_is_refused() -> None:
    [message] = run(RULE, CAP, changed(good(), "parent", "billingAccounts/acme"))
    assert message.startswith(
        "parent 'billingAccounts/acme' is not billingAccounts/<billing account id>"
    )


def test_several_broken_rules_are_all_reported() -> None:
    props = changed(
        changed(good(), "budgetFilter.calendarPeriod", "YEAR"), "ownershipScope", "BILLING_ACCOUNT"
    )
    assert [m.split(":")[0] for m in run(RULE, CAP, props)] == [
        "budgetFilter.calendarPeriod",
        "ownershipScope",
    ]


@pytest.mark.parametrize(
    "path",
    ["budgetFilter", "budgetFilter.projects", "budgetFilter.services", "amount", "thresholdRules",
     "notificationsRule", "spendCap", "spendCap.inputState", "parent", "ownershipScope"],
)  # fmt: skip
def test_unknown_values_at_preview_are_not_judged(path: str) -> None:
    assert run(RULE, CAP, changed(good(), path, UNKNOWN)) == []


def test_unset_period_and_unspecified_ownership_are_accepted() -> None:
    props = changed(
        changed(good(), "budgetFilter.calendarPeriod", DELETE), "ownershipScope", DELETE
    )
    assert run(RULE, CAP, props) == []
    assert run(RULE, CAP, changed(good(), "ownershipScope", "OWNERSHIP_SCOPE_UNSPECIFIED")) == []
    assert run(RULE, CAP, changed(good(), "amount.specifiedAmount.units", "0")) == []


# -- the rules agree with the discovery document ------------------------------------------------
DOC = "billingbudgets.v1"


def test_the_document_is_the_revision_cited() -> None:
    assert document(DOC)["revision"] == "20261011"
    assert "revision 20261011" in facts.DISCOVERY


def test_every_cited_schema_field_exists_and_its_documentation_states_a_spend_cap_rule() -> None:
    cited = set()
    for path, value, *_ in CASES:
        for message in run(RULE, CAP, changed(good(), path, value)):
            cited |= set(re.findall(r"\(rule: (\w+)\.(\w+);", message))
    assert len(cited) >= 15
    for schema, field in sorted(cited):
        props = properties(DOC, schema) if schema in document(DOC)["schemas"] else None
        assert props is not None and field in props, (schema, field)
        if schema in ("GoogleTypeMoney",) or field in ("displayName", "outputState"):
            continue  # general rules, not spend-cap ones
        text = props[field]["description"].lower()
        assert "spend_cap" in text or "spend cap" in text or field in ("spendCap", "inputState"), (
            schema,
            field,
        )


def test_the_thresholds_and_states_are_the_documents() -> None:
    rules = properties(DOC, "GoogleCloudBillingBudgetsV1Budget")["thresholdRules"]["description"]
    assert "`0.5`, `0.8`, and `1.0`" in rules
    assert facts.SPEND_CAP_THRESHOLDS == (0.5, 0.8, 1.0)
    cap = properties(DOC, "GoogleCloudBillingBudgetsV1SpendCap")
    assert {"CONFIGURED", "ENFORCED", "AWAITING_NEXT_PERIOD"} <= set(cap["inputState"]["enum"])
    assert cap["outputState"]["readOnly"] and cap["reconciling"]["readOnly"]
    f = properties(DOC, "GoogleCloudBillingBudgetsV1Filter")
    assert "EXCLUDE_ALL_CREDITS" in f["creditTypesTreatment"]["enum"]
    assert "MONTH" in f["calendarPeriod"]["enum"]
    assert "budgets-spend-caps#eligible-services" in f["services"]["description"]
    assert (
        "ALL_USERS"
        in properties(DOC, "GoogleCloudBillingBudgetsV1Budget")["ownershipScope"]["enum"]
    )


def test_every_key_of_the_rendered_body_is_a_budget_field() -> None:
    budget = properties(DOC, "GoogleCloudBillingBudgetsV1Budget")
    body = copy.deepcopy(good())
    del body["parent"]  # the create method's path parameter, not a field
    assert set(body) <= set(budget)
    assert all(not budget[k].get("readOnly") for k in body)


# -- the currency must be the billing account's ---------------------------------------------------
def _stack(cap_currency: str | None, budget_currency: str | None) -> list[StackResource]:
    cap = good()
    if cap_currency:
        cap["amount"]["specifiedAmount"]["currencyCode"] = cap_currency
    budget = {
        "billingAccount": "01D4EE-079462-DFD6EC",
        "amount": {"specifiedAmount": {"units": "5000"}},
    }
    if budget_currency:
        budget["amount"]["specifiedAmount"]["currencyCode"] = budget_currency
    return [StackResource(v.BUDGET, "budget", budget), StackResource(CAP, "cap", cap)]


def test_mlgov_billing_spend_cap_currency() -> None:
    name = "mlgov-billing-spend-cap-currency"
    [(index, message)] = list(spend_cap_currency(_stack("EUR", "USD"), PolicyConfig()))
    assert index == 1
    assert message.startswith(
        "amount.specifiedAmount.currencyCode 'EUR' differs from USD on the stack's other budgets "
        "of billing account 01D4EE-079462-DFD6EC: the currency must be the billing account's"
    )
    assert name.startswith("mlgov-billing-spend-cap")
    for cap, budget in ((None, "USD"), ("USD", "USD"), ("EUR", None)):
        assert list(spend_cap_currency(_stack(cap, budget), PolicyConfig())) == []
