"""Each action kind: what it calls through the ports, what it reports; and the ACTIONS table.

Actions run here through execute.apply (the framework around them) on memory ports, so each
outcome is the one a report would carry.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime

import pytest

from govern import actions, claims, clock, execute, ports
from govern.actions import (
    ACTIONS,
    Action,
    DisableBilling,
    ReapRecommendation,
    ReleaseClaim,
    Skip,
    StopInstance,
    StopNotebook,
    StopTpuNode,
    StopWorkload,
)
from govern.models import Recommendation, Result, Workload
from govern.parse import action_policy
from governance.fakecloud.clock import FakeClock
from tests.functions.conftest import DEV, policy_dict
from tests.functions.memory import MemoryCloud, MemoryPorts

A = "us-central1-a"
POLICY = action_policy(json.dumps(policy_dict()))
RUN = claims.Run("run-1", datetime(2026, 11, 21, 5, 0, tzinfo=UTC))
CLAIMED = {"mlgov": "claimed", "run": "run-1", "runstart": "20261121T050000Z"}
STOPPED = {"mlgov": "stopped", "run": "run-1", "runstart": "20261121T050000Z"}


def _run(action: Action, cloud: MemoryCloud) -> Result:
    runner = execute.Runner(POLICY, FakeClock())
    [result] = execute.apply([action], MemoryPorts(cloud), runner, "test", dry_run=False)
    return result


def _kinds(cls: type[Action]) -> set[type[Action]]:
    found: set[type[Action]] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _kinds(sub)
    return found


def test_every_action_kind_is_in_the_table_and_states_its_permissions():
    defined = {k for k in _kinds(Action) if k.__module__.startswith("govern.actions")}
    # a record and shared bases, not kinds that run
    abstract = {Skip, StopWorkload, actions.CancelVertexJob}
    assert set(ACTIONS) == defined - abstract
    assert len(ACTIONS) == len(set(ACTIONS))
    for kind in ACTIONS:
        assert kind.permissions, kind
        assert kind.run is not Action.run, kind
        assert set(kind.permissions) <= {p for f in _flows() for p in f.permissions}, kind


def _flows():
    from govern.flows import FLOWS

    return FLOWS


def test_every_flow_only_emits_kinds_from_the_table():
    for flow in _flows():
        assert set(flow.actions) <= set(ACTIONS), flow.entry_point


@pytest.mark.parametrize(
    ("kind", "action_cls", "method", "state"),
    [
        ("compute", StopInstance, "compute.stop", "TERMINATED"),
        ("notebook", StopNotebook, "notebooks.stop", "STOPPED"),
        ("tpu", StopTpuNode, "tpus.stop", "STOPPED"),
    ],
)
def test_stop_kinds_stop_through_their_own_port(kind, action_cls, method, state):
    w = Workload(kind, DEV, A, "w1", "RUNNING")
    cloud = MemoryCloud([w])
    result = _run(action_cls(w.target, "idle", workload=w), cloud)
    assert result == Result(w.target, "stop", "done", "idle: stopped (operation operation-w1 done)")
    # The stop, then its operation confirmed through the same port (Compute at the VM's zone).
    port = method.split(".")[0]
    where = (DEV, A) if kind == "compute" else ()
    assert cloud.calls == [
        (method, (DEV, A, "w1")),
        (f"{port}.wait_operation", (*where, "operation-w1")),
    ]
    assert cloud.state(kind, "w1") == state


def test_disable_billing_unlinks_the_project_of_its_target():
    cloud = MemoryCloud(billing={DEV: True})
    target = f"//cloudbilling.googleapis.com/projects/{DEV}/billingInfo"
    result = _run(DisableBilling(target, "over budget"), cloud)
    assert result == Result(target, "disable_billing", "done", "over budget: billing unlinked")
    assert cloud.calls == [("billing.unlink", (DEV,))]
    assert cloud.billing[DEV] is False


def test_a_local_ssd_vm_is_stopped_keeping_its_data_and_the_report_says_so():
    w = Workload("compute", DEV, A, "w1", "RUNNING", local_ssds=2)
    cloud = MemoryCloud([w])
    result = _run(StopInstance(w.target, "idle", workload=w), cloud)
    assert cloud.calls[0] == ("compute.stop", (DEV, A, "w1", "keep_local_ssd=True"))
    assert result.outcome == "done"
    assert "2 Local SSD disk(s) are preserved (discardLocalSsd=false)" in result.reason
    assert "still billed while the VM is stopped" in result.reason


def test_a_dry_run_line_says_what_a_stop_would_do_to_local_ssds():
    w = Workload("compute", DEV, A, "w1", "RUNNING", local_ssds=1)
    runner = execute.Runner(POLICY, FakeClock())
    [result] = execute.apply(
        [StopInstance(w.target, "idle", workload=w)],
        MemoryPorts(MemoryCloud([w])),
        runner,
        "test",
        dry_run=True,
    )
    assert result.outcome == "simulated"
    assert "1 Local SSD disk(s) are preserved" in result.reason


def _reap(cloud: MemoryCloud, local_ssds: int = 0) -> ReapRecommendation:
    w = Workload("compute", DEV, A, "idle-1", "RUNNING", local_ssds=local_ssds)
    cloud.workloads.append(w)
    rec = Recommendation("recs/r1", "etag-0", "ACTIVE", "STOP_VM", DEV, A, "idle-1")
    return ReapRecommendation(w.target, "idle VM (recs/r1)", recommendation=rec, workload=w, by=RUN)


def test_reap_claims_stops_and_marks_succeeded_with_the_new_etag():
    cloud = MemoryCloud()
    result = _run(_reap(cloud), cloud)
    assert result.outcome == "done"
    assert result.reason == (
        "idle VM (recs/r1): stopped (operation operation-idle-1 DONE); "
        "recommendation marked succeeded"
    )
    assert cloud.calls == [
        ("recommender.mark_claimed", ("recs/r1", "etag-0", CLAIMED)),
        ("compute.stop", (DEV, A, "idle-1")),
        ("compute.wait_operation", (DEV, A, "operation-idle-1")),
        ("recommender.mark_succeeded", ("recs/r1", "etag-1", STOPPED)),
    ]


def test_reap_finds_its_own_claim_when_the_claim_reply_was_lost():
    # markClaimed went through but its reply was lost; the retry then met a new etag (Conflict).
    cloud = MemoryCloud()
    action = _reap(cloud)
    ours = dataclasses.replace(
        action.recommendation, etag="etag-7", state="CLAIMED", state_metadata=CLAIMED
    )
    cloud.recommendations.append(ours)
    cloud.errors[("recommender.mark_claimed", "recs/r1")] = ports.Conflict("stale etag")
    result = _run(action, cloud)
    assert result.outcome == "done"
    assert cloud.called("recommender.mark_succeeded") == [("recs/r1", "etag-7", STOPPED)]


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ports.Conflict("stale etag"), "recommendation changed concurrently, not claimed"),
        (ports.Gone("x"), "recommendation no longer exists"),
    ],
)
def test_reap_lost_claim_is_a_skip_and_never_stops(error, reason):
    cloud = MemoryCloud()
    cloud.errors[("recommender.mark_claimed", "recs/r1")] = error
    result = _run(_reap(cloud), cloud)
    assert (result.outcome, result.reason.startswith(reason)) == ("skipped", True)
    assert "compute.stop" not in cloud.methods()


def test_reap_instance_gone_marks_the_recommendation_failed():
    cloud = MemoryCloud()
    cloud.errors[("compute.stop", "idle-1")] = ports.Gone("x")
    result = _run(_reap(cloud), cloud)
    assert (result.outcome, result.reason) == (
        "skipped",
        "instance already gone; recommendation marked failed",
    )
    assert cloud.called("recommender.mark_failed") == [
        ("recs/r1", "etag-1", {**CLAIMED, "mlgov": "failed", "reason": "instance_not_found"})
    ]


def test_reap_failed_stop_is_failed_and_says_whether_the_mark_went_through():
    cloud = MemoryCloud()
    cloud.errors[("compute.stop", "idle-1")] = ports.PortError("HTTP 403 denied")
    cloud.errors[("recommender.mark_failed", "recs/r1")] = ports.PortError("HTTP 500 boom")
    result = _run(_reap(cloud), cloud)
    assert (result.outcome, result.reason) == (
        "failed",
        "stop failed: HTTP 403 denied; recommendation NOT marked failed (HTTP 500 boom)",
    )


@pytest.mark.parametrize(
    "error", [ports.Unavailable("HTTP 503 gave up"), clock.OutOfTime("no time left")]
)
def test_reap_transient_stop_failure_keeps_the_claim_for_the_next_run(error):
    cloud = MemoryCloud()
    cloud.errors[("compute.stop", "idle-1")] = error
    result = _run(_reap(cloud), cloud)
    assert result.outcome == "failed"
    assert "left CLAIMED by run run-1, the next run resumes it" in result.reason
    assert "recommender.mark_failed" not in cloud.methods()
    assert cloud.rec_states == {"recs/r1": "CLAIMED"}


def test_reap_stop_counts_even_if_mark_succeeded_fails():
    cloud = MemoryCloud()
    cloud.errors[("recommender.mark_succeeded", "recs/r1")] = ports.PortError("HTTP 403")
    result = _run(_reap(cloud), cloud)
    assert result.outcome == "done"
    assert result.reason.endswith("recommendation NOT marked succeeded (HTTP 403)")


@pytest.mark.parametrize(
    ("succeeded", "method"), [(True, "mark_succeeded"), (False, "mark_failed")]
)
def test_release_claim_marks_the_recommendation(succeeded, method):
    cloud = MemoryCloud()
    rec = Recommendation("recs/r1", "etag-3", "CLAIMED", "STOP_VM", DEV, A, "idle-1")
    result = _run(ReleaseClaim("t", "why", recommendation=rec, succeeded=succeeded, by=RUN), cloud)
    assert result.outcome == "done"
    assert [m for m, _ in cloud.calls] == [f"recommender.{method}"]
    assert cloud.calls[0][1][:2] == ("recs/r1", "etag-3")


def test_an_unexpected_error_fails_the_action_not_the_run(capsys):
    w, ok = (Workload("compute", DEV, A, n, "RUNNING") for n in ("idle-1", "ok"))
    cloud = MemoryCloud([w, ok])
    cloud.errors[("compute.stop", "idle-1")] = KeyError("bug")
    runner = execute.Runner(POLICY, FakeClock())
    results = execute.apply(
        [StopInstance(w.target, "r", workload=w), StopInstance(ok.target, "r", workload=ok)],
        MemoryPorts(cloud),
        runner,
        "test",
        dry_run=False,
    )
    assert [r.outcome for r in results] == ["failed", "done"]
    assert results[0].reason == "unexpected KeyError: 'bug'"
    assert "Traceback" in capsys.readouterr().out


def test_actions_are_values_and_know_their_project():
    w = Workload("compute", DEV, A, "x", "RUNNING")
    assert StopInstance(w.target, "r", workload=w) == StopInstance(w.target, "r", workload=w)
    assert StopInstance(w.target, "r", workload=w).project == DEV
    assert Skip("not-a-resource-name", "r").project == ""
    assert actions.Action.verb == "stop"
    assert DisableBilling.verb == "disable_billing"
