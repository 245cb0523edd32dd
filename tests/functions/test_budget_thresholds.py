"""The budget cap decides on costAmount / budgetAmount, with notifications shaped as Google sends them.

Shapes: Google's documented notification example and its test message, and the cap-billing
walkthrough's message that has no threshold at all, all in tests/functions/data (SOURCES.md
there says where each came from).
`alertThresholdExceeded` is the highest threshold crossed, so it never exceeds the highest
configured one: a stop level above it is reachable only through the spend ratio.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tests.functions.conftest import (
    BUDGET,
    DATA,
    DEV,
    PROD,
    STACK_BUDGET,
    log_lines,
    pubsub_event,
    seed_budget,
    send_event,
    set_policy,
)

A, B = "us-central1-a", "us-central1-b"
ATTRIBUTES = json.loads((DATA / "budget-notification-format-example.json").read_text())[
    "attributes"
]
# The test message reports on January 2019 (costIntervalStart 2019-01-01T00:00:00Z) and its
# budget is 100.00 USD: the stack's budget here is that one, and "now" is in that month.
IN_ITS_MONTH = datetime(2019, 1, 15, 12, 0, tzinfo=UTC)
HUNDRED = {**STACK_BUDGET, "amount": 100.0}


def _budget(stop_at: float, disable_billing_at: float | None, **keys: object) -> dict:
    return {
        BUDGET: {
            "projects": [DEV, PROD],
            "stop_at": stop_at,
            "disable_billing_at": disable_billing_at,
            **HUNDRED,
            **keys,
        }
    }


@pytest.fixture(autouse=True)
def _the_test_messages_budget(cloud, monkeypatch):
    cloud.clock.set_wall(IN_ITS_MONTH)
    set_policy(monkeypatch, budgets=_budget(1.0, 1.2))


def _documented(**changes: float) -> dict:
    """Google's test message (threshold 1.0, 100.01 of 100.00 USD), with `changes`."""
    msg = json.loads(
        (DATA / "budget-notification-test-message-listen-to-notifications.json").read_text()
    )
    return {**msg, **changes}


def _prod_like(monkeypatch) -> None:
    """The shipped prod before this change: thresholds up to 1.0, stop_at 1.1, no unlink."""
    set_policy(monkeypatch, budgets=_budget(1.1, None))


def _stopped(cloud) -> list[str]:
    return sorted(r.path.rsplit("/", 2)[-2] for r in cloud.server.calls("POST", "/stop"))


def test_at_three_times_the_budget_a_stop_level_above_every_threshold_fires(cloud, monkeypatch):
    _prod_like(monkeypatch)
    seed_budget(cloud)
    send_event(pubsub_event(_documented(costAmount=300.0), ATTRIBUTES))
    assert cloud.compute.status(PROD, A, "prod-vm") == "TERMINATED"
    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"
    assert _stopped(cloud) == ["gpu-run", "prod-vm", "vm-run"]
    assert len(cloud.mutations()) == 5  # 3 VMs, 1 notebook, 1 TPU; billing untouched
    assert cloud.server.calls(path_contains="billingInfo") == []


def test_just_below_a_stop_level_above_every_threshold_nothing_happens(cloud, monkeypatch):
    _prod_like(monkeypatch)
    seed_budget(cloud)
    send_event(pubsub_event(_documented(costAmount=109.0), ATTRIBUTES))
    assert cloud.server.calls() == []


def test_a_threshold_the_cost_does_not_support_is_logged_as_inconsistent_and_ignored(cloud, capsys):
    seed_budget(cloud)
    send_event(pubsub_event(_documented(alertThresholdExceeded=5.0, costAmount=0.0), ATTRIBUTES))
    assert cloud.server.calls() == []  # nothing read, nothing stopped, billing kept
    assert cloud.billing.accounts[DEV] != ""
    [line] = log_lines(capsys.readouterr().out)
    assert line["severity"] == "WARNING"
    assert "inconsistent notification: alertThresholdExceeded 5" in line["message"]


def test_the_unlink_level_above_every_threshold_is_reached_by_the_ratio(cloud):
    # dev before this change: thresholds [0.5, 0.9, 1.0], disable_billing_at 1.5 (here 1.2).
    seed_budget(cloud)
    send_event(pubsub_event(_documented(costAmount=160.0), ATTRIBUTES))
    assert cloud.billing.accounts[DEV] == ""  # allow_billing_disable: true
    assert cloud.billing.accounts[PROD] != ""
    assert len(cloud.server.calls("PUT")) == 1
    assert len(cloud.mutations()) == 6


def test_a_message_without_any_threshold_acts_on_its_ratio(cloud):
    seed_budget(cloud)
    msg = _documented()
    del msg["alertThresholdExceeded"]
    send_event(pubsub_event(msg, ATTRIBUTES))
    assert _stopped(cloud) == ["gpu-run", "prod-vm", "vm-run"]
    assert len(cloud.mutations()) == 5  # 100.01% < disable_billing_at 120%: billing kept


def test_the_walkthrough_message_names_no_period_or_currency_and_acts_on_nothing(cloud, capsys):
    # The walkthrough's message: {"costAmount": 100.01, "budgetAmount": 100.00}, nothing else. No
    # costIntervalStart: it could be any period's (a late October message, say); no currencyCode.
    seed_budget(cloud)
    msg = json.loads((DATA / "cap-billing-walkthrough-test-message.json").read_text())
    send_event(pubsub_event(msg, ATTRIBUTES))
    assert cloud.server.calls() == []
    [line] = log_lines(capsys.readouterr().out)
    assert (line["severity"], line["verdict"]) == ("ERROR", "mismatch")
    assert line["mismatches"] == {"currencyCode": {"message": "", "stack": "USD"}}


def test_the_documented_example_below_stop_at_does_nothing(cloud, monkeypatch):
    # Its budget: 152.557 USD; its period: February 2021.
    cloud.clock.set_wall(datetime(2021, 2, 20, tzinfo=UTC))
    set_policy(monkeypatch, budgets=_budget(1.0, 1.2, amount=152.557))
    seed_budget(cloud)
    doc = json.loads((DATA / "budget-notification-format-example.json").read_text())
    send_event(pubsub_event(doc["data"], doc["attributes"]))  # 0.9 crossed, 92% spent
    assert cloud.server.calls() == []


def test_a_forecast_alone_never_acts(cloud):
    seed_budget(cloud)
    send_event(
        pubsub_event(
            _documented(alertThresholdExceeded=0.5, costAmount=50.0, forecastThresholdExceeded=3.0),
            ATTRIBUTES,
        )
    )
    assert cloud.server.calls() == []
