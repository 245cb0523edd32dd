"""Each action kind: what it calls through the ports, what it reports; and the ACTIONS table.

Actions run here through execute.apply (the framework around them) on memory ports, so each
outcome is the one a report would carry.
"""

from __future__ import annotations

import json

import pytest

from govern import actions, execute, ports
from govern.actions import (
    ACTIONS,
    Action,
    DisableBilling,
    ReapRecommendation,
    Skip,
    StopInstance,
    StopNotebook,
    StopTpuNode,
    StopWorkload,
)
from govern.models import ActionPolicy, Recommendation, Result, Workload
from tests.fakegcp.clock import FakeClock
from tests.functions.conftest import DEV, policy_dict
from tests.functions.memory import MemoryCloud, MemoryPorts

A = "us-central1-a"
POLICY = ActionPolicy.from_json(json.dumps(policy_dict()))


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
    assert result == Result(w.target, "stop", "done", "idle: stop requested (operation-w1 PENDING)")
    assert cloud.calls == [(method, (DEV, A, "w1"))]
    assert cloud.state(kind, "w1") == state


def test_disable_billing_unlinks_the_project_of_its_target():
    cloud = MemoryCloud(billing={DEV: True})
    target = f"//cloudbilling.googleapis.com/projects/{DEV}/billingInfo"
    result = _run(DisableBilling(target, "over budget"), cloud)
    assert result == Result(target, "disable_billing", "done", "over budget: billing unlinked")
    assert cloud.calls == [("billing.unlink", (DEV,))]
    assert cloud.billing[DEV] is False


def _reap(cloud: MemoryCloud) -> ReapRecommendation:
    w = Workload("compute", DEV, A, "idle-1", "RUNNING")
    cloud.workloads.append(w)
    rec = Recommendation("recs/r1", "etag-0", "ACTIVE", "STOP_VM", DEV, A, "idle-1")
    return ReapRecommendation(w.target, "idle VM (recs/r1)", recommendation=rec, workload=w)


def test_reap_claims_stops_and_marks_succeeded_with_the_new_etag():
    cloud = MemoryCloud()
    result = _run(_reap(cloud), cloud)
    assert result.outcome == "done"
    assert result.reason == (
        "idle VM (recs/r1): stop requested (operation operation-idle-1 PENDING); "
        "recommendation marked succeeded"
    )
    assert cloud.calls == [
        ("recommender.mark_claimed", ("recs/r1", "etag-0")),
        ("compute.stop", (DEV, A, "idle-1")),
        ("recommender.mark_succeeded", ("recs/r1", "etag-1")),
    ]


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
    assert cloud.called("recommender.mark_failed") == [("recs/r1", "etag-1", "instance not found")]


def test_reap_failed_stop_is_failed_and_says_whether_the_mark_went_through():
    cloud = MemoryCloud()
    cloud.errors[("compute.stop", "idle-1")] = ports.PortError("HTTP 403 denied")
    cloud.errors[("recommender.mark_failed", "recs/r1")] = ports.PortError("HTTP 500 boom")
    result = _run(_reap(cloud), cloud)
    assert (result.outcome, result.reason) == (
        "failed",
        "stop failed: HTTP 403 denied; recommendation NOT marked failed (HTTP 500 boom)",
    )


def test_reap_stop_counts_even_if_mark_succeeded_fails():
    cloud = MemoryCloud()
    cloud.errors[("recommender.mark_succeeded", "recs/r1")] = ports.PortError("HTTP 403")
    result = _run(_reap(cloud), cloud)
    assert result.outcome == "done"
    assert result.reason.endswith("recommendation NOT marked succeeded (HTTP 403)")


def test_actions_are_values_and_know_their_project():
    w = Workload("compute", DEV, A, "x", "RUNNING")
    assert StopInstance(w.target, "r", workload=w) == StopInstance(w.target, "r", workload=w)
    assert StopInstance(w.target, "r", workload=w).project == DEV
    assert Skip("not-a-resource-name", "r").project == ""
    assert actions.Action.verb == "stop"
    assert DisableBilling.verb == "disable_billing"
