"""execute.py: rate limiting, round-robin scheduling, time budget, outcomes."""

from __future__ import annotations

import json
import time

from govern import execute, ports
from govern.models import ActionPolicy, Skip, StopInstance, Workload
from tests.functions.conftest import DEV, policy_dict


def _policy(**extra) -> ActionPolicy:
    return ActionPolicy.from_json(json.dumps(policy_dict(**extra)))


def test_rate_limiter_spaces_calls_per_project():
    limiter = execute.RateLimiter(5)
    start = time.monotonic()
    for _ in range(10):
        assert limiter.acquire("p")
    assert time.monotonic() - start >= 0.9  # 5 from the bucket, 5 more at 5/s
    start = time.monotonic()
    assert limiter.acquire("other")  # projects have separate buckets
    assert time.monotonic() - start < 0.1


def test_rate_limiter_gives_up_at_the_deadline():
    limiter = execute.RateLimiter(1)
    assert limiter.acquire("p")
    assert not limiter.acquire("p", deadline=time.monotonic() + 0.1)


def test_round_robin_interleaves_projects_and_keeps_result_order():
    runner = execute.Runner(_policy(max_concurrency=1))
    started: list[str] = []
    items = ["a1", "a2", "a3", "b1", "c1", "c2"]
    results = runner.map(lambda x: started.append(x) or x.upper(), items, project=lambda x: x[0])
    assert started == ["a1", "b1", "c1", "a2", "c2", "a3"]
    assert results == ["A1", "A2", "A3", "B1", "C1", "C2"]


class _Compute:
    def __init__(self, errors: dict[str, Exception]):
        self.errors = errors
        self.stopped: list[str] = []

    def list_instances(self, project: str) -> list[Workload]:
        return []

    def stop(self, project: str, zone: str, name: str) -> str:
        if name in self.errors:
            raise self.errors[name]
        self.stopped.append(name)
        return "op PENDING"


def _stop(name: str) -> StopInstance:
    w = Workload("compute", DEV, "us-central1-a", name, "RUNNING")
    return StopInstance(w.target, "r", workload=w)


def test_outcomes_gone_conflict_failed_and_the_rest_still_run(capsys):
    compute = _Compute(
        {
            "gone": ports.Gone("x"),
            "busy": ports.Conflict("etag"),
            "bad": ports.PortError("HTTP 403"),
        }
    )
    actions = [_stop("gone"), _stop("busy"), _stop("bad"), _stop("ok"), Skip("t", "exempt")]
    results = execute.apply(
        actions, ports.Ports(compute=compute), execute.Runner(_policy()), "t", dry_run=False
    )
    assert [r.outcome for r in results] == ["skipped", "skipped", "failed", "done", "skipped"]
    assert results[0].reason == "already gone"
    assert compute.stopped == ["ok"]
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["severity"] for x in lines] == ["INFO", "INFO", "ERROR", "NOTICE", "INFO"]


def test_dry_run_calls_nothing():
    compute = _Compute({})
    results = execute.apply(
        [_stop("a")], ports.Ports(compute=compute), execute.Runner(_policy()), "t", dry_run=True
    )
    assert results[0].outcome == "simulated"
    assert compute.stopped == []


def test_expired_time_budget_leaves_everything_reported():
    runner = execute.Runner(_policy(time_budget_seconds=0.01))
    time.sleep(0.02)
    compute = _Compute({})
    results = execute.apply(
        [_stop("a"), _stop("b")], ports.Ports(compute=compute), runner, "t", dry_run=False
    )
    assert [r.reason for r in results] == [execute.LEFT_REASON] * 2
    assert compute.stopped == []
