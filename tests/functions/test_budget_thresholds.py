"""The budget cap decides on costAmount / budgetAmount, with notifications shaped as Google sends them.

Shapes: Google's documented notification example and its test message
(../shared/realdata/gcp-billing-budget-docs/), and the cap-billing walkthrough's message that has
no threshold at all (../shared/realdata/python-docs-samples/), all copied to tests/functions/data.
`alertThresholdExceeded` is the highest threshold crossed, so it never exceeds the highest
configured one: a stop level above it is reachable only through the spend ratio.
"""

from __future__ import annotations

import json

from tests.functions.conftest import (
    BUDGET,
    DATA,
    DEV,
    PROD,
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


def _documented(**changes: float) -> dict:
    """Google's test message (threshold 1.0, 100.01 of 100.00 USD), with `changes`."""
    msg = json.loads(
        (DATA / "budget-notification-test-message-listen-to-notifications.json").read_text()
    )
    return {**msg, **changes}


def _prod_like(monkeypatch) -> None:
    """The shipped prod before this change: thresholds up to 1.0, stop_at 1.1, no unlink."""
    set_policy(
        monkeypatch,
        budgets={BUDGET: {"projects": [DEV, PROD], "stop_at": 1.1, "disable_billing_at": None}},
    )


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
    # The walkthrough's message: {"costAmount": 100.01, "budgetAmount": 100.00}, nothing else.
    seed_budget(cloud)
    msg = json.loads((DATA / "cap-billing-walkthrough-test-message.json").read_text())
    send_event(pubsub_event(msg, ATTRIBUTES))
    assert _stopped(cloud) == ["gpu-run", "prod-vm", "vm-run"]
    assert len(cloud.mutations()) == 5  # 100.01% < disable_billing_at 120%: billing kept


def test_the_documented_example_below_stop_at_does_nothing(cloud):
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
