"""Cases the cloud answers that mlgov took the wrong way (issue 29, item 6), replayed end to end.

functions_framework, the real clients and the fake cloud, in the shapes the compute v1
discovery document (Operation: `httpErrorStatusCode`), Google's REST error envelope and the
recordings in tests/fakegcp/recorded/ give. Each test fails on the code before its fix:

- a stop whose operation ends with `httpErrorStatusCode` 5xx is a transient failure: the
  idle-VM claim is kept and the recommendation is not marked FAILED;
- an operation that answers 404 is "not confirmed", never "done" nor "already gone";
- the older "API has not been used ... or it is disabled" 403, without the SERVICE_DISABLED
  detail, means the API is off: nothing of it runs;
- a VM left STOPPING by an unconfirmed stop is checked again when the alert comes back.
"""

from __future__ import annotations

from typing import Any

from tests.functions.conftest import (
    DEV,
    PROD,
    REGION,
    ZONES,
    budget_data,
    log_lines,
    post_report,
    pubsub_event,
    seed_budget,
    send_event,
    set_policy,
)

A, B = ZONES
# What Compute's operation carries when the service failed it (compute v1 Operation:
# error.errors[].code/message, httpErrorStatusCode, httpErrorMessage).
SERVICE_FAILURE = ("INTERNAL_ERROR", "Internal error. Please try again.", 503)


def _outcome(report: dict[str, Any], name: str) -> tuple[str, str]:
    [action] = [a for a in report["actions"] if a["target"].endswith(f"/{name}")]
    return action["outcome"], action["reason"]


def _lines(out: str, name: str) -> list[dict[str, Any]]:
    return [x for x in log_lines(out) if x.get("target", "").endswith(f"/{name}")]


# -- httpErrorStatusCode 5xx: transient, the claim kept ------------------------------------------


