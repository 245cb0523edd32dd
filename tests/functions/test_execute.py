"""execute.py: rate limiting, round-robin scheduling, time budget, dispatch table, outcomes.

Time is a FakeClock throughout: the assertions about waiting are about the clock's readings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from govern import clock as clock_module
from govern import execute, ports
from govern.actions import ACTIONS, Action, ReleaseClaim, Skip, StopInstance
from govern.claims import Run
from govern.models import ActionPolicy, Recommendation, Workload
from govern.parse import action_policy
from governance.fakecloud.clock import FakeClock
from tests.functions.conftest import DEV, policy_dict
from tests.functions.memory import MemoryCloud, MemoryPorts

RUN = Run("run-1", datetime(2026, 11, 21, tzinfo=UTC))


def _policy(**extra) -> ActionPolicy:
    return action_policy(json.dumps(policy_dict(**extra)))


def test_rate_limiter_spaces_calls_per_project():
    clock = FakeClock()
    limiter = execute.RateLimiter(5, clock)
    start = clock.now()
    for _ in range(10):
        assert limiter.acquire("p")
    assert clock.now() - start < 0.01  # the bucket holds two seconds' worth: no wait
    for _ in range(10):
        assert limiter.acquire("p")
    assert 1.9 <= clock.now() - start <= 2.1  # then 10 more at 5/s
    # Any minute's total stays near the rate: 10 in the bucket + 60 s x 5/s.
    minute_start = clock.now()
    calls = 0
    while clock.now() - minute_start < 60:
        limiter.acquire("p")
        calls += 1
    assert calls <= 5 * 60 + 1
    start = clock.now()
    assert limiter.acquire("other")  # projects have separate buckets
    assert clock.now() - start < 0.1


def test_rate_limiter_gives_up_at_the_deadline():
    clock = FakeClock()
    limiter = execute.RateLimiter(1, clock)
    assert limiter.acquire("p") and limiter.acquire("p")  # the two-second bucket
    assert not limiter.acquire("p", deadline=clock.now() + 0.1)
    assert clock.slept == []  # it saw the wait would pass the deadline, and did not wait


def test_round_robin_interleaves_projects_and_keeps_result_order():
    runner = execute.Runner(_policy(max_concurrency=1), FakeClock())
    started: list[str] = []
    items = ["a1", "a2", "a3", "b1", "c1", "c2"]
    results = runner.map(lambda x: started.append(x) or x.upper(), items, project=lambda x: x[0])
    assert started == ["a1", "b1", "c1", "a2", "c2", "a3"]
    assert results == ["A1", "A2", "A3", "B1", "C1", "C2"]


def _cloud(*names: str, errors: dict[str, Exception] | None = None) -> MemoryCloud:
    cloud = MemoryCloud([Workload("compute", DEV, "us-central1-a", n, "RUNNING") for n in names])
    cloud.errors = {("compute.stop", name): err for name, err in (errors or {}).items()}
    return cloud


def _stop(name: str) -> StopInstance:
    w = Workload("compute", DEV, "us-central1-a", name, "RUNNING")
    return StopInstance(w.target, "r", workload=w)


def _stopped(cloud: MemoryCloud) -> list[str]:
    return [
        str(args[2])
        for args in cloud.called("compute.stop")
        if cloud.state("compute", str(args[2])) == "TERMINATED"
    ]


def test_outcomes_gone_conflict_failed_and_the_rest_still_run(capsys):
    cloud = _cloud(
        "gone",
        "busy",
        "bad",
        "ok",
        errors={
            "gone": ports.Gone("x"),
            "busy": ports.Conflict("etag"),
            "bad": ports.PortError("HTTP 403"),
        },
    )
    actions = [_stop("gone"), _stop("busy"), _stop("bad"), _stop("ok"), Skip("t", "exempt")]
    runner = execute.Runner(_policy(), FakeClock())
    results = execute.apply(actions, MemoryPorts(cloud), runner, "t", dry_run=False)
    # A stop refused with a conflict is a failure (the resource is busy and still runs, e.g. a
    # notebook still starting: 409), never "changed concurrently" (actions/stop.py).
    assert [r.outcome for r in results] == ["skipped", "failed", "failed", "done", "skipped"]
    assert results[0].reason == "already gone"
    assert "refused for now" in results[1].reason
    assert _stopped(cloud) == ["ok"]
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["severity"] for x in lines] == ["INFO", "ERROR", "ERROR", "NOTICE", "INFO"]


def test_a_conflict_an_action_leaves_to_the_framework_is_a_concurrent_change(capsys):
    # A stale etag on a recommendation: someone else changed it; skipped, nothing done.
    rec = Recommendation("recs/r1", "etag-0", "CLAIMED", "STOP_VM", DEV, "us-central1-a", "vm")
    cloud = _cloud()
    cloud.errors = {("recommender.mark_succeeded", "recs/r1"): ports.Conflict("etag")}
    action = ReleaseClaim("t", "stale claim", recommendation=rec, succeeded=True, by=RUN)
    runner = execute.Runner(_policy(), FakeClock())
    [result] = execute.apply([action], MemoryPorts(cloud), runner, "t", dry_run=False)
    assert result.outcome == "skipped"
    assert result.reason.startswith("changed concurrently")


def test_dry_run_calls_nothing():
    cloud = _cloud("a")
    runner = execute.Runner(_policy(), FakeClock())
    results = execute.apply([_stop("a")], MemoryPorts(cloud), runner, "t", dry_run=True)
    assert results[0].outcome == "simulated"
    assert results[0].reason == "dry run: would stop: r"
    assert cloud.calls == []


def test_expired_time_budget_leaves_everything_reported():
    clock = FakeClock()
    runner = execute.Runner(_policy(time_budget_seconds=0.01), clock)
    clock.advance(0.02)
    cloud = _cloud("a", "b")
    results = execute.apply(
        [_stop("a"), _stop("b")], MemoryPorts(cloud), runner, "t", dry_run=False
    )
    assert [r.reason for r in results] == [execute.LEFT_REASON] * 2
    assert cloud.calls == []
    report = execute.report("t", results, runner)
    assert report.unfinished == (_stop("a").target, _stop("b").target)


@dataclass(frozen=True)
class _Unregistered(Action):
    """An action kind missing from the ACTIONS table."""

    def run(self, ports, call):
        raise AssertionError("must not run: not in ACTIONS")


def _apply_unregistered(*, dry_run: bool):
    runner = execute.Runner(_policy(), FakeClock())
    action = _Unregistered("//x/projects/p/y", "r")
    [result] = execute.apply([action], MemoryPorts(MemoryCloud()), runner, "t", dry_run=dry_run)
    return result


def test_only_kinds_in_the_table_run():
    assert _Unregistered not in ACTIONS
    result = _apply_unregistered(dry_run=False)
    assert (result.outcome, result.reason) == ("failed", "no executor for _Unregistered")


def test_dry_run_simulates_any_kind_without_running_it():
    assert _apply_unregistered(dry_run=True).outcome == "simulated"


def test_calls_carry_the_runner_clock_and_deadline_to_the_adapters():

    fake = FakeClock()
    runner = execute.Runner(_policy(time_budget_seconds=20), fake)
    seen = runner.call(DEV, lambda: (clock_module.current(), clock_module.seconds_left(30.0)))
    assert seen == (fake, 20.0)
    assert clock_module.current() is clock_module.SYSTEM  # only inside the call


def test_an_action_that_began_may_finish_past_the_budget_but_nothing_new_starts():
    fake = FakeClock()
    runner = execute.Runner(_policy(time_budget_seconds=10), fake)
    call = runner.action_calls()
    assert call(DEV, lambda: "first") == "first"
    fake.advance(15)  # the budget is gone, the action has begun
    assert call(DEV, lambda: "second") == "second"
    with pytest.raises(clock_module.OutOfTime):
        runner.action_calls()(DEV, lambda: "a new action")
    fake.advance(execute.CONTINUATION_GRACE_SECONDS)
    with pytest.raises(clock_module.OutOfTime):
        call(DEV, lambda: "even a begun action stops after the grace")


def test_reads_the_budget_left_unstarted_are_run_errors_not_silence():
    fake = FakeClock()
    runner = execute.Runner(_policy(time_budget_seconds=1), fake)
    fake.advance(2)
    reads = [execute.ReadCall("compute list", DEV, lambda p: [p], (DEV,))]
    assert runner.gather_all(reads) == [[]]
    assert runner.errors == [f"compute list {DEV}: {execute.LEFT_REASON}"]


def test_a_read_that_raises_something_unexpected_is_reported_and_the_rest_go_on():
    runner = execute.Runner(_policy(), FakeClock())

    def broken(project):
        raise KeyError(project)

    reads = [
        execute.ReadCall("broken list", DEV, broken, (DEV,)),
        execute.ReadCall("good list", DEV, lambda p: [p], (DEV,)),
    ]
    assert runner.gather_all(reads) == [[], [DEV]]
    assert runner.errors == [f"broken list {DEV}: unexpected KeyError: '{DEV}'"]
    assert execute.report("t", [], runner).failed


def test_a_listing_reports_what_it_could_not_parse():
    runner = execute.Runner(_policy(), FakeClock())
    listing = ports.Listing(["good"], [ports.Unreadable("//x/bad", "unexpected name")])
    assert runner.gather("list", DEV, lambda: listing) == ["good"]
    report = execute.report("t", [], runner)
    assert report.unreadable == ("//x/bad",)
    assert not report.failed  # reported, but trying again cannot make it readable
    assert report.results[0].as_dict() == {
        "target": "//x/bad",
        "action": "read",
        "outcome": "skipped",
        "reason": "unreadable, not acted on: unexpected name",
    }
