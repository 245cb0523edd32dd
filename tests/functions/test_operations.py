"""A write the API accepted is not a write that happened: Compute stops end in an operation.

Compute answers instances.stop with HTTP 200 and a PENDING zonal operation (recorded:
tests/fakegcp/recorded/instance-stop/); the operation can still end DONE with an error, and the
VM keeps running. End to end (functions_framework, the real compute_v1 and recommender clients,
the fake cloud):

- the idle-VM reaper marks a recommendation SUCCEEDED only once the stop's operation, read at
  its own zone's zoneOperations.get, is DONE without an error; a failed operation marks it
  FAILED with the operation's error and answers 503; a stop still running when the wait ran out
  is not confirmed (failed, 503, never done) and leaves the claim to the next run, which marks
  it SUCCEEDED once the VM is stopped;
- a stop answered with an operation that already failed is a failure everywhere (the budget
  alert is raised for redelivery, not acknowledged);
- an aggregatedList scope answered with the warning UNREACHABLE is a failed scope, like one in
  `unreachables`; NO_RESULTS_ON_PAGE (an empty zone, as recorded) is not.

The failed operation's fields are the compute v1 discovery document's Operation schema
(`error.errors[]`, `httpErrorStatusCode`, `httpErrorMessage`): no recording of a failed stop
exists among the real answers. That stops do fail after their 200 is public: Terraform's
"Error waiting for stopping instance: You cannot stop an instance that uses a local SSD"
(hashicorp/terraform-provider-google#13519) is such an operation's error.
"""

from __future__ import annotations

import pytest

from govern.execute import CONTINUATION_GRACE_SECONDS
from govern.gcp.compute import WAIT_CAP_SECONDS
from tests.functions.conftest import (
    CLUSTER,
    DEV,
    PROD,
    REGION,
    ZONES,
    budget_data,
    log_lines,
    post_report,
    pubsub_event,
    seed_accelerators,
    send_event,
    set_policy,
)
from tests.policies.compat.discovery_documents import properties

A, B = ZONES
FAILURE = ("RESOURCE_NOT_READY", "The resource 'idle-1' is not ready", 400)


def _op_polls(cloud) -> list[str]:
    return [r.path for r in cloud.server.calls("GET", "/operations/")]


def test_the_failed_operation_fields_are_the_discovery_documents():
    fields = properties("compute.v1", "Operation")
    assert {"error", "httpErrorStatusCode", "httpErrorMessage", "status"} <= set(fields)
    scoped = properties("compute.v1", "InstancesScopedList")
    assert {"instances", "warning"} <= set(scoped)


