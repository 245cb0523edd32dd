"""Table-driven tests of the pure decisions."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from govern import cap, claims, decide
from govern.actions import (
    DisableBilling,
    ReapRecommendation,
    ReleaseClaim,
    Skip,
    StopInstance,
    StopNotebook,
    StopTpuNode,
)
from govern.models import BudgetAlert, Kind, Recommendation, Unjudged, Workload
from govern.parse import action_policy
from tests.functions.conftest import BUDGET, DEV, PROD, budget_dict, policy_dict

# The budget's amount is 100, as the alerts' budgetAmount below (amount: the spend ratio's base).
POLICY = action_policy(json.dumps(policy_dict(budgets={BUDGET: budget_dict(amount=100.0)})))
A, B = "us-central1-a", "us-central1-b"


def vm(name, state="RUNNING", zone=A, project=DEV, kind: Kind = "compute", **kw):
    return Workload(kind, project, zone, name, state, **kw)


def alert(threshold=None, cost=0.0, budget=100.0, forecast=None, budget_id=BUDGET):
    return BudgetAlert(budget_id, cost, budget, threshold, forecast)


@pytest.mark.parametrize(
    ("a", "stop", "billing"),
    [
        (alert(0.5, cost=50), (), ()),
        (alert(None, cost=10, forecast=2.0), (), ()),  # forecasts alone never act
        (alert(None, cost=0, budget=0), (), ()),
        (alert(1.0, cost=100), (DEV, PROD), ()),
        (alert(None, cost=110), (DEV, PROD), ()),
        (alert(1.2, cost=125), (DEV, PROD), (DEV,)),  # PROD has allow_billing_disable false
        (alert(None, cost=500), (DEV, PROD), (DEV,)),
        # The threshold never raises the ratio: 0.9 crossed, but 130% spent => unlink too.
        (alert(0.9, cost=130), (DEV, PROD), (DEV,)),
    ],
)
def test_budget_scope(a, stop, billing):
    scope = decide.budget_scope(a, POLICY)
    assert (scope.stop_projects, scope.billing_projects) == (stop, billing)
    assert not scope.inconsistent


def test_stop_level_above_every_threshold_is_reached_by_the_spend_ratio():
    # prod before this fix: thresholds up to 1.0, stop_at 1.1. Google never reports a threshold
    # above 1.0, so only costAmount / budgetAmount can reach 1.1.
    policy = action_policy(
        json.dumps(
            policy_dict(
                budgets={BUDGET: {"projects": [PROD], "stop_at": 1.1, "disable_billing_at": None}}
            )
        )
    )
    assert decide.budget_scope(alert(1.0, cost=105), policy).stop_projects == ()
    scope = decide.budget_scope(alert(1.0, cost=300), policy)
    assert scope.stop_projects == (PROD,)
    assert "300%" in scope.reason


@pytest.mark.parametrize(
    "a", [alert(5.0, cost=0), alert(1.0, cost=99.9), alert(1.2, cost=0, budget=1000)]
)
def test_a_threshold_above_the_spend_ratio_is_inconsistent_and_not_acted_on(a):
    scope = decide.budget_scope(a, POLICY)
    assert scope.inconsistent
    assert (scope.stop_projects, scope.billing_projects) == ((), ())
    assert "inconsistent notification: alertThresholdExceeded" in scope.reason


def test_a_threshold_equal_to_the_ratio_is_consistent():
    # 0.9 of 152.557 is 137.3013; float rounding must not make this inconsistent.
    assert not decide.budget_scope(alert(0.9, cost=137.3013, budget=152.557), POLICY).inconsistent


def test_unknown_budget_is_an_error():
    with pytest.raises(decide.DecisionError, match=r"not in MLGOV_POLICY\.budgets"):
        decide.budget_scope(alert(2.0, budget_id="other"), POLICY)


@pytest.mark.parametrize(
    ("w", "expected"),
    [
        (vm("a"), StopInstance),
        (vm("n", state="ACTIVE", kind="notebook"), StopNotebook),
        (vm("t", state="READY", kind="tpu"), StopTpuNode),
        (vm("a", state="TERMINATED"), Skip),
        (vm("n", state="STOPPED", kind="notebook"), Skip),
        (vm("t", state="STOPPED", kind="tpu"), Skip),
        (vm("a", labels={"mlgov-exempt": "true"}), Skip),
        (vm("a", labels={"mlgov-exempt": "TRUE"}), StopInstance),  # exact value only
        (vm("a", managed_by="gke"), Skip),
        (vm("a", managed_by="workbench"), Skip),
        (vm("a", managed_by="mig"), Skip),
    ],
)
def test_stop_workloads_one_action_per_governed_resource(w, expected):
    actions = decide.stop_workloads([w], POLICY, "r")
    assert [type(a) for a in actions] == [expected]
    assert actions[0].target == w.target


def test_stop_workloads_ignores_ungoverned_projects_and_names_what_runs_outside_zones():
    # Issue 29: a running VM of a governed project outside its zones is named, not skipped
    # without a trace; a stopped one there, or an exempt one, is nobody's business.
    outside = vm("x", zone="europe-west4-a")
    actions = decide.stop_workloads(
        [
            outside,
            vm("y", project="other"),
            vm("z", "TERMINATED", zone="europe-west4-a"),
            vm("e", zone="europe-west4-a", labels={"mlgov-exempt": "true"}),
        ],
        POLICY,
        "r",
    )
    assert [(type(a), a.target) for a in actions] == [(cap.OutsideZones, outside.target)]
    assert "outside the governed zones of" in actions[0].reason


def test_disable_billing_is_idempotent():
    scope = decide.budget_scope(alert(1.5, cost=150), POLICY)
    target = f"//cloudbilling.googleapis.com/projects/{DEV}/billingInfo"
    assert decide.disable_billing({DEV: True}, scope) == [DisableBilling(target, scope.reason)]
    assert decide.disable_billing({DEV: False}, scope) == [Skip(target, "billing already unlinked")]
    assert decide.disable_billing({}, scope) == []


def rec(instance="vm-1", state="ACTIVE", subtype="STOP_VM", problem="", zone=A, meta=None):
    return Recommendation(
        f"projects/1/locations/{zone}/recommenders/r/recommendations/{instance}",
        '"e"',
        state,
        subtype,
        DEV,
        zone,
        instance if not problem else None,
        problem,
        meta or {},
    )


NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
RUN = claims.Run("this-run", NOW)


def mlgov_claim(age: timedelta, run_id: str = "old-run") -> dict[str, str]:
    return claims.metadata(claims.CLAIMED, claims.Run(run_id, NOW - age))


STALE = mlgov_claim(timedelta(hours=1))  # older than the 45 s budget + margin
FRESH = mlgov_claim(timedelta(seconds=30))


@pytest.mark.parametrize(
    ("r", "instances", "expected", "reason"),
    [
        (rec(), [vm("vm-1")], ReapRecommendation, "idle VM"),
        (rec(), [], Skip, "instance not found"),
        (rec(), [vm("vm-1", state="TERMINATED")], Skip, "not running"),
        (rec(), [vm("vm-1", labels={"mlgov-exempt": "true"})], Skip, "exempt"),
        (rec(state="CLAIMED"), [vm("vm-1")], Skip, "CLAIMED by someone else"),
        (rec(state="SUCCEEDED"), [vm("vm-1")], Skip, "not ACTIVE"),
        (rec(state="CLAIMED", meta=FRESH), [vm("vm-1")], Skip, "may still run"),
        (rec(state="CLAIMED", meta=STALE), [vm("vm-1")], ReapRecommendation, "resuming"),
        (
            rec(state="CLAIMED", meta={"mlgov": "reap_idle_vms"}),  # an older mlgov's claim
            [vm("vm-1")],
            ReapRecommendation,
            "resuming the stale claim",
        ),
        (rec(state="CLAIMED", meta=STALE), [], ReleaseClaim, "instance not found"),
        (
            rec(state="CLAIMED", meta=STALE),
            [vm("vm-1", state="TERMINATED")],
            ReleaseClaim,
            "not running",
        ),
        (rec(subtype="CHANGE_MACHINE_TYPE"), [vm("vm-1")], Skip, "not STOP_VM"),
        (
            rec(problem="recommendation has no operationGroups"),
            [vm("vm-1")],
            Skip,
            "no operationGroups",
        ),
        (rec(zone="europe-west4-a"), [vm("vm-1", zone="europe-west4-a")], Skip, "not governed"),
    ],
)
def test_reap_idle(r, instances, expected, reason):
    actions = decide.reap_idle([r], instances, POLICY, RUN)
    assert len(actions) == 1
    assert type(actions[0]) is expected
    assert reason in actions[0].reason


def test_a_stale_claim_on_a_stopped_vm_is_released_as_succeeded_a_vanished_one_as_failed():
    stopped = decide.reap_idle(
        [rec(state="CLAIMED", meta=STALE)], [vm("vm-1", state="TERMINATED")], POLICY, RUN
    )
    gone = decide.reap_idle([rec(state="CLAIMED", meta=STALE)], [], POLICY, RUN)
    released = [a for a in stopped + gone if isinstance(a, ReleaseClaim)]
    assert [a.succeeded for a in released] == [True, False]


def test_claims_carry_the_run_and_resumed_ones_are_claimed_again_by_this_run():
    [action] = decide.reap_idle([rec(state="CLAIMED", meta=STALE)], [vm("vm-1")], POLICY, RUN)
    assert isinstance(action, ReapRecommendation)
    assert action.by == RUN


TODAY = date(2026, 11, 21)


@pytest.mark.parametrize(
    ("label", "expected", "reason"),
    [
        ("2026-11-20", StopInstance, "has passed"),
        ("2026-11-21", Skip, "not yet"),
        ("2026-12-01", Skip, "not yet"),
        ("2026-13-01", Skip, "invalid"),
        ("20261120", Skip, "invalid"),
        ("", Skip, "invalid"),
        ("2026-11-20T00:00", Skip, "invalid"),
    ],
)
def test_reap_expired(label, expected, reason):
    actions = decide.reap_expired([vm("a", labels={"mlgov-expires-on": label})], POLICY, TODAY)
    assert [type(a) for a in actions] == [expected]
    assert reason in actions[0].reason


def test_reap_expired_ignores_unlabelled():
    assert decide.reap_expired([vm("a")], POLICY, TODAY) == []


def gpu(name, util_id="1", workload="training", **kw):
    kw.setdefault("last_start", NOW - timedelta(days=2))
    return vm(
        name,
        gpus=1,
        instance_id=util_id,
        labels={"workload": workload, **kw.pop("labels", {})},
        **kw,
    )


@pytest.mark.parametrize(
    ("w", "util", "expected", "reason"),
    [
        (gpu("g"), {"1": 1.0}, StopInstance, "GPU idle"),
        (gpu("g"), {"1": 5.0}, Skip, "busy"),
        (gpu("g"), {}, decide.NoData, "no GPU utilization data"),
        (gpu("g", labels={"mlgov-exempt": "true"}), {"1": 0.0}, Skip, "exempt"),
        (gpu("g", state="TERMINATED"), {"1": 0.0}, Skip, "not running"),
        (gpu("g", managed_by="gke"), {"1": 0.0}, Skip, "gke"),
        (
            gpu("g", managed_by="workbench", workload="notebook"),
            {"1": 0.0},
            StopNotebook,
            "GPU idle",
        ),
        # Judged only once it has run the whole window (lastStartTimestamp)...
        (
            gpu("g", last_start=NOW - timedelta(minutes=5)),
            {"1": 0.0},
            Skip,
            "5 min ago: judged once it has run the whole 60-min window",
        ),
        (gpu("g", last_start=NOW - timedelta(minutes=60)), {"1": 0.0}, StopInstance, "GPU idle"),
        (gpu("g", last_start=None), {"1": 0.0}, Skip, "start time is unknown"),
        # ...and on data that covers it, in the documented unit.
        (gpu("g"), {"1": Unjudged("data covers 5 of the last 60 min")}, Skip, "covers 5 of"),
        (gpu("g"), {"1": Unjudged("unit '10^2.%'", True)}, decide.NoData, "counted as no data"),
    ],
)
def test_reap_idle_gpus(w, util, expected, reason):
    actions = decide.reap_idle_gpus([w], util, POLICY, NOW)
    assert [type(a) for a in actions] == [expected]
    assert reason in actions[0].reason


def test_gpu_candidates_need_gpu_and_workload_label():
    ws = [
        gpu("a"),
        gpu("b", workload="data"),
        vm("c", labels={"workload": "training"}),
        gpu("d", workload="notebook"),
    ]
    assert [w.name for w in decide.gpu_candidates(ws, POLICY)] == ["a", "d"]


def test_decisions_are_deterministic():
    ws = [vm(n) for n in ("c", "a", "b")]
    assert decide.stop_workloads(ws, POLICY, "r") == decide.stop_workloads(
        list(reversed(ws)), POLICY, "r"
    )
