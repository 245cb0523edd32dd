"""on_budget_alert for a spend cap's alerts-only budget: the cap's state is reported, nothing done.

End to end (functions_framework, the real REST adapter) against the fake Budget API, whose
requests and answers are checked against the billingbudgets.v1 discovery document; the policy
parser's `spend_caps` key; and the flow over memory ports.
"""

from __future__ import annotations

import copy
import json

import pytest

from govern import flows
from govern.execute import Runner
from govern.models import BudgetAlert, PolicyError, SpendCapState
from govern.parse import action_policy
from governance.fakecloud.billingbudgets import ACCOUNT
from tests.functions.conftest import (
    DEV,
    budget_data,
    log_lines,
    policy_dict,
    pubsub_event,
    send_event,
    set_policy,
)
from tests.functions.memory import MemoryCloud, MemoryPorts
from tests.spend_caps.discovery import check_exchange

PAIR = "0f3c1a2b-cap-alerts"
CAP = f"billingAccounts/{ACCOUNT}/budgets/00000042-fake"
VERTEX = "services/C7E2-9256-1C43"
CAPS = {
    PAIR: {
        "project": DEV,
        "service_key": "vertex_ai",
        "service": VERTEX,
        "cap": CAP,
        "amount": 2000,
    }
}


def seed_cap(cloud, output_state: str = "CONFIGURED", reconciling: bool = False) -> None:
    cloud.budgets.budgets[CAP] = {
        "name": CAP,
        "displayName": "acme-dev-cap-vertex-ai",
        "budgetFilter": {"projects": ["projects/123456789012"], "services": [VERTEX],
                         "creditTypesTreatment": "EXCLUDE_ALL_CREDITS", "calendarPeriod": "MONTH"},
        "amount": {"specifiedAmount": {"units": "2000", "currencyCode": "USD"}},
        "thresholdRules": [{"thresholdPercent": t, "spendBasis": "CURRENT_SPEND"} for t in (0.5, 0.8, 1.0)],
        "notificationsRule": {"enableProjectLevelRecipients": True},
        "ownershipScope": "ALL_USERS",
        "etag": "etag-1",
        "spendCap": {"inputState": "CONFIGURED", "outputState": output_state, "reconciling": reconciling},
    }  # fmt: skip


def pair_alert(cost: float, threshold: float | None = None):
    attributes = {"billingAccountId": ACCOUNT, "budgetId": PAIR, "schemaVersion": "1.0"}
    return pubsub_event(budget_data(threshold, cost, 2000.0), attributes)


def summary(capsys) -> dict:
    [line] = [entry for entry in log_lines(capsys.readouterr().out) if entry.get("summary")]
    return line


def test_an_enforced_cap_is_reported_as_blocking_and_nothing_is_done(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, spend_caps=CAPS)
    cloud.compute.add(DEV, "us-central1-a", "vm")  # running, would be stopped by the project budget
    seed_cap(cloud, "ENFORCED")
    send_event(pair_alert(2100.0, 1.0))
    line = summary(capsys)
    assert line["severity"] == "WARNING"
    assert line["message"].startswith(
        f"budget alert: spend cap on vertex_ai in {DEV} is ENFORCED: new usage of vertex_ai is "
        "blocked (gross spend 2,100.00 of 2,000.00 (105%))"
    )
    assert "mlgov cap lift --service vertex_ai" in line["message"]
    assert line["spend_cap"] == {
        "name": CAP, "service": "vertex_ai", "project": DEV, "amount": 2000.0,
        "output_state": "ENFORCED", "input_state": "CONFIGURED", "reconciling": False,
        "spend_ratio": 1.05, "error": None,
    }  # fmt: skip
    assert line["actions"] == [] and line["answer"] == "acknowledged"
    assert cloud.mutations() == []  # read-only: no stop, no lift
    [call] = cloud.server.calls()
    assert (call.method, call.path) == ("GET", f"/v1/{CAP}")
    for request, reply in cloud.server.exchanges:
        assert check_exchange(request, reply) == "billingbudgets.billingAccounts.budgets.get"


def test_a_cap_below_its_amount_is_info_and_says_when_google_blocks(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, spend_caps=CAPS)
    seed_cap(cloud, "CONFIGURED", reconciling=True)
    send_event(pair_alert(1200.0, 0.5))
    line = summary(capsys)
    assert line["severity"] == "INFO"
    assert line["message"] == (
        f"budget alert: spend cap on vertex_ai in {DEV} is CONFIGURED: gross spend 1,200.00 of "
        "2,000.00 (60%); Google blocks new usage at 100%; Google is changing its state "
        "(reconciling)"
    )
    assert line["spend_cap"]["reconciling"] is True


