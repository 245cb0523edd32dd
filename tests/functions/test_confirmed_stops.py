"""Every stop the functions make is confirmed by its operation (kill switch, reapers).

End to end: functions_framework, the real compute_v1 / notebooks_v2 / tpu_v2 clients and the
REST adapters, against the fake cloud, on its fake clock. Each API answers a stop (or a Vertex
AI undeploy) with an operation that can still end in an error; before this, the budget cap and
the expiry reaper counted the accepted request as done, so a stop that failed later was
acknowledged and never tried again.

Shapes: Compute's failed operation comes from the compute v1 discovery document (no recording
of a failed one; tests/functions/test_operations.py); the google.longrunning.Operation of
Notebooks, TPU and Vertex AI from AIP-151 and the recorded finished one
(tests/fakegcp/recorded/vertexai-endpoint-delete/; governance/fakecloud/longrunning.py).

What each caller does when the wait runs out (the give-up behaviour) is pinned here too: the
budget alert is redelivered (raised) and the expiry reaper answers 503, never "done".
"""

from __future__ import annotations

import pytest

from tests.functions.conftest import (
    DEV,
    PROD,
    REGION,
    ZONES,
    budget_data,
    log_lines,
    post_report,
    pubsub_event,
    send_event,
    set_policy,
)

A, B = ZONES
# google.rpc.Code 9 FAILED_PRECONDITION, as an operation's error carries it.
FAILED_PRECONDITION = 9


def _lines(capsys, name: str) -> list[dict]:
    out = log_lines(capsys.readouterr().out)
    return [x for x in out if x.get("target", "").endswith(f"/{name}") and "outcome" in x]


def _past(cloud) -> str:
    return str(cloud.clock.wall().date().replace(day=1))


# -- the budget kill switch ---------------------------------------------------------------------


def test_a_vm_stop_whose_operation_fails_later_is_redelivered_then_stopped(cloud, capsys):
    cloud.compute.add(DEV, A, "vm-a")
    cloud.compute.add(DEV, B, "vm-b")
    cloud.billing.add(DEV)
    # Accepted (HTTP 200, PENDING), then DONE with an error at zoneOperations.get.
    cloud.compute.failing_stops[(DEV, A, "vm-a")] = (
        "RESOURCE_OPERATION_RATE_EXCEEDED",
        "Operation rate exceeded for resource 'vm-a'",
        403,
        False,
    )
    event = pubsub_event(budget_data(1.0, 1000), message_id="m1")

    send_event(event, status=500)  # raised: Pub/Sub redelivers (it used to acknowledge)

    assert cloud.compute.status(DEV, A, "vm-a") == "RUNNING"
    assert cloud.compute.status(DEV, B, "vm-b") == "TERMINATED"
    [line] = _lines(capsys, "vm-a")
    assert line["outcome"] == "failed"
    assert "NOT stopped" in line["reason"] and "RESOURCE_OPERATION_RATE_EXCEEDED" in line["reason"]
    polls = cloud.server.calls("GET", f"/zones/{A}/operations/")
    assert polls, "the stop's operation was never read"

    cloud.compute.failing_stops.clear()
    send_event(event)  # the redelivery stops it
    assert cloud.compute.status(DEV, A, "vm-a") == "TERMINATED"


@pytest.mark.parametrize("kind", ["notebook", "tpu"])
def test_a_workbench_or_tpu_stop_whose_operation_fails_is_redelivered(cloud, capsys, kind):
    cloud.billing.add(DEV)
    if kind == "notebook":
        cloud.notebooks.add(DEV, A, "w1")
        failing, state = cloud.notebooks.failing_stops, lambda: cloud.notebooks.state(DEV, A, "w1")
        running, stopped = "ACTIVE", "STOPPED"
    else:
        cloud.tpu.add(DEV, A, "w1")
        failing, state = cloud.tpu.failing_stops, lambda: cloud.tpu.state(DEV, A, "w1")
        running, stopped = "READY", "STOPPED"
    failing[(DEV, A, "w1")] = (FAILED_PRECONDITION, "The instance is being upgraded")
    event = pubsub_event(budget_data(1.0, 1000), message_id="m1")

    send_event(event, status=500)

    assert state() == running
    [line] = _lines(capsys, "w1")
    assert line["outcome"] == "failed"
    assert "FAILED_PRECONDITION: The instance is being upgraded" in line["reason"]
    assert cloud.server.calls("GET", "/operations/operation-")

    failing.clear()
    send_event(event)
    assert state() == stopped
    [line] = _lines(capsys, "w1")
    assert line["outcome"] == "done" and "stopped (operation" in line["reason"]


