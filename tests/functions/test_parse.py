"""parse.py over recorded real payloads (tests/functions/data and its SOURCES.md)."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest

from govern import parse
from govern.models import BudgetAlert, MetricWindow, Unjudged
from governance.fakecloud.recommender import instance_recommendation
from tests.functions.conftest import DATA


def _envelope(data, attributes):
    raw = base64.b64encode(json.dumps(data).encode()).decode()
    return {"message": {"data": raw, "attributes": attributes, "messageId": "m1"}}


def test_documented_notification_format():
    doc = json.loads((DATA / "budget-notification-format-example.json").read_text())
    alert = parse.budget_alert(_envelope(doc["data"], doc["attributes"]))
    assert alert == BudgetAlert(
        budget_id="de72f49d-779b-4945-a127-4d6ce8def0bb",
        cost_amount=140.321,
        budget_amount=152.557,
        alert_threshold=0.9,
        forecast_threshold=0.2,
        billing_account_id="01D4EE-079462-DFD6EC",
        display_name="My Personal Budget",
        currency="USD",
        cost_interval_start="2021-02-01T08:00:00Z",
        message_id="m1",
    )
    assert alert.spend_ratio == pytest.approx(140.321 / 152.557)  # 0.92, over the 0.9 crossed


def test_partial_payload_falls_back_to_cost_over_budget():
    msg = json.loads((DATA / "cap-billing-walkthrough-test-message.json").read_text())
    alert = parse.budget_alert(_envelope(msg, {"budgetId": "b"}))
    assert alert.alert_threshold is None
    assert alert.spend_ratio == pytest.approx(1.0001)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (None, "event data: expected a JSON object"),
        ({"message": "x"}, "event data.message: expected a JSON object"),
        ({"message": {"attributes": {"budgetId": "b"}}}, "message.data: missing"),
        (
            {"message": {"data": "%%%", "attributes": {"budgetId": "b"}}},
            "message.data: not base64-encoded JSON",
        ),
        (_envelope({"costAmount": 1}, {"budgetId": "b"}), "missing 'budgetAmount'"),
        (
            _envelope({"costAmount": float("inf"), "budgetAmount": 1}, {"budgetId": "b"}),
            "finite number",
        ),
        (_envelope({"costAmount": -1, "budgetAmount": 1}, {"budgetId": "b"}), "negative"),
        (
            _envelope(
                {"costAmount": 1, "budgetAmount": 1}, {"budgetId": "b", "schemaVersion": "9"}
            ),
            "unsupported",
        ),
    ],
)
def test_bad_payloads(payload, message):
    with pytest.raises(parse.ParseError, match=message):
        parse.budget_alert(payload)


def test_recorded_aggregated_instance():
    body = json.loads(
        (DATA / "get-compute-v1-projects-cloud-custodian-aggregated-instances_1.json").read_text()
    )["body"]
    raw = body["items"]["zones/us-central1-c"]["instances"][0]
    w = parse.compute_instance("cloud-custodian", raw)
    assert (w.kind, w.zone, w.name, w.state, w.gpus, w.managed_by) == (
        "compute",
        "us-central1-c",
        "instance-1",
        "RUNNING",
        0,
        None,
    )
    assert (
        w.target
        == "//compute.googleapis.com/projects/cloud-custodian/zones/us-central1-c/instances/instance-1"
    )
    assert w.running


V2_METADATA = json.loads(
    (
        DATA
        / "get-notebooks.googleapis.com-v2-projects-cloud-custodian-locations---instances_1.json"
    ).read_text()
)["body"]["instances"][0]["gceSetup"]["metadata"]
V1_NOTEBOOK = json.loads(
    (DATA / "get-v1-projects-cloud-custodian-locations---instances_1.json").read_text()
)["body"]["instances"][0]


@pytest.mark.parametrize(
    ("labels", "metadata", "managed_by", "user_managed_notebook"),
    [
        ({"goog-gke-node": ""}, {}, "gke", False),
        ({}, {"created-by": "projects/1/zones/z/instanceGroupManagers/gke-pool-grp"}, "mig", False),
        ({"goog-dataproc-cluster-name": "c"}, {}, "dataproc", False),
        # A Workbench instance's VM says so in its metadata (recorded v2 gceSetup.metadata).
        ({"goog-caip-notebook": ""}, V2_METADATA, "workbench", False),
        ({}, {"notebooks-api-version": "v2"}, "workbench", False),
        (
            {},
            {
                "resource-url": "https://notebooks.googleapis.com/v2/projects/p/locations/z/instances/n"
            },
            "workbench",
            False,
        ),
        # A user-managed notebook's VM (recorded v1 list): no owner that lists it but Compute.
        (V1_NOTEBOOK["labels"], V1_NOTEBOOK["metadata"], None, True),
        ({"goog-caip-notebook": ""}, {}, None, True),
        ({}, {"notebooks-api": "PROD"}, None, True),
        ({}, {}, None, False),
    ],
)
def test_compute_vms_owned_by_other_services(labels, metadata, managed_by, user_managed_notebook):
    raw = {
        "name": "n",
        "zone": "z",
        "status": "RUNNING",
        "labels": labels,
        "metadata": {"items": [{"key": k, "value": v} for k, v in metadata.items()]},
    }
    w = parse.compute_instance("p", raw)
    assert (w.managed_by, w.user_managed_notebook) == (managed_by, user_managed_notebook)


def test_gpu_count_from_accelerators_and_machine_family():
    assert parse.compute_instance("p", {"guestAccelerators": [{"acceleratorCount": 2}]}).gpus == 2
    assert parse.compute_instance("p", {"machineType": ".../machineTypes/g2-standard-8"}).gpus == 1


def test_recorded_notebooks_v2_list():
    body = json.loads(
        (
            DATA
            / "get-notebooks.googleapis.com-v2-projects-cloud-custodian-locations---instances_1.json"
        ).read_text()
    )["body"]
    ws = [parse.notebook_instance("cloud-custodian", i) for i in body["instances"]]
    assert next((w.zone, w.state, w.running) for w in ws) == ("us-east1-b", "ACTIVE", True)
    assert ws[0].target.startswith(
        "//notebooks.googleapis.com/projects/cloud-custodian/locations/us-east1-b/instances/"
    )


def test_recorded_disk_recommendations_have_no_instance_target():
    body = json.loads(
        (
            DATA
            / (
                "get-v1-projects-cloud-custodian-locations-us-central1-a-recommenders-"
                "google.compute.disk.IdleResourceRecommender-recommendations_1.json"
            )
        ).read_text()
    )["body"]
    recs = [parse.recommendation("cloud-custodian", r) for r in body["recommendations"]]
    assert all(r.instance is None and "0 instances" in r.problem for r in recs)
    assert recs[0].etag == '"cc07262fd671022f"'


def test_instance_recommendation_matches_by_zone_and_name_not_project_number():
    raw = instance_recommendation("323016592286", "323016592286", "us-central1-a", "vm-1")
    rec = parse.recommendation("acme-ml-dev", raw)
    assert (rec.project, rec.zone, rec.instance, rec.state, rec.subtype, rec.problem) == (
        "acme-ml-dev",
        "us-central1-a",
        "vm-1",
        "ACTIVE",
        "STOP_VM",
        "",
    )


def test_recommendation_edge_cases():
    raw = instance_recommendation("1", "1", "us-central1-a", "vm-1")
    no_groups = {**raw, "content": {}}
    assert parse.recommendation("p", no_groups).problem == "recommendation has no operationGroups"
    placeholder = json.loads(json.dumps(raw).replace("instances/vm-1", "instances/$instance-name"))
    assert parse.recommendation("p", placeholder).instance is None
    assert parse.recommendation("p", {**raw, "etag": ""}).problem == "recommendation has no etag"


# An hour ending 05:00Z, in twelve 5-minute steps (gcp/monitoring.py's alignment).
WINDOW = MetricWindow(
    datetime(2026, 11, 21, 4, 0, tzinfo=UTC), datetime(2026, 11, 21, 5, 0, tzinfo=UTC), 300
)


def points(*values: float, first_minute: int = 5, step: int = 5) -> list[dict[str, object]]:
    """Aligned gauge points (interval: one instant), one per step from 04:<first_minute>Z."""
    out = []
    for i, value in enumerate(values):
        at = WINDOW.start + timedelta(minutes=first_minute + i * step)
        stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
        out.append(
            {"interval": {"startTime": stamp, "endTime": stamp}, "value": {"doubleValue": value}}
        )
    return out


def hour(value: float) -> list[dict[str, object]]:
    """Twelve points of `value` covering the window."""
    return points(*[value] * 12)


def test_gpu_utilization_takes_busiest_gpu_and_ignores_empty_series():
    page = {
        "unit": "%",
        "timeSeries": [
            {"resource": {"labels": {"instance_id": "1"}}, "points": hour(3.0)},
            {"resource": {"labels": {"instance_id": "1"}}, "points": hour(9.0)},
            {"resource": {"labels": {"instance_id": "2"}}, "points": []},
            {
                "resource": {"labels": {"instance_id": "3"}},
                "points": [
                    {"interval": p["interval"], "value": {"int64Value": "4"}} for p in hour(0)
                ],
            },
        ],
    }
    assert parse.gpu_utilization([page, {}], WINDOW) == {"1": 9.0, "3": 4.0}


def test_points_outside_the_window_are_ignored():
    late = points(90.0, first_minute=65)  # 05:05Z: after the window's end
    early = [
        {
            # a point whose interval began before the window (its mean is partly of before)
            "interval": {"startTime": "2026-11-21T03:55:00Z", "endTime": "2026-11-21T04:05:00Z"},
            "value": {"doubleValue": 95.0},
        }
    ]
    page = {"unit": "%", "timeSeries": [{"resource": {"labels": {"instance_id": "1"}},
                                          "points": early + hour(2.0) + late}]}  # fmt: skip
    assert parse.gpu_utilization([page], WINDOW) == {"1": 2.0}


def test_data_that_begins_inside_the_window_is_not_judged():
    # A VM (or its agent) started 5 minutes ago: one idle point is not an idle hour.
    page = {"unit": "%", "timeSeries": [{"resource": {"labels": {"instance_id": "1"}},
                                          "points": points(0.0, first_minute=60)}]}  # fmt: skip
    [(key, usage)] = parse.gpu_utilization([page], WINDOW).items()
    assert key == "1" and isinstance(usage, Unjudged) and not usage.no_data
    assert "judged once it covers the whole window" in usage.reason
    # Data that stopped half an hour ago does not say the GPU is idle now either.
    page["timeSeries"][0]["points"] = points(*[0.0] * 6)
    assert isinstance(parse.gpu_utilization([page], WINDOW)["1"], Unjudged)


def test_one_gpu_whose_data_begins_late_leaves_the_whole_vm_unjudged():
    page = {
        "unit": "%",
        "timeSeries": [
            {"resource": {"labels": {"instance_id": "1"}}, "points": hour(0.0)},
            {"resource": {"labels": {"instance_id": "1"}}, "points": points(95.0, first_minute=55)},
        ],
    }
    assert isinstance(parse.gpu_utilization([page], WINDOW)["1"], Unjudged)


def test_a_series_in_another_unit_counts_as_no_data():
    # The recorded answer: compute.googleapis.com/instance/cpu/utilization, a ratio ("10^2.%").
    recorded = json.loads(
        (DATA / "filter-metrics" / "get-v3-projects-cloud-custodian-timeSeries_1.json").read_text()
    )["body"]
    assert recorded["unit"] == "10^2.%"
    [series] = recorded["timeSeries"]
    [point] = series["points"]
    assert point["interval"]["startTime"] == point["interval"]["endTime"]  # an aligned gauge
    at = datetime.fromisoformat(point["interval"]["endTime"])
    window = MetricWindow(at - timedelta(hours=1), at, 300)
    # The recording names its VM by metric label; the GPU metric's resource names it by id.
    series["resource"]["labels"]["instance_id"] = "1"
    series["points"] = [
        {"interval": {"startTime": t, "endTime": t}, "value": {"doubleValue": 0.5}}
        for t in [(at - timedelta(minutes=m)).isoformat() for m in range(0, 60, 5)]
    ]
    usage = parse.gpu_utilization([recorded], window)["1"]
    assert isinstance(usage, Unjudged) and usage.no_data
    assert "'10^2.%'" in usage.reason
    # A series' own unit wins over the answer's.
    series["unit"] = "%"
    assert parse.gpu_utilization([recorded], window) == {"1": 0.5}


def test_tpu_duty_cycle_reads_node_id_of_tpu_worker_series_and_takes_the_busiest_worker():
    # One series per worker of a multi-host slice, in the tpu_worker shape: the node is named by
    # the resource label node_id, each worker by worker_id (accelerator_id is a metric label).
    def worker(node: str, worker_id: str, value: float) -> dict[str, object]:
        return {
            "metric": {
                "type": "tpu.googleapis.com/accelerator/duty_cycle",
                "labels": {"accelerator_id": "0"},
            },
            "resource": {
                "type": "tpu_worker",
                "labels": {
                    "project_id": "p",
                    "zone": "europe-west4-b",
                    "node_id": node,
                    "worker_id": worker_id,
                },
            },
            "metricKind": "GAUGE",
            "valueType": "DOUBLE",
            "points": hour(value),
        }

    page = {"unit": "%", "timeSeries": [worker("slice", "0", 1.5), worker("slice", "1", 40.0),
                                        worker("idle", "0", 0.0)]}  # fmt: skip
    assert parse.tpu_duty_cycle([page], WINDOW) == {"slice": 40.0, "idle": 0.0}
