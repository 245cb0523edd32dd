"""A budget notification acts only in its period and only when it is the stack's own (issue 19).

End to end through functions_framework against the fake cloud, whose wall clock reads
2026-11-21T05:00:00Z (conftest.WALL): November 2026's period began 2026-11-01T07:00:00Z,
midnight PDT. The stack's budget (conftest.STACK_BUDGET): account 01D4EE-079462-DFD6EC, 1000 USD,
monthly. A notification that does not act writes nothing (here: reads nothing either) and is
acknowledged (HTTP 200 to Eventarc), so Pub/Sub does not redeliver it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from govern import notifications
from govern.models import BudgetAlert, BudgetPolicy
from tests.functions.conftest import (
    ACCOUNT,
    BUDGET,
    DEV,
    PROD,
    WALL,
    budget_data,
    budget_dict,
    log_lines,
    pubsub_event,
    seed_budget,
    send_event,
    set_policy,
)

A = "us-central1-a"
OCTOBER = "2026-10-01T07:00:00Z"
ATTRIBUTES = {"billingAccountId": ACCOUNT, "budgetId": BUDGET, "schemaVersion": "1.0"}


def _event(data: dict, attributes: dict | None = None, published: str = "2026-11-21T04:59:00Z"):
    event = pubsub_event(data, {**ATTRIBUTES, **(attributes or {})})
    event.data["message"]["publishTime"] = published
    return event


def _summary(capsys) -> dict:
    lines = log_lines(capsys.readouterr().out)
    summaries = [line for line in lines if line.get("summary")]
    assert len(summaries) == 1, lines
    return summaries[0]


def _stopped(cloud) -> bool:
    return cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"


def test_an_october_message_delivered_in_november_acts_on_nothing(cloud, capsys):
    seed_budget(cloud)
    # 120% of October's budget: would stop everything and unlink billing, were it November's.
    data = {**budget_data(1.2, 1200), "costIntervalStart": OCTOBER}
    send_event(_event(data, published="2026-10-31T23:00:00Z"))
    assert cloud.server.calls() == []  # no write reached the fake (nor a read)
    assert cloud.billing.accounts[DEV] != ""
    line = _summary(capsys)
    assert (line["severity"], line["verdict"], line["answer"]) == (
        "WARNING",
        "previous period",
        "acknowledged",
    )
    assert "previous period: costIntervalStart 2026-10-01T07:00:00Z" in line["message"]
    assert "began 2026-11-01T07:00:00Z" in line["message"]


def test_a_current_period_message_two_days_late_still_acts(cloud):
    seed_budget(cloud)
    send_event(_event(budget_data(1.2, 1250), published="2026-11-19T05:00:00Z"))
    assert _stopped(cloud)
    assert cloud.compute.status(PROD, A, "prod-vm") == "TERMINATED"
    assert cloud.billing.accounts[DEV] == ""  # 125% >= disable_billing_at 120%


def test_november_is_judged_in_pacific_time(cloud, capsys):
    # 2026-12-01T07:30:00Z is 23:30 PST on November 30: November's message still acts.
    cloud.clock.set_wall(datetime(2026, 12, 1, 7, 30, tzinfo=UTC))
    seed_budget(cloud)
    send_event(_event(budget_data(1.0, 1000)))
    assert _stopped(cloud)
    # At midnight PST it is December's period: the same message is late and acts on nothing.
    cloud.compute.add(DEV, A, "vm-later")
    cloud.clock.set_wall(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    capsys.readouterr()
    send_event(_event(budget_data(1.0, 1000)))
    assert cloud.compute.status(DEV, A, "vm-later") == "RUNNING"
    assert _summary(capsys)["verdict"] == "previous period"


def test_a_quarterly_budget_acts_on_a_message_of_its_quarter(cloud, monkeypatch):
    set_policy(monkeypatch, budgets={BUDGET: budget_dict(period="QUARTER")})
    seed_budget(cloud)
    send_event(_event({**budget_data(1.0, 1000), "costIntervalStart": OCTOBER}))
    assert _stopped(cloud)


def test_a_foreign_billing_account_acts_on_nothing_and_names_both_accounts(cloud, capsys):
    seed_budget(cloud)
    send_event(_event(budget_data(1.5, 1500), {"billingAccountId": "012345-6789AB-CDEF01"}))
    assert cloud.server.calls() == []
    line = _summary(capsys)
    assert (line["severity"], line["verdict"], line["answer"]) == (
        "ERROR",
        "mismatch",
        "acknowledged",
    )
    assert line["mismatches"] == {
        "billingAccountId": {"message": "012345-6789AB-CDEF01", "stack": ACCOUNT}
    }
    assert "'012345-6789AB-CDEF01' is not the stack's '01D4EE-079462-DFD6EC'" in line["message"]


def test_a_message_without_a_billing_account_acts_on_nothing(cloud, capsys):
    seed_budget(cloud)
    event = pubsub_event(budget_data(1.5, 1500), {"budgetId": BUDGET, "schemaVersion": "1.0"})
    send_event(event)
    assert cloud.server.calls() == []
    assert _summary(capsys)["mismatches"]["billingAccountId"] == {"message": "", "stack": ACCOUNT}


def test_another_currency_acts_on_nothing(cloud, capsys):
    seed_budget(cloud)
    send_event(_event({**budget_data(1.5, 1500), "currencyCode": "EUR"}))
    assert cloud.server.calls() == []
    line = _summary(capsys)
    assert line["severity"] == "ERROR"
    assert line["mismatches"] == {"currencyCode": {"message": "EUR", "stack": "USD"}}


def test_another_budget_id_acts_on_nothing_and_names_both_ids(cloud, capsys):
    seed_budget(cloud)
    send_event(_event(budget_data(1.5, 1500), {"budgetId": "0a1b2c3d-spend-cap"}))
    assert cloud.server.calls() == []
    line = _summary(capsys)
    assert (line["severity"], line["answer"]) == ("ERROR", "acknowledged")
    assert "'0a1b2c3d-spend-cap' is not in MLGOV_POLICY.budgets" in line["message"]
    assert repr(BUDGET) in line["message"]


def test_a_budget_amount_of_1_in_the_message_does_not_change_the_decision(cloud, capsys):
    seed_budget(cloud)
    # 500 of the stack's 1000 is 50%: nothing, whatever the message says its budget is.
    send_event(_event(budget_data(1.0, cost=500, budget=1)))
    assert cloud.server.calls() == []
    lines = log_lines(capsys.readouterr().out)
    warning = next(x for x in lines if x["severity"] == "WARNING")
    assert "budgetAmount 1 is not the stack's amount 1000" in warning["message"]
    assert "50% of budget" in lines[-1]["message"]


def test_a_huge_budget_amount_in_the_message_does_not_hide_the_spend(cloud):
    seed_budget(cloud)
    # 1000 of the stack's 1000 is 100%: stop, even though the message claims a budget of 1e9.
    send_event(_event(budget_data(None, cost=1000, budget=1e9)))
    assert _stopped(cloud)
    assert cloud.billing.accounts[DEV] != ""  # 100% < disable_billing_at 120%


def test_a_policy_without_the_budget_keys_still_acts_and_warns_once(cloud, monkeypatch, capsys):
    required_only = {"projects": [DEV, PROD], "stop_at": 1.0, "disable_billing_at": 1.2}
    set_policy(monkeypatch, budgets={BUDGET: required_only})
    seed_budget(cloud)
    send_event(_event(budget_data(1.0, 1000), {"billingAccountId": "012345-6789AB-CDEF01"}))
    assert _stopped(cloud)  # the account is not checked: the policy does not say which it is
    warnings = [
        x
        for x in log_lines(capsys.readouterr().out)
        if "unchecked" in x and x["severity"] == "WARNING"
    ]
    assert len(warnings) == 1
    assert warnings[0]["unchecked"] == ["billing_account", "amount", "currency", "period"]
    assert "billingAccountId is not checked" in warnings[0]["message"]


def test_without_a_period_key_budgets_are_judged_monthly(cloud, monkeypatch):
    budget = budget_dict()
    del budget["period"]
    set_policy(monkeypatch, budgets={BUDGET: budget})
    seed_budget(cloud)
    send_event(_event({**budget_data(1.2, 1200), "costIntervalStart": OCTOBER}))
    assert cloud.server.calls() == []


# -- the judgement itself, pure ------------------------------------------------------------------

STACK = BudgetPolicy(
    ("p",), 1.0, None, billing_account=ACCOUNT, amount=1000.0, currency="USD", period="MONTH"
)


def _alert(**changes) -> BudgetAlert:
    base = {
        "budget_id": BUDGET,
        "cost_amount": 1200.0,
        "budget_amount": 1000.0,
        "billing_account_id": ACCOUNT,
        "currency": "USD",
        "cost_interval_start": "2026-11-01T07:00:00Z",
    }
    return BudgetAlert(**{**base, **changes})


@pytest.mark.parametrize(
    ("changes", "verdict", "severity"),
    [
        ({}, "acts", "INFO"),
        ({"billing_account_id": "01d4ee-079462-dfd6ec"}, "acts", "INFO"),  # same id, lower case
        ({"cost_interval_start": OCTOBER}, "previous period", "WARNING"),
        ({"cost_interval_start": ""}, "undated", "ERROR"),
        ({"cost_interval_start": "last month"}, "undated", "ERROR"),
        ({"currency": "EUR"}, "mismatch", "ERROR"),
        # A foreign account is reported as such even when its message is late too.
        ({"billing_account_id": "X", "cost_interval_start": OCTOBER}, "mismatch", "ERROR"),
    ],
)
def test_judge(changes, verdict, severity):
    judgement = notifications.judge(_alert(**changes), STACK, WALL)
    assert (judgement.verdict, judgement.severity) == (verdict, severity)
    assert judgement.acts is (verdict == "acts")


def test_unchecked_keys_are_named_once_and_only_when_absent():
    assert notifications.unchecked(BUDGET, STACK) is None
    bare = BudgetPolicy(("p",), 1.0, None, currency="USD")
    warning = notifications.unchecked(BUDGET, bare)
    assert warning is not None
    assert warning.startswith(
        f"MLGOV_POLICY.budgets.{BUDGET} has no billing_account, amount, period"
    )