def test_every_stop_is_requested_before_any_is_waited_for(cloud):
    # A kill switch must not hold the next VM's stop while it waits for this one's operation.
    for i in range(6):
        cloud.compute.add(DEV, A, f"vm-{i}")
        cloud.compute.slow_stops[(DEV, A, f"vm-{i}")] = 2
    cloud.billing.add(DEV)

    send_event(pubsub_event(budget_data(1.0, 1000)))

    calls = cloud.server.calls()
    stops = [i for i, r in enumerate(calls) if r.path.endswith("/stop")]
    polls = [i for i, r in enumerate(calls) if f"/zones/{A}/operations/" in r.path]
    assert len(stops) == 6 and len(polls) == 6 * 3  # RUNNING twice, then DONE, for each
    assert max(stops) < min(polls)


def test_a_stop_still_running_when_the_wait_runs_out_redelivers_the_alert(cloud, capsys):
    cloud.compute.add(DEV, A, "slow")
    cloud.billing.add(DEV)
    cloud.compute.slow_stops[(DEV, A, "slow")] = 10_000  # never DONE within this invocation
    event = pubsub_event(budget_data(1.0, 1000), message_id="m1")

    send_event(event, status=500)  # never "done": Pub/Sub redelivers

    [line] = _lines(capsys, "slow")
    assert line["outcome"] == "failed"
    assert "not confirmed" in line["reason"] and "still RUNNING" in line["reason"]
    # The wait ran on the invocation's clock and ended within its time (45 s budget + 30 s grace).
    assert 0 < sum(cloud.clock.slept) <= 45 + 30

    # The redelivery finds the VM stopped (the operation did finish): nothing left to do.
    cloud.compute.slow_stops.clear()
    send_event(event)
    [line] = _lines(capsys, "slow")
    assert line["outcome"] == "skipped" and "not running" in line["reason"]


def test_an_undeploy_whose_operation_fails_is_a_failure_and_the_model_stays(
    cloud, capsys, monkeypatch
):
    set_policy(monkeypatch, undeploy_endpoints=True)
    name = f"projects/{PROD}/locations/{REGION}/endpoints/e1"
    cloud.vertex.add_endpoint(
        PROD, REGION, "e1", models={"7": 100}, labels={"mlgov-undeploy-at-cap": "true"}
    )
    cloud.vertex.failing_undeploys["7"] = (FAILED_PRECONDITION, "Model is being updated")
    event = pubsub_event(budget_data(1.0, 1000), message_id="m1")

    send_event(event, status=500)

    assert cloud.vertex.deployed(name) == ["7"]
    [line] = _lines(capsys, "e1")
    assert line["outcome"] == "failed"
    assert "NOT undeployed" in line["reason"] and "Model is being updated" in line["reason"]

    cloud.vertex.failing_undeploys.clear()
    send_event(event)
    assert cloud.vertex.deployed(name) == []
    [line] = _lines(capsys, "e1")
    assert line["outcome"] == "done" and "undeployed 1 model(s)" in line["reason"]


# -- the expiry reaper ----------------------------------------------------------------------------


def test_an_expired_vm_whose_stop_operation_fails_answers_503(cloud):
    cloud.compute.add(DEV, A, "old", labels={"mlgov-expires-on": _past(cloud)})
    cloud.compute.failing_stops[(DEV, A, "old")] = (
        "RESOURCE_NOT_READY",
        "The resource 'old' is not ready",
        400,
        False,
    )

    report = post_report("reap_expired", status=503)  # Cloud Scheduler retries (it used to 200)

    [action] = report["actions"]
    assert action["outcome"] == "failed" and "RESOURCE_NOT_READY" in action["reason"]
    assert cloud.compute.status(DEV, A, "old") == "RUNNING"

    cloud.compute.failing_stops.clear()
    report = post_report("reap_expired")
    assert report["actions"][0]["outcome"] == "done"
    assert "stopped (operation" in report["actions"][0]["reason"]
    assert cloud.compute.status(DEV, A, "old") == "TERMINATED"


def test_an_expired_tpu_still_stopping_when_the_wait_runs_out_answers_503(cloud):
    cloud.tpu.add(DEV, A, "old-tpu", labels={"mlgov-expires-on": _past(cloud)})
    cloud.tpu.slow_stops[(DEV, A, "old-tpu")] = 10_000

    report = post_report("reap_expired", status=503)

    [action] = report["actions"]
    assert action["outcome"] == "failed"
    assert "not confirmed" in action["reason"] and "still running" in action["reason"]
