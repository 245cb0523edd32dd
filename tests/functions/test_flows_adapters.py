"""Flows with the real adapters and clients against the fake cloud, on a fake clock.

Retries, backoff and time budgets are about time; here the Runner, the adapters' retry loop and
the fake server's latency share one FakeClock, so these run at once and deterministically.
The same flows run end to end through functions_framework in test_entrypoints.py.
"""

from __future__ import annotations

from datetime import timedelta

from govern import flows, parse
from tests.functions.conftest import (
    DEV,
    adapter_ports,
    budget_data,
    log_lines,
    pubsub_event,
    runner,
    seed_budget,
)

A = "us-central1-a"


def _alert(fraction: float, cost: float):
    return parse.budget_alert(pubsub_event(budget_data(fraction, cost)).data)


def test_stop_retries_on_429_and_500_then_succeeds(cloud):
    seed_budget(cloud)
    cloud.server.inject(r"/instances/vm-run/stop$", 429, times=1)
    cloud.server.inject(r"/instances/vm-run/stop$", 500, times=1)
    # A rate limit high enough that the limiter never waits: only the backoffs sleep.
    fast = runner(cloud.clock, max_requests_per_second_per_project=100)
    flows.budget_alert(_alert(1.0, 1000), adapter_ports(cloud), fast)
    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"
    assert len(cloud.server.calls("POST", "/instances/vm-run/stop")) == 3
    assert len(cloud.clock.slept) == 2  # one backoff per transient error, on the fake clock


def test_persistent_failure_is_recorded_and_others_still_act(cloud, capsys):
    seed_budget(cloud)
    cloud.server.inject(r"/instances/vm-run/stop$", 503, times=1000)
    flows.budget_alert(
        _alert(1.0, 1000), adapter_ports(cloud), runner(cloud.clock, time_budget_seconds=3)
    )
    assert cloud.compute.status(DEV, A, "vm-run") == "RUNNING"
    assert cloud.compute.status(DEV, A, "gpu-run") == "TERMINATED"
    assert cloud.notebooks.state(DEV, A, "nb-1") == "STOPPED"
    failed = [x for x in log_lines(capsys.readouterr().out) if x.get("outcome") == "failed"]
    assert [x["target"].rsplit("/", 1)[-1] for x in failed] == ["vm-run"]
    assert "503" in failed[0]["reason"] or "gave up" in failed[0]["reason"]
    # It gave up within the time budget: the retries never slept past it.
    assert sum(cloud.clock.slept) <= 3


def test_reap_idle_vms_retries_list_on_500(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(r"/recommendations$", 500, times=2)
    report = flows.reap_idle_vms(
        adapter_ports(cloud), runner(cloud.clock), cloud.clock.wall()
    ).as_dict()
    assert report["counts"] == {"done": 1}


def test_time_budget_leaves_work_reported(cloud):
    cloud.server.latency_s = 0.1  # on the fake clock: each call takes 0.1 s of budget
    past = str(cloud.clock.wall().date() - timedelta(days=3))
    for i in range(6):
        cloud.compute.add(DEV, A, f"old-{i}", labels={"mlgov-expires-on": past})
    report = flows.reap_expired(
        adapter_ports(cloud),
        runner(cloud.clock, time_budget_seconds=0.2, max_concurrency=1),
        cloud.clock.wall().date(),
    ).as_dict()
    # Listing used up the budget: nothing stopped, and each leftover is reported, not dropped.
    assert report["unfinished"] or report["errors"]
    assert len(cloud.server.calls("POST")) < 6
