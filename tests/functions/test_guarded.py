"""flows/guarded.py on memory ports: what a caller (a fan-out work item) adds to the limits.

`Bounds.dry_run` can only make a run drier; `Bounds.allowance` replaces the run's ceiling with
the item's share; `Bounds.resolve` turns a canary folder into projects. The end-to-end limits
are in test_blast_radius.py.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from govern import claims, execute, flows
from govern.actions import ReapRecommendation, ReleaseClaim, Skip, StopInstance
from govern.flows.guarded import Bounds, planned_stops
from govern.models import Recommendation, Workload
from govern.parse import action_policy
from governance.fakecloud.clock import FakeClock
from tests.functions.conftest import DEV, PROD, policy_dict
from tests.functions.memory import MemoryCloud, MemoryPorts

A = "us-central1-a"
TODAY = date(2026, 11, 21)
NOW = datetime(2026, 11, 21, 5, 0, tzinfo=UTC)
EXPIRED = {"mlgov-expires-on": "2026-11-01"}
RUN = claims.Run("run-1", NOW)


def _runner(**extra) -> execute.Runner:
    policy = action_policy(json.dumps(policy_dict(**extra)))
    return execute.Runner(policy, FakeClock(wall=NOW))


def _cloud(*names: str, project: str = DEV) -> MemoryCloud:
    return MemoryCloud(
        workloads=[Workload("compute", project, A, n, "RUNNING", EXPIRED) for n in names]
    )


def test_an_items_dry_run_makes_an_acting_reaper_simulate():
    cloud = _cloud("old-1")
    report = flows.reap_expired(MemoryPorts(cloud), _runner(), TODAY, Bounds(dry_run=True))
    assert report.dry_run is True
    assert [r.outcome for r in report.results] == ["simulated"]
    assert not cloud.called("compute.stop")


def test_an_items_acting_flag_never_wakes_a_dry_policy():
    cloud = _cloud("old-1")
    runner = _runner(dry_run=True)
    report = flows.reap_expired(MemoryPorts(cloud), runner, TODAY, Bounds(dry_run=False))
    assert report.dry_run is True and not cloud.called("compute.stop")


def test_an_allowance_holds_an_item_that_plans_more():
    cloud = _cloud("old-1", "old-2")
    report = flows.reap_expired(MemoryPorts(cloud), _runner(), TODAY, Bounds(allowance=1))
    assert {r.outcome for r in report.results} == {"skipped"}
    assert report.holds[0].reason.startswith("held: blast-radius ceiling: 2 stop(s) planned")
    assert "allowance of 1 stop(s)" in report.holds[0].reason
    assert not cloud.called("compute.stop")
    # Within its allowance an item acts even above the policy's own ceiling.
    cloud = _cloud("old-1", "old-2")
    runner = _runner(blast_radius={"max_stops_per_run": 1})
    report = flows.reap_expired(MemoryPorts(cloud), runner, TODAY, Bounds(allowance=2))
    assert [r.outcome for r in report.results] == ["done", "done"]


def test_a_resolver_turns_a_canary_folder_into_projects():
    cloud = MemoryCloud(
        workloads=[
            Workload("compute", DEV, A, "dev-1", "RUNNING", EXPIRED),
            Workload("compute", PROD, A, "prod-1", "RUNNING", EXPIRED),
        ]
    )
    runner = _runner(blast_radius={"canary": ["folders/42"]})
    bounds = Bounds(resolve=lambda folder: [PROD] if folder == "folders/42" else [])
    report = flows.reap_expired(MemoryPorts(cloud), runner, TODAY, bounds)
    assert [r.outcome for r in report.results] == ["done", "done"]
    # The canary's stop went first.
    assert [args[2] for args in cloud.called("compute.stop")] == ["prod-1", "dev-1"]


def test_only_stops_count_toward_the_ceiling():
    w = Workload("compute", DEV, A, "vm", "RUNNING")
    rec = Recommendation("recs/1", "etag", "CLAIMED", "STOP_VM", DEV, A, "vm")
    stop = StopInstance(w.target, "why", workload=w)
    reap = ReapRecommendation(w.target, "idle", recommendation=rec, workload=w, by=RUN)
    release = ReleaseClaim(w.target, "stale", recommendation=rec, succeeded=True, by=RUN)
    assert planned_stops([stop, reap, release, Skip(w.target, "exempt")]) == [stop, reap]


def test_a_canary_folder_with_no_project_holds_everything_outside_the_known_canary():
    # Asset Inventory (the memory ports' scopes) finds nothing under folders/42: never "no
    # canary, so act everywhere".
    cloud = MemoryCloud(
        workloads=[
            Workload("compute", DEV, A, "dev-1", "RUNNING", EXPIRED),
            Workload("compute", PROD, A, "prod-1", "RUNNING", EXPIRED),
        ],
        scopes={"folders/42": []},
    )
    runner = _runner(blast_radius={"canary": ["folders/42", f"projects/{PROD}"]})
    report = flows.reap_expired(MemoryPorts(cloud), runner, TODAY)
    outcomes = {r.target.rsplit("/", 1)[-1]: r.outcome for r in report.results}
    assert outcomes == {"prod-1": "done", "dev-1": "skipped"}
    assert [h.kind for h in report.holds] == ["canary"] and report.failed
    assert cloud.called("assets.search_projects") == [("folders/42",)]


def test_a_work_item_leaves_the_canary_to_its_dispatcher():
    cloud = MemoryCloud(workloads=[Workload("compute", DEV, A, "dev-1", "RUNNING", EXPIRED)])
    runner = _runner(blast_radius={"canary": ["folders/42"]})
    report = flows.reap_expired(MemoryPorts(cloud), runner, TODAY, Bounds(canary_first=False))
    assert [r.outcome for r in report.results] == ["done"] and not report.holds
    assert not cloud.called("assets.search_projects")  # no organization-quota call per item