def test_a_lifted_cap_says_it_re_arms_next_month(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, spend_caps=CAPS)
    seed_cap(cloud, "AWAITING_NEXT_PERIOD")
    send_event(pair_alert(2300.0, 1.0))
    assert "was lifted; it re-arms at the start of next month" in summary(capsys)["message"]


def test_an_unreadable_cap_is_a_warning_and_the_alert_is_acknowledged(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, spend_caps=CAPS)  # no cap at CAP: 404
    send_event(pair_alert(2100.0, 1.0), status=200)
    line = summary(capsys)
    assert line["severity"] == "WARNING"
    assert "state unreadable" in line["message"] and "not found" in line["spend_cap"]["error"]
    assert cloud.mutations() == []


def test_the_projects_budget_still_stops_workloads_beside_caps(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, spend_caps=CAPS)
    cloud.compute.add(DEV, "us-central1-a", "vm")
    send_event(pubsub_event(budget_data(1.0, 1000.0)))  # the project budget's own alert
    assert [c.path.rsplit("/", 1)[-1] for c in cloud.mutations()] == ["stop"]
    assert cloud.server.calls("GET", "/budgets/") == []


# -- MLGOV_POLICY.spend_caps ----------------------------------------------------------------------
def test_the_policy_without_spend_caps_has_none():
    assert action_policy(json.dumps(policy_dict())).spend_caps == {}


def test_the_policy_reads_spend_caps():
    [(pair, cap)] = action_policy(json.dumps(policy_dict(spend_caps=CAPS))).spend_caps.items()
    assert pair == PAIR and (cap.project, cap.service_key, cap.cap, cap.amount) == (
        DEV,
        "vertex_ai",
        CAP,
        2000.0,
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"project": "other"}, f"MLGOV_POLICY.spend_caps.{PAIR}.project: 'other' is not in MLGOV_POLICY.projects"),
        ({"cap": "budgets/1"}, f"MLGOV_POLICY.spend_caps.{PAIR}.cap: 'budgets/1' is not billingAccounts/<id>/budgets/<id>"),
        ({"amount": -1}, f"MLGOV_POLICY.spend_caps.{PAIR}.amount: must be a number >= 0, got -1"),
        ({"amount": True}, f"MLGOV_POLICY.spend_caps.{PAIR}.amount: must be a number >= 0, got True"),
        ({"extra": 1}, f"MLGOV_POLICY.spend_caps.{PAIR}: unknown key(s) extra"),
    ],
)  # fmt: skip
def test_bad_spend_caps_name_the_key(change, message):
    caps = copy.deepcopy(CAPS)
    caps[PAIR].update(change)
    with pytest.raises(PolicyError) as err:
        action_policy(json.dumps(policy_dict(spend_caps=caps)))
    assert str(err.value) == message


def test_a_budget_cannot_be_both_a_project_budget_and_a_caps_pair():
    raw = policy_dict()
    [budget] = raw["budgets"]
    caps = {budget: CAPS[PAIR]}
    with pytest.raises(PolicyError, match=f"spend_caps.{budget}: also in MLGOV_POLICY.budgets"):
        action_policy(json.dumps({**raw, "spend_caps": caps}))


# -- the flow over memory ports ----------------------------------------------------------------------
def test_the_flow_reads_the_cap_once_and_returns_a_notice():
    policy = action_policy(json.dumps(policy_dict(spend_caps=CAPS)))
    cloud = MemoryCloud()
    cloud.spend_caps[CAP] = SpendCapState(CAP, "CONFIGURED", "ENFORCED", False, 2000.0, "USD")
    runner = Runner(policy)
    alert = BudgetAlert(budget_id=PAIR, cost_amount=2500.0, budget_amount=2000.0)
    notice = flows.budget_alert(alert, MemoryPorts(cloud), runner)
    assert isinstance(notice, flows.SpendCapNotice)
    assert notice.severity == "WARNING" and notice.state is not None
    assert cloud.called("budgets.get_spend_cap") == [(CAP,)]
    assert cloud.methods() == {"budgets.get_spend_cap"}
