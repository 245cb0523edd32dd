"""A list that could not read a governed zone or location is a failure of that scope.

End to end (functions_framework, real clients, the fake cloud): what was read is acted on, the
scope is named in the report (`failed_scopes`) and the answer is non-2xx (HTTP 503 for the
Scheduler functions, a raise for on_budget_alert), so the run or the alert comes again; the
next delivery, once the zone is back, acts on what it holds. Field names come from each list
method's response schema in the discovery documents (pinned below).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.functions.conftest import (
    CLUSTER,
    DEV,
    PROD,
    REGION,
    ZONES,
    app_client,
    budget_data,
    http,
    log_lines,
    pubsub_event,
    seed_accelerators,
    send_event,
)
from tests.policies.compat.discovery_documents import properties

A, B = ZONES


def _summary(out: str) -> dict:
    [line] = [x for x in log_lines(out) if x.get("summary")]
    return line


def test_an_unreachable_zone_fails_the_alert_the_rest_is_stopped_and_redelivery_stops_it(
    cloud, capsys
):
    cloud.compute.add(DEV, A, "vm-a")
    cloud.compute.add(DEV, B, "vm-b")
    cloud.billing.add(DEV)
    cloud.billing.add(PROD)
    cloud.compute.unreachable.add((DEV, B))
    client = app_client("on_budget_alert", "cloudevent")
    event = pubsub_event(budget_data(1.0, 1000), message_id="m1")

    send_event(event, client, status=500)  # raised: Pub/Sub redelivers the alert

    assert cloud.compute.status(DEV, A, "vm-a") == "TERMINATED"
    assert cloud.compute.status(DEV, B, "vm-b") == "RUNNING"
    summary = _summary(capsys.readouterr().out)
    assert summary["severity"] == "ERROR" and summary["answer"] == "raised for redelivery"
    [scope] = summary["failed_scopes"]
    assert f"compute list {DEV}/{B}: unreachable" in scope

    cloud.compute.unreachable.clear()  # the zone is back
    send_event(event, client)
    assert cloud.compute.status(DEV, B, "vm-b") == "TERMINATED"
    assert _summary(capsys.readouterr().out)["failed_scopes"] == []


def test_a_scheduler_run_answers_503_naming_the_zone_then_the_retry_acts(cloud):
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.compute.add(DEV, A, "old-a", labels={"mlgov-expires-on": past})
    cloud.compute.add(DEV, B, "old-b", labels={"mlgov-expires-on": past})
    cloud.compute.unreachable.add((DEV, B))

    response = http("reap_expired").post("/")
    assert response.status_code == 503
    report = response.get_json()
    assert report["failed"] is True
    assert [a["target"].rsplit("/", 1)[-1] for a in report["actions"]] == ["old-a"]
    assert any(f"{DEV}/{B}" in s for s in report["failed_scopes"])
    assert cloud.compute.status(DEV, B, "old-b") == "RUNNING"

    cloud.compute.unreachable.clear()
    assert http("reap_expired").post("/").status_code == 200
    assert cloud.compute.status(DEV, B, "old-b") == "TERMINATED"


def test_an_unreachable_zone_the_stack_does_not_govern_is_no_failure(cloud):
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.compute.add(DEV, A, "old-a", labels={"mlgov-expires-on": past})
    cloud.compute.unreachable.add((DEV, "europe-west4-a"))
    report = http("reap_expired").post("/")
    assert report.status_code == 200
    assert report.get_json()["failed_scopes"] == []
    assert cloud.compute.status(DEV, A, "old-a") == "TERMINATED"


def test_a_tpu_zone_named_unreachable_fails_that_scope(cloud):
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.tpu.add(DEV, A, "tpu-a", labels={"mlgov-expires-on": past})
    cloud.tpu.add(DEV, B, "tpu-b", labels={"mlgov-expires-on": past})
    cloud.tpu.unreachable.add((DEV, B))
    response = http("reap_expired").post("/")
    assert response.status_code == 503
    assert any(f"tpu list {DEV}/{B}" in s for s in response.get_json()["failed_scopes"])
    assert cloud.tpu.state(DEV, A, "tpu-a") == "STOPPED"
    assert cloud.tpu.state(DEV, B, "tpu-b") == "READY"


def test_a_workbench_answer_with_only_unreachables_is_a_failed_listing(cloud):
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.notebooks.add(DEV, A, "nb-a", labels={"mlgov-expires-on": past})
    cloud.notebooks.unreachable.add((DEV, B))
    response = http("reap_expired").post("/")
    assert response.status_code == 503
    [error] = response.get_json()["errors"]
    assert f"unreachable projects/{DEV}/locations/{B}" in error
    assert cloud.notebooks.state(DEV, A, "nb-a") == "ACTIVE"  # the answer held nothing


def test_gke_missing_zones_fail_that_zone_and_the_clusters_read_are_capped(cloud, capsys):
    seed_accelerators(cloud)
    gke = cloud.container
    gke.add_cluster(PROD, A, "zonal", nap={"nvidia-l4": (0, 8)})
    gke.missing_zones.add((PROD, A))
    client = app_client("on_budget_alert", "cloudevent")
    event = pubsub_event(budget_data(1.5, 1500), message_id="m1")

    send_event(event, client, status=500)

    assert gke.limits(PROD, REGION, CLUSTER)["nvidia-l4"] == (0, 0)  # read: capped
    assert gke.limits(PROD, A, "zonal")["nvidia-l4"] == (0, 8)  # not read: left for later
    [scope] = _summary(capsys.readouterr().out)["failed_scopes"]
    assert f"gke list {PROD}/{A}: unreachable" in scope

    gke.missing_zones.clear()
    send_event(event, client)
    assert gke.limits(PROD, A, "zonal")["nvidia-l4"] == (0, 0)


@pytest.mark.parametrize(
    ("api", "schema", "field"),
    [
        ("compute.v1", "InstanceAggregatedList", "unreachables"),
        ("container.v1", "ListClustersResponse", "missingZones"),
        ("tpu.v2", "ListNodesResponse", "unreachable"),
        ("notebooks.v2", "ListInstancesResponse", "unreachable"),
    ],
)
def test_the_partial_answer_fields_are_the_documented_ones(api, schema, field):
    assert properties(api, schema)[field]["type"] == "array"


@pytest.mark.parametrize(
    "schema",
    [
        "GoogleCloudAiplatformV1ListCustomJobsResponse",
        "GoogleCloudAiplatformV1ListHyperparameterTuningJobsResponse",
        "GoogleCloudAiplatformV1ListEndpointsResponse",
    ],
)
def test_vertex_lists_are_regional_and_name_no_unreachable_location(schema):
    # One region per call: a region that cannot answer fails the call (a run error). Should
    # Google add a partial-answer field, this fails and the adapter must read it.
    assert set(properties("aiplatform.v1", schema)) <= {
        "customJobs",
        "hyperparameterTuningJobs",
        "endpoints",
        "nextPageToken",
    }
