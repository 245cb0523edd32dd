"""End to end through functions_framework with real clients against the fake cloud."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest
from cloudevents.conversion import to_binary

from governance.fakecloud.recommender import instance_recommendation
from tests.functions.conftest import (
    ACCOUNT,
    BUDGET,
    DATA,
    DEV,
    PROD,
    app_client,
    budget_data,
    budget_dict,
    http,
    log_lines,
    post_report,
    pubsub_event,
    seed_budget,
    send_event,
    set_policy,
    workbench_vm,
)

A, B = "us-central1-a", "us-central1-b"


def _targets(lines, outcome):
    return sorted(line["target"] for line in lines if line.get("outcome") == outcome)


def test_budget_at_disable_threshold_stops_governed_and_unlinks_opted_in_billing(cloud, capsys):
    seed_budget(cloud)
    send_event(pubsub_event(budget_data(1.2, 1250)))
    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"
    assert cloud.compute.status(DEV, A, "gpu-run") == "TERMINATED"
    assert cloud.compute.status(PROD, A, "prod-vm") == "TERMINATED"
    for untouched in [
        (DEV, B, "vm-exempt"),
        (DEV, A, "gke-node"),
        (DEV, A, "nb-vm"),
        (DEV, "europe-west4-a", "vm-elsewhere"),
    ]:
        assert cloud.compute.status(*untouched) == "RUNNING", untouched
    assert cloud.notebooks.state(DEV, A, "nb-1") == "STOPPED"
    assert cloud.notebooks.state(DEV, B, "nb-exempt") == "ACTIVE"
    assert cloud.tpu.state(DEV, B, "tpu-1") == "STOPPED"
    assert cloud.billing.accounts[DEV] == ""  # allow_billing_disable: true
    assert cloud.billing.accounts[PROD] != ""  # allow_billing_disable: false
    puts = cloud.server.calls("PUT", "/billingInfo")
    assert [(r.path, r.body) for r in puts] == [(f"/v1/projects/{DEV}/billingInfo", {})]
    stops = sorted(r.path for r in cloud.server.calls("POST"))
    assert stops == sorted(
        [
            f"/compute/v1/projects/{DEV}/zones/{A}/instances/gpu-run/stop",
            f"/compute/v1/projects/{DEV}/zones/{A}/instances/vm-run/stop",
            f"/compute/v1/projects/{PROD}/zones/{A}/instances/prod-vm/stop",
            f"/v2/projects/{DEV}/locations/{A}/instances/nb-1:stop",
            f"/v2/projects/{DEV}/locations/{B}/nodes/tpu-1:stop",
        ]
    )
    lines = log_lines(capsys.readouterr().out)
    skipped = {line["target"]: line["reason"] for line in lines if line.get("outcome") == "skipped"}
    assert (
        "exempt"
        in skipped[f"//compute.googleapis.com/projects/{DEV}/zones/{B}/instances/vm-exempt"]
    )
    assert "gke" in skipped[f"//compute.googleapis.com/projects/{DEV}/zones/{A}/instances/gke-node"]
    assert (
        "Notebooks API"
        in skipped[f"//compute.googleapis.com/projects/{DEV}/zones/{A}/instances/nb-vm"]
    )
    assert (
        "not running"
        in skipped[f"//compute.googleapis.com/projects/{DEV}/zones/{A}/instances/vm-stopped"]
    )
    assert all(
        {"severity", "message", "target", "outcome"} <= set(line)
        for line in lines
        if "target" in line
    )


def test_budget_between_thresholds_stops_but_keeps_billing(cloud):
    seed_budget(cloud)
    send_event(pubsub_event(budget_data(1.0, 1000)))
    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"
    assert cloud.billing.accounts[DEV] != ""
    assert not cloud.server.calls(path_contains="billingInfo")


@pytest.mark.parametrize(
    "data",
    [
        budget_data(0.9, 900),
        budget_data(None, 500),
        {**budget_data(0.5, 500), "forecastThresholdExceeded": 1.5},
    ],
)
def test_below_stop_at_or_forecast_only_does_nothing(cloud, data):
    seed_budget(cloud)
    send_event(pubsub_event(data))
    assert cloud.server.calls() == []


def test_documented_examples_parse_and_act_by_their_threshold(cloud, monkeypatch):
    # Each in its own period, against a stack budget of its own amount.
    seed_budget(cloud)
    doc = json.loads((DATA / "budget-notification-format-example.json").read_text())
    cloud.clock.set_wall(datetime(2021, 2, 20, tzinfo=UTC))
    set_policy(monkeypatch, budgets={BUDGET: budget_dict(amount=152.557)})
    send_event(pubsub_event(doc["data"], doc["attributes"]))  # 0.9 actual (forecast 0.2): nothing
    assert cloud.server.calls() == []
    test_msg = json.loads(
        (DATA / "budget-notification-test-message-listen-to-notifications.json").read_text()
    )
    cloud.clock.set_wall(datetime(2019, 1, 15, tzinfo=UTC))
    set_policy(monkeypatch, budgets={BUDGET: budget_dict(amount=100.0)})
    send_event(pubsub_event(test_msg))  # alertThresholdExceeded 1.0 => stop
    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"
    assert cloud.billing.accounts[DEV] != ""


def test_cap_billing_walkthrough_message_without_attributes_is_rejected_cleanly(cloud, capsys):
    seed_budget(cloud)
    msg = json.loads((DATA / "cap-billing-walkthrough-test-message.json").read_text())
    send_event(pubsub_event(msg, attributes={}))
    errors = [x for x in log_lines(capsys.readouterr().out) if x["severity"] == "ERROR"]
    assert len(errors) == 1
    assert "budgetId" in errors[0]["message"]
    assert cloud.server.calls() == []


def test_without_alert_threshold_uses_cost_over_budget(cloud):
    seed_budget(cloud)
    send_event(pubsub_event(budget_data(None, cost=1300, budget=1000)))
    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"
    assert cloud.billing.accounts[DEV] == ""


def test_redelivery_five_times_makes_no_extra_changes(cloud):
    seed_budget(cloud)
    client = app_client("on_budget_alert", "cloudevent")
    event = pubsub_event(budget_data(1.3, 1300), message_id="same-id")
    send_event(event, client)
    first = len(cloud.mutations())
    assert first == 6  # 5 stops + 1 unlink
    for _ in range(4):
        send_event(event, client)
    assert len(cloud.mutations()) == first


def test_raw_pubsub_push_body_is_accepted(cloud):
    seed_budget(cloud)
    client = app_client("on_budget_alert", "cloudevent")
    body = {
        "message": {
            "data": base64.b64encode(json.dumps(budget_data(1.0, 1000)).encode()).decode(),
            "attributes": {"budgetId": BUDGET, "schemaVersion": "1.0", "billingAccountId": ACCOUNT},
            "messageId": "42",
            "publishTime": "2026-11-21T05:00:00.000Z",
        },
        "subscription": "projects/acme-ml-dev/subscriptions/push",
    }
    response = client.post("/", json=body)
    assert response.status_code == 200
    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"


def test_binary_cloudevent_is_accepted(cloud):
    seed_budget(cloud)
    client = app_client("on_budget_alert", "cloudevent")
    headers, body = to_binary(pubsub_event(budget_data(1.0, 1000)))
    assert client.post("/", headers=headers, data=body).status_code == 200
    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"


@pytest.mark.parametrize(
    ("data", "attributes", "needle"),
    [
        (b"not json at all", None, "not base64-encoded JSON"),
        (
            budget_data(1.5, 1500),
            {"budgetId": "unknown-budget", "schemaVersion": "1.0"},
            "not in MLGOV_POLICY",
        ),
        (budget_data(1.5, 1500), {"budgetId": BUDGET, "schemaVersion": "2.0"}, "schemaVersion"),
        ({"costAmount": "lots", "budgetAmount": 1}, None, "costAmount"),
        ([1, 2, 3], None, "JSON object"),
    ],
)
def test_bad_messages_are_one_error_line_and_no_action(cloud, capsys, data, attributes, needle):
    seed_budget(cloud)
    send_event(pubsub_event(data, attributes))
    lines = log_lines(capsys.readouterr().out)
    assert [x["severity"] for x in lines] == ["ERROR"]
    assert needle in lines[0]["message"]
    assert cloud.server.calls() == []


def test_dry_run_makes_zero_mutating_calls(cloud, monkeypatch, capsys):
    seed_budget(cloud)
    set_policy(monkeypatch, dry_run=True)
    send_event(pubsub_event(budget_data(1.5, 1500)))
    assert cloud.mutations() == []
    simulated = _targets(log_lines(capsys.readouterr().out), "simulated")
    assert f"//cloudbilling.googleapis.com/projects/{DEV}/billingInfo" in simulated
    assert f"//compute.googleapis.com/projects/{DEV}/zones/{A}/instances/vm-run" in simulated


def test_dry_run_defaults_to_true_when_absent(cloud, monkeypatch):
    seed_budget(cloud)
    from tests.functions.conftest import policy_dict

    policy = policy_dict()
    del policy["dry_run"]
    monkeypatch.setenv("MLGOV_POLICY", json.dumps(policy))
    send_event(pubsub_event(budget_data(1.5, 1500)))
    assert cloud.mutations() == []
    assert cloud.server.calls("GET")  # it did read, and simulated


# -- reap_idle_vms --------------------------------------------------------------------------------


def test_reap_idle_vms_claims_stops_and_marks(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    cloud.compute.add(DEV, B, "idle-2")
    cloud.compute.add(DEV, A, "idle-exempt", labels={"mlgov-exempt": "true"})
    cloud.compute.add(DEV, A, "idle-stopped", status="TERMINATED")
    r1 = cloud.recommender.add(DEV, A, "idle-1")
    r2 = cloud.recommender.add(DEV, B, "idle-2")
    r3 = cloud.recommender.add(DEV, A, "idle-exempt")
    r4 = cloud.recommender.add(DEV, A, "idle-stopped")
    r5 = cloud.recommender.add(DEV, A, "idle-1", state="DISMISSED")
    r6 = cloud.recommender.add(DEV, A, "gone-vm")
    report = post_report("reap_idle_vms")
    assert cloud.compute.status(DEV, A, "idle-1") == "TERMINATED"
    assert cloud.compute.status(DEV, B, "idle-2") == "TERMINATED"
    assert cloud.compute.status(DEV, A, "idle-exempt") == "RUNNING"
    assert [cloud.recommender.state(r["name"]) for r in (r1, r2, r3, r4, r5, r6)] == [
        "SUCCEEDED",
        "SUCCEEDED",
        "ACTIVE",
        "ACTIVE",
        "DISMISSED",
        "ACTIVE",
    ]
    outcomes = {a["target"].rsplit("/", 1)[-1]: a["outcome"] for a in report["actions"]}
    assert outcomes == {
        "idle-1": "done",
        "idle-2": "done",
        "idle-exempt": "skipped",
        "idle-stopped": "skipped",
        "gone-vm": "skipped",
    }
    assert len(report["actions"]) == 5  # DISMISSED never listed (filter stateInfo.state = ACTIVE)
    lists = cloud.server.calls("GET", "/recommendations")
    assert all(
        r.query["filter"] == ["stateInfo.state = ACTIVE OR stateInfo.state = CLAIMED"]
        for r in lists
    )
    marks = [
        (r.path.rsplit(":", 1)[-1], r.body["etag"]) for r in cloud.server.calls("POST", ":mark")
    ]
    assert [m for m, _ in marks].count("markClaimed") == 2
    assert [m for m, _ in marks].count("markSucceeded") == 2


@pytest.mark.parametrize("change", ["etag", "DISMISSED", "CLAIMED"])
def test_reap_idle_vms_concurrent_change_skips_without_stopping(cloud, change):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.recommender.change_after_list = change  # someone acts between our list and our claim
    report = post_report("reap_idle_vms")
    assert cloud.compute.status(DEV, A, "idle-1") == "RUNNING"
    assert report["actions"][0]["outcome"] == "skipped"
    assert "concurrently" in report["actions"][0]["reason"]
    assert cloud.server.calls("POST", "/stop") == []
    assert cloud.recommender.state(rec["name"]) == ("ACTIVE" if change == "etag" else change)


def test_reap_idle_vms_instance_stopped_meanwhile(cloud):
    cloud.compute.add(DEV, A, "idle-1", status="STOPPING")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    report = post_report("reap_idle_vms")
    assert report["actions"][0]["outcome"] == "skipped"
    assert "not running" in report["actions"][0]["reason"]
    assert cloud.recommender.state(rec["name"]) == "ACTIVE"
    assert cloud.mutations() == []


def test_reap_idle_vms_marks_failed_when_stop_fails(cloud, monkeypatch):
    set_policy(monkeypatch, time_budget_seconds=5)
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(r"/instances/idle-1/stop$", 403, times=5)
    report = post_report("reap_idle_vms", status=503)
    assert report["actions"][0]["outcome"] == "failed"
    assert cloud.recommender.state(rec["name"]) == "FAILED"
    assert "reason" in cloud.recommender.recs[rec["name"]]["stateInfo"]["stateMetadata"]


def test_reap_idle_vms_dry_run(cloud, monkeypatch):
    set_policy(monkeypatch, dry_run=True)
    cloud.compute.add(DEV, A, "idle-1")
    cloud.recommender.add(DEV, A, "idle-1")
    report = post_report("reap_idle_vms")
    assert report["counts"] == {"simulated": 1}
    assert cloud.mutations() == []


def test_http_entry_points_reject_get_and_bad_policy(cloud, monkeypatch):
    assert http("reap_idle_vms").get("/").status_code == 405
    monkeypatch.setenv("MLGOV_POLICY", '{"dry_run": false}')
    response = http("reap_idle_vms").post("/")
    assert response.status_code == 500
    assert "MLGOV_POLICY: missing required key(s) exempt_label" in response.get_json()["error"]


# -- reap_expired ---------------------------------------------------------------------------------


def test_reap_expired(cloud):
    today = cloud.clock.wall().date()
    past, future = str(today - timedelta(days=1)), str(today + timedelta(days=1))
    cloud.compute.add(DEV, A, "old-vm", labels={"mlgov-expires-on": past})
    cloud.compute.add(DEV, A, "today-vm", labels={"mlgov-expires-on": str(today)})
    cloud.compute.add(DEV, A, "new-vm", labels={"mlgov-expires-on": future})
    cloud.compute.add(DEV, A, "bad-vm", labels={"mlgov-expires-on": "next-week"})
    cloud.compute.add(
        DEV, A, "old-exempt", labels={"mlgov-expires-on": past, "mlgov-exempt": "true"}
    )
    cloud.compute.add(DEV, A, "no-label")
    cloud.notebooks.add(DEV, B, "old-nb", labels={"mlgov-expires-on": past})
    cloud.tpu.add(DEV, B, "old-tpu", labels={"mlgov-expires-on": past})
    report = post_report("reap_expired")
    outcome = {
        a["target"].rsplit("/", 1)[-1]: (a["outcome"], a["reason"]) for a in report["actions"]
    }
    assert {k: v[0] for k, v in outcome.items()} == {
        "old-vm": "done",
        "today-vm": "skipped",
        "new-vm": "skipped",
        "bad-vm": "skipped",
        "old-exempt": "skipped",
        "old-nb": "done",
        "old-tpu": "done",
    }
    assert "invalid mlgov-expires-on" in outcome["bad-vm"][1]
    assert cloud.compute.status(DEV, A, "bad-vm") == "RUNNING"
    assert cloud.notebooks.state(DEV, B, "old-nb") == "STOPPED"
    assert cloud.tpu.state(DEV, B, "old-tpu") == "STOPPED"


# -- reap_idle_gpus -------------------------------------------------------------------------------


def test_reap_idle_gpus(cloud):
    idle = cloud.compute.add(DEV, A, "gpu-idle", gpus=1, labels={"workload": "training"})
    busy = cloud.compute.add(DEV, A, "gpu-busy", gpus=2, labels={"workload": "training"})
    cloud.compute.add(DEV, A, "gpu-nodata", gpus=1, labels={"workload": "notebook"})
    cloud.compute.add(DEV, A, "gpu-other", gpus=1, labels={"workload": "data"})
    exempt = cloud.compute.add(
        DEV, A, "gpu-exempt", gpus=1, labels={"workload": "training", "mlgov-exempt": "true"}
    )
    cloud.compute.add(DEV, A, "cpu-only", labels={"workload": "training"})
    nb = workbench_vm(cloud, DEV, B, "nb-gpu", gpus=1, labels={"workload": "notebook"})
    cloud.notebooks.add(DEV, B, "nb-gpu", gpus=1, labels={"workload": "notebook"})
    cloud.monitoring.set(DEV, idle["id"], 1.0, 2.0)
    cloud.monitoring.set(DEV, busy["id"], 1.0, 80.0)  # one busy GPU keeps the VM
    cloud.monitoring.set(DEV, exempt["id"], 0.0)
    cloud.monitoring.set(DEV, nb["id"], 0.5)
    report = post_report("reap_idle_gpus")
    outcome = {a["target"].rsplit("/", 1)[-1]: a["outcome"] for a in report["actions"]}
    assert outcome == {
        "gpu-idle": "done",
        "gpu-busy": "skipped",
        "gpu-nodata": "skipped",
        "gpu-exempt": "skipped",
        "nb-gpu": "done",
    }
    assert cloud.compute.status(DEV, A, "gpu-idle") == "TERMINATED"
    assert cloud.compute.status(DEV, A, "gpu-nodata") == "RUNNING"
    assert cloud.notebooks.state(DEV, B, "nb-gpu") == "STOPPED"
    assert cloud.compute.status(DEV, B, "nb-gpu") == "RUNNING"  # stopped via Notebooks, not Compute
    reads = cloud.server.calls("GET", "/timeSeries")
    assert len(reads) == 1
    # The hour ending now, in twelve aligned 5-minute steps (to see whether data covers it all).
    assert reads[0].query["aggregation.alignmentPeriod"] == ["300s"]
    assert reads[0].query["interval.startTime"] == ["2026-11-21T04:00:00Z"]
    assert reads[0].query["interval.endTime"] == ["2026-11-21T05:00:00Z"]
    assert 'metric.type = "agent.googleapis.com/gpu/utilization"' in reads[0].query["filter"][0]


def test_reap_idle_gpus_threshold_and_window_are_configurable(cloud, monkeypatch):
    set_policy(monkeypatch, idle_gpu={"max_utilization_percent": 50, "window_minutes": 30})
    vm = cloud.compute.add(DEV, A, "gpu-mid", gpus=1, labels={"workload": "training"})
    cloud.monitoring.set(DEV, vm["id"], 40.0)
    report = post_report("reap_idle_gpus")
    assert report["counts"] == {"done": 1}
    read = cloud.server.calls("GET", "/timeSeries")[0]
    assert read.query["aggregation.alignmentPeriod"] == ["120s"]
    assert read.query["interval.startTime"] == ["2026-11-21T04:30:00Z"]


def test_reap_idle_gpus_monitoring_failure_never_stops(cloud, monkeypatch):
    set_policy(monkeypatch, time_budget_seconds=3)
    vm = cloud.compute.add(DEV, A, "gpu-idle", gpus=1, labels={"workload": "training"})
    cloud.monitoring.set(DEV, vm["id"], 0.0)
    cloud.server.inject(r"/timeSeries$", 403, times=10)
    report = post_report("reap_idle_gpus", status=503)  # a failed read: Scheduler retries
    assert report["counts"] == {"skipped": 1}
    assert report["errors"]
    assert cloud.compute.status(DEV, A, "gpu-idle") == "RUNNING"


def test_reap_idle_vms_stop_counts_even_if_mark_succeeded_fails(cloud, monkeypatch):
    set_policy(monkeypatch, time_budget_seconds=5)
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(r":markSucceeded$", 403, times=5)
    report = post_report("reap_idle_vms")
    assert report["actions"][0]["outcome"] == "done"
    assert "NOT marked succeeded" in report["actions"][0]["reason"]
    assert cloud.compute.status(DEV, A, "idle-1") == "TERMINATED"
    assert cloud.recommender.state(rec["name"]) == "CLAIMED"


@pytest.mark.parametrize("in_ops", ["number", "id"])
def test_reap_idle_vms_matches_the_instance_by_project_number_or_id(cloud, in_ops):
    # Real names carry the project number; an operation's instance path may carry either.
    cloud.compute.add(DEV, A, "idle-1")
    number = cloud.recommender.number(DEV)
    rec = cloud.recommender.add_raw(
        DEV,
        A,
        instance_recommendation(number, number if in_ops == "number" else DEV, A, "idle-1"),
    )
    post_report("reap_idle_vms")
    assert cloud.compute.status(DEV, A, "idle-1") == "TERMINATED"
    assert cloud.recommender.state(rec["name"]) == "SUCCEEDED"


def test_reap_idle_vms_never_stops_a_namesake_for_another_projects_recommendation(cloud):
    # Listed under DEV, but its operations name a VM of another project (by id or number): the
    # DEV VM of the same zone and name is not that VM, and the other project is not governed.
    cloud.compute.add(DEV, A, "idle-1")
    number = cloud.recommender.number(DEV)
    recs = [
        cloud.recommender.add_raw(DEV, A, instance_recommendation(number, other, A, "idle-1"))
        for other in ("someone-elses-project", "999999999999")
    ]
    report = post_report("reap_idle_vms")
    assert cloud.compute.status(DEV, A, "idle-1") == "RUNNING"
    assert [cloud.recommender.state(r["name"]) for r in recs] == ["ACTIVE", "ACTIVE"]
    assert cloud.mutations() == []
    reasons = sorted(a["reason"] for a in report["actions"])
    assert all(a["outcome"] == "skipped" for a in report["actions"])
    assert "999999999999" in reasons[0] and "someone-elses-project" in reasons[1]