def test_reaper_marks_succeeded_only_once_the_stop_operation_is_done(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.compute.slow_stops[(DEV, A, "idle-1")] = 2  # RUNNING twice, then DONE

    report = post_report("reap_idle_vms")

    assert cloud.recommender.state(rec["name"]) == "SUCCEEDED"
    [action] = report["actions"]
    assert action["outcome"] == "done"
    assert "DONE" in action["reason"] and "marked succeeded" in action["reason"]
    polls = _op_polls(cloud)
    assert len(polls) == 3
    # Read at the operation's own zone, through the endpoint the function was given.
    assert all(p.startswith(f"/compute/v1/projects/{DEV}/zones/{A}/operations/") for p in polls)
    # markSucceeded came after the operation was DONE.
    order = [
        "poll" if "/operations/" in r.path else r.path.rsplit(":", 1)[-1]
        for r in cloud.server.calls()
        if "/operations/" in r.path or ":mark" in r.path
    ]
    assert order[-1] == "markSucceeded" and order[-2] == "poll"


@pytest.mark.parametrize("at_once", [False, True], ids=["fails-later", "fails-at-once"])
def test_reaper_marks_failed_when_the_stop_operation_fails(cloud, at_once):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.compute.failing_stops[(DEV, A, "idle-1")] = (*FAILURE, at_once)

    report = post_report("reap_idle_vms", status=503)

    assert cloud.compute.status(DEV, A, "idle-1") == "RUNNING"
    assert cloud.recommender.state(rec["name"]) == "FAILED"
    [action] = report["actions"]
    assert action["outcome"] == "failed"
    assert "RESOURCE_NOT_READY" in action["reason"]
    assert "marked failed" in action["reason"]
    metadata = cloud.recommender.recs[rec["name"]]["stateInfo"]["stateMetadata"]
    assert "RESOURCE_NOT_READY" in metadata["reason"]


def test_a_stop_still_running_at_the_end_of_the_wait_is_left_to_the_next_run(cloud, monkeypatch):
    set_policy(monkeypatch, time_budget_seconds=600)  # the wait's own cap binds, not the budget
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.compute.slow_stops[(DEV, A, "idle-1")] = 10_000  # never DONE within this run

    # Not confirmed is never done: 503, and Cloud Scheduler retries.
    report = post_report("reap_idle_vms", status=503)

    [action] = report["actions"]
    assert action["outcome"] == "failed"
    assert "not confirmed" in action["reason"] and "left CLAIMED" in action["reason"]
    assert cloud.recommender.state(rec["name"]) == "CLAIMED"
    waited = sum(cloud.clock.slept)
    assert 150 < waited <= WAIT_CAP_SECONDS  # on the invocation's clock

    # The next run, once the claim is stale, finds the VM stopped and closes the claim.
    cloud.clock.advance(3600)
    report = post_report("reap_idle_vms")
    assert cloud.recommender.state(rec["name"]) == "SUCCEEDED"
    assert [a["action"] for a in report["actions"]] == ["release_claim"]


def test_with_the_default_budget_the_wait_ends_within_the_invocations_grace(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    cloud.recommender.add(DEV, A, "idle-1")
    cloud.compute.slow_stops[(DEV, A, "idle-1")] = 10_000

    report = post_report("reap_idle_vms", status=503)

    assert "not confirmed" in report["actions"][0]["reason"]
    # 45 s budget + 30 s grace for an action's later calls: the wait never runs past it.
    assert sum(cloud.clock.slept) <= 45 + CONTINUATION_GRACE_SECONDS


def test_a_budget_stop_whose_operation_failed_at_once_is_redelivered(cloud, capsys):
    cloud.compute.add(DEV, A, "vm-a")
    cloud.compute.add(DEV, B, "vm-b")
    cloud.billing.add(DEV)
    cloud.compute.failing_stops[(DEV, A, "vm-a")] = (*FAILURE, True)

    send_event(pubsub_event(budget_data(1.0, 1000)), status=500)  # raised: Pub/Sub redelivers

    assert cloud.compute.status(DEV, A, "vm-a") == "RUNNING"
    assert cloud.compute.status(DEV, B, "vm-b") == "TERMINATED"
    stops = [x for x in log_lines(capsys.readouterr().out) if x.get("target", "").endswith("vm-a")]
    assert stops and stops[-1]["outcome"] == "failed"
    assert "RESOURCE_NOT_READY" in stops[-1]["reason"]


def test_a_scope_answered_unreachable_is_a_failed_scope_the_rest_is_stopped(cloud):
    past = str(cloud.clock.wall().date().replace(day=1))
    cloud.compute.add(DEV, A, "old-a", labels={"mlgov-expires-on": past})
    cloud.compute.add(DEV, B, "old-b", labels={"mlgov-expires-on": past})
    cloud.compute.unreachable_warning.add((DEV, B))

    report = post_report("reap_expired", status=503)

    assert cloud.compute.status(DEV, A, "old-a") == "TERMINATED"
    assert cloud.compute.status(DEV, B, "old-b") == "RUNNING"
    assert [s for s in report["failed_scopes"] if f"{DEV}/{B}" in s]
    # Empty zones come with NO_RESULTS_ON_PAGE (recorded): read whole, not failed.
    assert not [s for s in report["failed_scopes"] if "europe-west4" in s]

    cloud.compute.unreachable_warning.clear()
    post_report("reap_expired")
    assert cloud.compute.status(DEV, B, "old-b") == "TERMINATED"


def test_a_notebook_still_starting_refuses_the_stop_and_the_alert_comes_again(cloud, capsys):
    # The Notebooks API answers a stop of an instance still being created with 409 "unable to
    # queue the operation" (hashicorp/terraform-provider-google#17593). That is not "changed
    # concurrently, nothing to do": it is about to run and bill, so the alert is redelivered.
    cloud.notebooks.add(DEV, A, "nb-new", state="PROVISIONING")
    cloud.notebooks.add(DEV, B, "nb-up")
    cloud.billing.add(DEV)
    event = pubsub_event(budget_data(1.0, 1000), message_id="m1")

    send_event(event, status=500)  # raised: Pub/Sub redelivers

    assert cloud.notebooks.state(DEV, B, "nb-up") == "STOPPED"
    assert cloud.notebooks.state(DEV, A, "nb-new") == "PROVISIONING"
    lines = [
        x for x in log_lines(capsys.readouterr().out) if x.get("target", "").endswith("nb-new")
    ]
    assert lines[-1]["outcome"] == "failed"
    assert "refused for now" in lines[-1]["reason"]
    assert "unable to queue the operation" in lines[-1]["reason"]

    cloud.notebooks.instances[(DEV, A, "nb-new")]["state"] = "ACTIVE"  # it finished starting
    send_event(event)
    assert cloud.notebooks.state(DEV, A, "nb-new") == "STOPPED"


def test_a_vm_busy_with_another_operation_keeps_the_reapers_claim(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(r"/instances/idle-1/stop$", 409, times=1)

    report = post_report("reap_idle_vms", status=503)

    assert report["actions"][0]["outcome"] == "failed"
    assert "left CLAIMED" in report["actions"][0]["reason"]
    assert cloud.recommender.state(rec["name"]) == "CLAIMED"  # not FAILED: the next run resumes


@pytest.mark.parametrize("legacy", [False, True], ids=["error", "statusMessage-only"])
def test_a_gke_resize_whose_operation_fails_fails_the_cap(cloud, capsys, legacy):
    # GKE answers setSize with a RUNNING operation; it can end DONE with an error (or, in the
    # deprecated field, a statusMessage) and the pool keeps its nodes: the alert comes again.
    seed_accelerators(cloud)
    cloud.container.failing_sizes["l4-spot"] = "Insufficient permission to resize the group"
    cloud.container.legacy_error = legacy

    send_event(pubsub_event(budget_data(1.5, 1500), message_id="m1"), status=500)

    assert cloud.container.sizes[(PROD, REGION, CLUSTER, "l4-spot")] == 3
    lines = [
        x for x in log_lines(capsys.readouterr().out) if x.get("target", "").endswith("l4-spot")
    ]
    assert lines[-1]["outcome"] == "failed"
    assert "Insufficient permission to resize the group" in lines[-1]["reason"]

    cloud.container.failing_sizes.clear()
    send_event(pubsub_event(budget_data(1.5, 1500), message_id="m1"))
    assert cloud.container.sizes[(PROD, REGION, CLUSTER, "l4-spot")] == 0