def test_a_stop_operation_failing_with_5xx_keeps_the_claim(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.compute.failing_stops[(DEV, A, "idle-1")] = (*SERVICE_FAILURE, False)

    report = post_report("reap_idle_vms", status=503)

    outcome, reason = _outcome(report, "idle-1")
    assert outcome == "failed" and "stop failed transiently" in reason
    assert "INTERNAL_ERROR" in reason and "left CLAIMED" in reason
    # Not FAILED: that would end the recommendation while the VM still runs idle.
    assert cloud.recommender.state(rec["name"]) == "CLAIMED"
    assert not cloud.server.calls("POST", ":markFailed")

    # Once the claim is stale, the next run resumes it and stops the VM.
    cloud.compute.failing_stops.clear()
    cloud.clock.advance(3600)
    post_report("reap_idle_vms")
    assert cloud.compute.status(DEV, A, "idle-1") == "TERMINATED"
    assert cloud.recommender.state(rec["name"]) == "SUCCEEDED"


def test_a_stop_answered_with_an_operation_already_failed_with_5xx_keeps_the_claim(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.compute.failing_stops[(DEV, A, "idle-1")] = (*SERVICE_FAILURE, True)

    report = post_report("reap_idle_vms", status=503)

    assert "stop failed transiently" in _outcome(report, "idle-1")[1]
    assert cloud.recommender.state(rec["name"]) == "CLAIMED"


def test_a_stop_operation_failing_with_4xx_is_still_marked_failed(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.compute.failing_stops[(DEV, A, "idle-1")] = (
        "RESOURCE_NOT_READY",
        "The resource 'idle-1' is not ready",
        400,
        False,
    )

    post_report("reap_idle_vms", status=503)

    assert cloud.recommender.state(rec["name"]) == "FAILED"


# -- an operation answering 404 is not confirmed -------------------------------------------------


def test_a_stop_whose_operation_answers_404_is_not_confirmed(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(rf"/zones/{A}/operations/", 404, times=1_000, method="GET")

    report = post_report("reap_idle_vms", status=503)

    outcome, reason = _outcome(report, "idle-1")
    assert outcome == "failed"  # it was "done", unconfirmed
    assert "answered 404 (not found), so the write is not confirmed" in reason
    assert cloud.recommender.state(rec["name"]) == "CLAIMED"


def test_a_gke_write_whose_operation_answers_404_fails_the_cap(cloud, capsys):
    cloud.billing.add(DEV)
    cloud.billing.add(PROD)
    cloud.container.add_cluster(PROD, REGION, "c1", zones=[A])
    cloud.container.add_pool(
        PROD,
        REGION,
        "c1",
        "gpu",
        machine_type="g2-standard-8",
        gpus=1,
        nodes=2,
        autoscaling={"enabled": True, "minNodeCount": 0, "maxNodeCount": 4},
    )
    cloud.server.inject(r"/v1/projects/[^/]+/locations/[^/]+/operations/", 404, method="GET")

    # Raised for redelivery: it used to be "skipped: already gone", and the alert acknowledged.
    send_event(pubsub_event(budget_data(1.0, 1000)), status=500)

    [line] = [x for x in _lines(capsys.readouterr().out, "gpu") if "outcome" in x]
    assert line["outcome"] == "failed"
    assert "not confirmed" in line["reason"] and "already gone" not in line["reason"]


def test_an_undeploy_whose_operation_answers_404_is_not_confirmed(cloud, capsys, monkeypatch):
    set_policy(monkeypatch, undeploy_endpoints=True)
    cloud.billing.add(DEV)
    cloud.billing.add(PROD)
    cloud.vertex.add_endpoint(
        PROD, REGION, "e1", models={"7": 100}, labels={"mlgov-undeploy-at-cap": "true"}
    )
    cloud.server.inject(r"/endpoints/e1/operations/", 404, method="GET")

    send_event(pubsub_event(budget_data(1.0, 1000)), status=500)

    [line] = [x for x in _lines(capsys.readouterr().out, "e1") if "outcome" in x]
    assert line["outcome"] == "failed" and "not confirmed" in line["reason"]


# -- the older "has not been used ... or it is disabled" 403 -------------------------------------


def _legacy_disabled(title: str, service: str) -> dict[str, Any]:
    """The 403 of an API the project has not enabled, as Google answered before ErrorInfo.

    The message names the API and links to enabling it; no `details`, no `errors[].reason`.
    """
    return {
        "error": {
            "code": 403,
            "message": f"{title} has not been used in project 123456789012 before or it is "
            "disabled. Enable it by visiting https://console.developers.google.com/apis/api/"
            f"{service}/overview?project=123456789012 then retry. If you enabled this API "
            "recently, wait a few minutes for the action to propagate to our systems and retry.",
            "status": "PERMISSION_DENIED",
        }
    }


def test_the_older_disabled_api_403_means_nothing_runs_there(cloud, capsys):
    seed_budget(cloud)
    body = _legacy_disabled("Kubernetes Engine API", "container.googleapis.com")
    cloud.server.inject(r"/v1/projects/[^/]+/locations/-/clusters", 403, times=10, body=body)

    send_event(pubsub_event(budget_data(1.0, 1000)))  # acknowledged: it used to raise

    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"
    lines = log_lines(capsys.readouterr().out)
    assert not [x for x in lines if x["severity"] in ("ERROR", "CRITICAL")]
    assert any("the API is not enabled in the project" in x["message"] for x in lines)


def test_the_older_403_for_the_recommender_names_the_api_to_enable(cloud):
    # Where the API is how mlgov sees what runs anyway, off is a failure naming it.
    cloud.compute.add(DEV, A, "idle-1")
    body = _legacy_disabled("Recommender API", "recommender.googleapis.com")
    cloud.server.inject(r"/recommendations$", 403, times=3, body=body)

    report = post_report("reap_idle_vms", status=503)

    assert all("recommender.googleapis.com is not enabled" in e for e in report["errors"])


def test_a_permission_403_that_merely_mentions_an_api_is_not_taken_for_disabled(cloud):
    seed_budget(cloud)
    body = {
        "error": {
            "code": 403,
            "message": "Permission 'container.clusters.list' denied on resource (or it may not "
            "exist).",
            "status": "PERMISSION_DENIED",
        }
    }
    cloud.server.inject(r"/v1/projects/[^/]+/locations/-/clusters", 403, times=10, body=body)

    send_event(pubsub_event(budget_data(1.0, 1000)), status=500)


# -- a VM left STOPPING by an unconfirmed stop ---------------------------------------------------


def test_a_vm_left_stopping_is_checked_again_on_redelivery(cloud, capsys):
    cloud.billing.add(DEV)
    cloud.billing.add(PROD)
    cloud.compute.add(DEV, A, "vm-1")
    key = (DEV, A, "vm-1")
    cloud.compute.slow_stops[key] = 10_000  # the stop's operation never finishes in the run
    cloud.compute.stopping[key] = None  # and the VM stays STOPPING
    event = pubsub_event(budget_data(1.0, 1000), message_id="m1")

    send_event(event, status=500)  # not confirmed: redelivered
    assert cloud.compute.status(DEV, A, "vm-1") == "STOPPING"
    capsys.readouterr()

    # The redelivery: STOPPING is not running, and used to be skipped, the alert acknowledged.
    send_event(event, status=500)
    [line] = [x for x in _lines(capsys.readouterr().out, "vm-1") if "outcome" in x]
    assert line["action"] == "confirm_stop" and line["outcome"] == "failed"
    assert "still STOPPING, not confirmed stopped" in line["reason"]
    assert cloud.server.calls("GET", f"/zones/{A}/instances/vm-1")

    cloud.compute.stopping[key] = 1  # it stops after one more read
    send_event(event)
    [line] = [x for x in _lines(capsys.readouterr().out, "vm-1") if "outcome" in x]
    assert line["outcome"] == "done"
    assert "confirmed stopped (was STOPPING, now TERMINATED)" in line["reason"]
    assert len(cloud.server.calls("POST", "/instances/vm-1/stop")) == 1  # never stopped twice


def test_an_expired_vm_left_stopping_answers_503_until_it_stopped(cloud):
    past = str(cloud.clock.wall().date().replace(day=1))
    cloud.compute.add(DEV, A, "old", labels={"mlgov-expires-on": past}, status="STOPPING")
    cloud.compute.stopping[(DEV, A, "old")] = None

    report = post_report("reap_expired", status=503)
    assert _outcome(report, "old")[0] == "failed"

    cloud.compute.stopping[(DEV, A, "old")] = 0
    report = post_report("reap_expired")
    assert _outcome(report, "old")[0] == "done"
    assert not cloud.server.calls("POST", "/stop")


def test_an_exempt_vm_left_stopping_is_left_alone(cloud):
    past = str(cloud.clock.wall().date().replace(day=1))
    labels = {"mlgov-expires-on": past, "mlgov-exempt": "true"}
    cloud.compute.add(DEV, A, "old", labels=labels, status="STOPPING")

    report = post_report("reap_expired")

    assert _outcome(report, "old") == ("skipped", "exempt (mlgov-exempt=true)")
    assert not cloud.server.calls("GET", "/instances/old")


# -- which operation errors are the service's (transient) ---------------------------------------


def test_an_operations_error_is_transient_only_when_the_service_failed():
    from govern.parse.operation import compute_operation, gke_operation, longrunning_operation

    def compute(status: int) -> bool:
        raw = {
            "name": "op",
            "status": "DONE",
            "error": {"errors": [{"code": "X", "message": "m"}]},
            "httpErrorStatusCode": status,
        }
        return compute_operation(raw).transient

    assert [compute(s) for s in (400, 403, 404, 429, 500, 503)] == [
        False,
        False,
        False,
        True,
        True,
        True,
    ]
    assert not compute_operation({"name": "op", "status": "DONE"}).transient
    # google.rpc codes: UNAVAILABLE (14) and INTERNAL (13) are the service's; FAILED_PRECONDITION
    # (9) and PERMISSION_DENIED (7) the request's.
    for code, transient in [(14, True), (13, True), (4, True), (9, False), (7, False)]:
        error = {"code": code, "message": "m"}
        assert longrunning_operation({"name": "op", "error": error}).transient is transient
        assert gke_operation({"name": "op", "status": "DONE", "error": error}).transient is (
            transient
        )


def test_checking_a_stopping_vm_never_holds_back_the_other_stops(cloud, monkeypatch):
    # One worker: a check done in the start phase would make the stops behind it wait up to
    # the wait's cap. The VM is read again only once every stop was requested.
    set_policy(monkeypatch, max_concurrency=1)
    cloud.billing.add(DEV)
    cloud.billing.add(PROD)
    cloud.compute.add(DEV, A, "a-stopping", status="STOPPING")
    cloud.compute.stopping[(DEV, A, "a-stopping")] = 3
    for name in ("vm-1", "vm-2"):
        cloud.compute.add(DEV, A, name)

    send_event(pubsub_event(budget_data(1.0, 1000)))

    calls = [r for r in cloud.server.calls() if "/instances/" in r.path]
    first_read = next(i for i, r in enumerate(calls) if r.path.endswith("/a-stopping"))
    stops = [i for i, r in enumerate(calls) if r.path.endswith("/stop")]
    assert len(stops) == 2 and max(stops) < first_read
    assert cloud.compute.status(DEV, A, "a-stopping") == "TERMINATED"
