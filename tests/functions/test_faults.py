"""End to end under the cloud's real faults: resets, slow replies, 429/Retry-After, 503 bursts.

Every function runs through functions_framework with the real clients against the fake cloud,
on its FakeClock (retries and Retry-After waits take no real time; only a slow reply costs the
client's real socket timeout, see CALL_TIMEOUTS). Each test asserts the fake's final state and
the number of writes it saw, not only the report.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from governance.fakecloud.server import RESET, SLOW
from tests.functions.conftest import (
    DEV,
    PROD,
    Cloud,
    budget_data,
    http,
    log_lines,
    new_cloud,
    post_report,
    pubsub_event,
    seed_budget,
    send_event,
    set_policy,
)

A, B = "us-central1-a", "us-central1-b"

# The call timeouts (MLGOV_POLICY.call_timeout_seconds, real seconds) a slow-reply test tries,
# shortest first. The fake holds a slow reply until the client gives up, so a run waits one
# timeout for it. But every other reply must come within the timeout too, and on a loaded
# machine a merely late one may not: the client then gives up on it as well, and the run tests
# something else than it means to. The fake notices each reply a client gave up on
# (server.abandoned, exact: a closed or reset connection, no timing), so such a run is
# repeated on a fresh cloud with the next, longer timeout: load costs time, never a false result.
CALL_TIMEOUTS = (0.1, 0.5, 2.5)


@pytest.fixture
def fresh_clouds(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], Cloud]]:
    """Make a new fake cloud (each one the functions' from then on), all stopped at teardown."""
    with ExitStack() as stack:
        yield lambda: stack.enter_context(new_cloud(monkeypatch))


def _given_up_on_only_what_was_slow(
    fresh_clouds: Callable[[], Cloud],
    monkeypatch: pytest.MonkeyPatch,
    run: Callable[[Cloud], Any],
    **policy: Any,
) -> tuple[Cloud, Any]:
    """`run(cloud)` (it injects its faults) under a short call timeout; the cloud and its result.

    Repeated with a longer timeout while the client also gave up on a reply the run did not make
    slow (see CALL_TIMEOUTS); an error in such a run is its consequence, not a result.
    """
    late: list[Any] = []
    for timeout in CALL_TIMEOUTS:
        cloud = fresh_clouds()
        set_policy(monkeypatch, call_timeout_seconds=timeout, **policy)
        try:
            result = run(cloud)
        except AssertionError:
            cloud.server.settle()
            if not _given_up_unasked(cloud):
                raise
            continue
        cloud.server.settle()
        late = _given_up_unasked(cloud)
        if not late:
            return cloud, result
    raise AssertionError(
        f"the client gave up on replies that were not slow, at every timeout: {late}"
    )


def _given_up_unasked(cloud: Cloud) -> list[Any]:
    """Replies the client gave up on that no SLOW fault held (they came late, not slow)."""
    held = cloud.server.held
    return [r for r in cloud.server.abandoned if not any(r is h for h in held)]


def _gave_up_on_exactly_the_slow_reply(cloud: Cloud) -> None:
    """The client's call timeout bounded its wait: it gave up on the one reply held for it."""
    [held] = cloud.server.held
    assert len(cloud.server.abandoned) == 1 and cloud.server.abandoned[0] is held, (
        "the client waited for the slow reply instead of timing out"
    )


# -- the three scenarios faults are injected into ---------------------------------------------


def _budget(cloud: Cloud, status: int = 200) -> None:
    seed_budget(cloud)
    send_event(pubsub_event(budget_data(1.3, 1300)), status=status)


def _budget_done(cloud: Cloud) -> None:
    for key in [(DEV, A, "vm-run"), (DEV, A, "gpu-run"), (PROD, A, "prod-vm")]:
        assert cloud.compute.status(*key) == "TERMINATED", key
    assert cloud.compute.status(DEV, B, "vm-exempt") == "RUNNING"
    assert cloud.notebooks.state(DEV, A, "nb-1") == "STOPPED"
    assert cloud.tpu.state(DEV, B, "tpu-1") == "STOPPED"
    assert cloud.billing.accounts[DEV] == ""
    assert cloud.billing.accounts[PROD] != ""


def _idle_vms(cloud: Cloud, status: int = 200) -> dict[str, Any]:
    for name, zone in (("idle-1", A), ("idle-2", B)):
        cloud.compute.add(DEV, zone, name)
        cloud.recommender.add(DEV, zone, name)
    return post_report("reap_idle_vms", status=status)


def _idle_vms_done(cloud: Cloud) -> None:
    assert cloud.compute.status(DEV, A, "idle-1") == "TERMINATED"
    assert cloud.compute.status(DEV, B, "idle-2") == "TERMINATED"
    assert sorted(cloud.recommender.state(n) for n in cloud.recommender.recs) == [
        "SUCCEEDED",
        "SUCCEEDED",
    ]


def _idle_gpus(cloud: Cloud, status: int = 200) -> dict[str, Any]:
    vm = cloud.compute.add(DEV, A, "gpu-idle", gpus=1, labels={"workload": "training"})
    cloud.monitoring.set(DEV, vm["id"], 0.5)
    return post_report("reap_idle_gpus", status=status)


def _idle_gpus_done(cloud: Cloud) -> None:
    assert cloud.compute.status(DEV, A, "gpu-idle") == "TERMINATED"


@dataclass(frozen=True)
class Scenario:
    run: Callable[..., Any]
    done: Callable[[Cloud], None]
    writes: int  # state-changing requests a fault-free run makes


BUDGET = Scenario(_budget, _budget_done, 6)  # 5 stops + 1 unlink
IDLE_VMS = Scenario(_idle_vms, _idle_vms_done, 6)  # 2 x (claim, stop, mark succeeded)
IDLE_GPUS = Scenario(_idle_gpus, _idle_gpus_done, 1)

# Every list and every write call the functions make: (name, scenario, method, path pattern).
CALLS = [
    ("compute list", BUDGET, "GET", rf"/projects/{DEV}/aggregated/instances$"),
    ("notebooks list", BUDGET, "GET", rf"/projects/{DEV}/locations/-/instances$"),
    ("tpu list", BUDGET, "GET", rf"/projects/{DEV}/locations/{B}/nodes$"),
    ("billing get", BUDGET, "GET", rf"/projects/{DEV}/billingInfo$"),
    ("recommender list", IDLE_VMS, "GET", rf"/locations/{A}/recommenders/.*/recommendations$"),
    ("monitoring list", IDLE_GPUS, "GET", r"/timeSeries$"),
    ("compute stop", BUDGET, "POST", r"/instances/vm-run/stop$"),
    ("notebooks stop", BUDGET, "POST", r"/instances/nb-1:stop$"),
    ("tpu stop", BUDGET, "POST", r"/nodes/tpu-1:stop$"),
    ("billing unlink", BUDGET, "PUT", rf"/projects/{DEV}/billingInfo$"),
    ("markClaimed", IDLE_VMS, "POST", r":markClaimed$"),
    ("reap stop", IDLE_VMS, "POST", r"/instances/idle-1/stop$"),
    ("markSucceeded", IDLE_VMS, "POST", r":markSucceeded$"),
    ("gpu stop", IDLE_GPUS, "POST", r"/instances/gpu-idle/stop$"),
]


def _writes(cloud: Cloud) -> int:
    return len(cloud.mutations())


@pytest.mark.parametrize(
    ("name", "scenario", "method", "pattern"), CALLS, ids=[c[0] for c in CALLS]
)
def test_a_connection_reset_is_retried(cloud, name, scenario, method, pattern):
    cloud.server.inject(pattern, RESET, times=1, method=method)
    scenario.run(cloud)
    scenario.done(cloud)
    assert not any(f.times for f in cloud.server.faults), "the fault never fired"
    # The reset request never reached the API; only its retry counts as a write.
    assert _writes(cloud) == scenario.writes + (method != "GET")


@pytest.mark.parametrize(
    ("name", "scenario", "method", "pattern"), CALLS, ids=[c[0] for c in CALLS]
)
def test_a_reply_slower_than_the_call_timeout_is_retried(
    fresh_clouds, monkeypatch, name, scenario, method, pattern
):
    def run(cloud: Cloud) -> None:
        # The server does the work, lets 10 s pass, and holds the answer until the client gave up.
        cloud.server.inject(pattern, SLOW, times=1, method=method, seconds=10)
        scenario.run(cloud)

    cloud, _ = _given_up_on_only_what_was_slow(fresh_clouds, monkeypatch, run)
    scenario.done(cloud)
    assert not any(f.times for f in cloud.server.faults), "the fault never fired"
    _gave_up_on_exactly_the_slow_reply(cloud)
    # Retrying a write that took effect changes nothing more: the retry is one request more.
    assert _writes(cloud) == scenario.writes + (method != "GET")


def test_a_slow_claim_that_took_effect_is_recognised_as_this_runs_own(fresh_clouds, monkeypatch):
    def run(cloud: Cloud) -> dict[str, Any]:
        cloud.server.inject(r":markClaimed$", SLOW, times=1, seconds=10)
        return _idle_vms(cloud)

    cloud, report = _given_up_on_only_what_was_slow(fresh_clouds, monkeypatch, run)
    _gave_up_on_exactly_the_slow_reply(cloud)
    _idle_vms_done(cloud)
    # The retried claim met the new etag (412); a re-list showed the claim is this run's.
    claims = cloud.server.calls("POST", ":markClaimed")
    assert len(claims) == 3
    assert report["counts"] == {"done": 2}


@pytest.mark.parametrize("fault", [RESET, SLOW])
def test_a_mark_failed_that_resets_or_is_slow_is_retried(fresh_clouds, monkeypatch, fault):
    def run(cloud: Cloud) -> tuple[dict[str, Any], dict[str, Any]]:
        cloud.compute.add(DEV, A, "idle-1")
        rec = cloud.recommender.add(DEV, A, "idle-1")
        cloud.server.inject(r"/instances/idle-1/stop$", 403, times=1)  # permanent: mark FAILED
        cloud.server.inject(r":markFailed$", fault, times=1, seconds=10)
        return rec, post_report("reap_idle_vms", status=503)

    cloud, (rec, report) = _given_up_on_only_what_was_slow(fresh_clouds, monkeypatch, run)
    if fault == SLOW:
        _gave_up_on_exactly_the_slow_reply(cloud)
    else:
        assert cloud.server.abandoned == []
    assert cloud.recommender.state(rec["name"]) == "FAILED"
    meta = cloud.recommender.recs[rec["name"]]["stateInfo"]["stateMetadata"]
    assert meta["mlgov"] == "failed"
    assert meta["reason"].startswith("stop_failed_compute_stop")  # the API's allowed characters
    reason = report["actions"][0]["reason"]
    if fault == RESET:
        assert reason.endswith("recommendation marked failed")
    else:  # the first attempt took effect; its retry met the new etag
        assert "recommendation marked failed, unconfirmed" in reason
    assert len(cloud.server.calls("POST", ":markFailed")) == 2
    assert _writes(cloud) == 4  # claim, stop (403), markFailed twice


# -- 429 with Retry-After, 503 bursts, Compute's 403 rate limit --------------------------------


@pytest.mark.parametrize("form", ["seconds", "http-date"])
def test_429_waits_as_long_as_retry_after_says(cloud, form):
    # An HTTP-date counts from the reply's own Date header (whole seconds: 9-10 s here).
    in_10_s = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=10)
    retry_after = "10" if form == "seconds" else format_datetime(in_10_s, usegmt=True)
    cloud.server.inject(
        r"/instances/vm-run/stop$", 429, times=1, headers={"Retry-After": retry_after}
    )
    _budget(cloud)
    _budget_done(cloud)
    assert len(cloud.server.calls("POST", "/instances/vm-run/stop")) == 2
    assert any(8.5 <= s <= 10 for s in cloud.clock.slept), cloud.clock.slept
    assert _writes(cloud) == BUDGET.writes + 1


def test_a_retry_after_beyond_the_time_budget_gives_up_at_once_and_is_redelivered(cloud, capsys):
    cloud.server.inject(r"/instances/vm-run/stop$", 429, times=1, headers={"Retry-After": "600"})
    _budget(cloud, status=500)  # raised: Pub/Sub redelivers
    assert cloud.compute.status(DEV, A, "vm-run") == "RUNNING"
    assert max(cloud.clock.slept, default=0) < 45  # never waited past the 45 s budget
    lines = log_lines(capsys.readouterr().out)
    failed = [x for x in lines if x.get("outcome") == "failed"]
    assert len(failed) == 1
    assert "asked to retry after 600 s" in failed[0]["reason"]
    # The redelivery stops the one VM left and repeats no write that took effect.
    before = _writes(cloud)
    send_event(pubsub_event(budget_data(1.3, 1300)))
    _budget_done(cloud)
    assert _writes(cloud) - before == 1


def test_a_503_burst_on_a_listing_is_retried(cloud):
    cloud.server.inject(r"/recommendations$", 503, times=4)
    _idle_vms(cloud)
    _idle_vms_done(cloud)
    assert _writes(cloud) == IDLE_VMS.writes


def test_computes_own_rate_limit_403_is_waited_out_not_failed(cloud, monkeypatch):
    set_policy(monkeypatch, time_budget_seconds=120)  # the wait may be up to a minute
    body = {
        "error": {
            "code": 403,
            "message": "Rate Limit Exceeded",
            "errors": [{"domain": "usageLimits", "reason": "rateLimitExceeded"}],
        }
    }
    cloud.server.inject(r"/instances/gpu-idle/stop$", 403, times=1, body=body)
    _idle_gpus(cloud)
    _idle_gpus_done(cloud)
    assert len(cloud.server.calls("POST", "/stop")) == 2
    # Compute refills rate quotas at the next minute: the wait is up to 60 s.
    assert any(0 < s <= 60 for s in cloud.clock.slept)


def test_a_permission_error_is_not_retried(cloud):
    cloud.server.inject(r"/instances/gpu-idle/stop$", 403, times=1)
    report = _idle_gpus(cloud, status=503)
    assert report["counts"] == {"failed": 1}
    assert len(cloud.server.calls("POST", "/stop")) == 1
    assert cloud.compute.status(DEV, A, "gpu-idle") == "RUNNING"


# -- a failure for a whole run, then the next run ---------------------------------------------


def test_a_stop_failing_for_a_whole_run_is_resumed_by_the_next_and_no_claim_is_left(
    cloud, monkeypatch
):
    set_policy(monkeypatch, time_budget_seconds=60)
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(r"/instances/idle-1/stop$", 503, times=10_000)
    report = post_report("reap_idle_vms", status=503)
    assert report["counts"] == {"failed": 1}
    assert "left CLAIMED" in report["actions"][0]["reason"]
    assert cloud.recommender.state(rec["name"]) == "CLAIMED"
    assert cloud.compute.status(DEV, A, "idle-1") == "RUNNING"
    stops_in_run_1 = len(cloud.server.calls("POST", "/stop"))
    assert stops_in_run_1 > 3  # retried, within the budget

    cloud.server.faults.clear()
    cloud.clock.advance(3600)  # the next scheduled run, an hour later
    before = _writes(cloud)
    report = post_report("reap_idle_vms")
    assert report["counts"] == {"done": 1}
    assert "resuming the stale claim" in report["actions"][0]["reason"]
    assert cloud.compute.status(DEV, A, "idle-1") == "TERMINATED"
    assert cloud.recommender.state(rec["name"]) == "SUCCEEDED"
    assert _writes(cloud) - before == 3  # claim again, stop, mark succeeded
    assert all(r["stateInfo"]["state"] != "CLAIMED" for r in cloud.recommender.recs.values())


def test_a_claim_is_never_resumed_while_its_run_may_still_be_running(cloud, monkeypatch):
    set_policy(monkeypatch, time_budget_seconds=60)
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(r"/instances/idle-1/stop$", 503, times=10_000)
    post_report("reap_idle_vms", status=503)
    cloud.server.faults.clear()
    before = _writes(cloud)
    report = post_report("reap_idle_vms")  # a Scheduler retry right after
    assert report["counts"] == {"skipped": 1}
    assert "may still run" in report["actions"][0]["reason"]
    assert _writes(cloud) == before
    assert cloud.recommender.state(rec["name"]) == "CLAIMED"


def test_a_time_budgeted_run_leaves_what_it_could_not_reach_active_never_claimed(
    cloud, monkeypatch
):
    # 120 planned stops: above the default blast-radius ceiling of 100, raised for this run.
    set_policy(
        monkeypatch,
        time_budget_seconds=6,
        max_concurrency=4,
        blast_radius={"max_stops_per_run": 200},
    )
    cloud.server.latency_s = 0.1  # on the fake clock: every call takes 0.1 s of the budget
    names = [f"idle-{i:03d}" for i in range(120)]
    recs = []
    for i, name in enumerate(names):
        zone = (A, B)[i % 2]
        cloud.compute.add(DEV, zone, name)
        recs.append(cloud.recommender.add(DEV, zone, name))
    report = post_report("reap_idle_vms", status=503)
    states = [cloud.recommender.state(r["name"]) for r in recs]
    assert "CLAIMED" not in states
    done = states.count("SUCCEEDED")
    assert 0 < done < 120
    assert states.count("ACTIVE") == 120 - done == len(report["unfinished"])
    stopped = [
        n for i, n in enumerate(names) if cloud.compute.status(DEV, (A, B)[i % 2], n) != "RUNNING"
    ]
    assert len(stopped) == done
    assert _writes(cloud) == 3 * done


def test_a_budget_alert_whose_stop_fails_all_delivery_raises_and_redelivery_finishes(cloud):
    cloud.server.inject(r"/instances/vm-run/stop$", 503, times=10_000)
    _budget(cloud, status=500)
    assert cloud.compute.status(DEV, A, "vm-run") == "RUNNING"
    assert cloud.compute.status(DEV, A, "gpu-run") == "TERMINATED"
    cloud.server.faults.clear()
    before = len(cloud.server.calls("POST", "/stop")) + len(cloud.server.calls("POST", ":stop"))
    send_event(pubsub_event(budget_data(1.3, 1300)))  # the same message, redelivered
    _budget_done(cloud)
    after = len(cloud.server.calls("POST", "/stop")) + len(cloud.server.calls("POST", ":stop"))
    assert after - before == 1  # only the VM that was left; nothing that took effect repeats
    assert len(cloud.server.calls("PUT")) == 1


def test_a_listing_that_fails_for_the_whole_run_fails_the_run(cloud):
    cloud.server.inject(rf"/projects/{PROD}/aggregated/instances$", 503, times=10_000)
    _budget(cloud, status=500)
    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"  # the rest still acted
    assert cloud.compute.status(PROD, A, "prod-vm") == "RUNNING"


# -- a resource the code cannot parse, among good ones ----------------------------------------


def _unparseable_notebook(cloud: Cloud) -> None:
    nb = cloud.notebooks.add(DEV, A, "weird", labels={"mlgov-expires-on": "2020-01-01"})
    nb["name"] += "/extra"  # not projects/P/locations/L/instances/N


def test_an_unparseable_resource_is_reported_and_skipped_and_the_others_are_stopped(cloud, capsys):
    past = "2020-01-01"
    cloud.compute.add(DEV, A, "old-vm", labels={"mlgov-expires-on": past})
    cloud.notebooks.add(DEV, B, "old-nb", labels={"mlgov-expires-on": past})
    _unparseable_notebook(cloud)
    cloud.tpu.add(DEV, B, "old-tpu", labels={"mlgov-expires-on": past})
    report = post_report("reap_expired")  # 200: retrying cannot make it readable
    assert cloud.compute.status(DEV, A, "old-vm") == "TERMINATED"
    assert cloud.notebooks.state(DEV, B, "old-nb") == "STOPPED"
    assert cloud.notebooks.state(DEV, A, "weird") == "ACTIVE"
    assert cloud.tpu.state(DEV, B, "old-tpu") == "STOPPED"
    assert _writes(cloud) == 3
    weird = f"//notebooks.googleapis.com/projects/{DEV}/locations/{A}/instances/weird/extra"
    assert report["unreadable"] == [weird]
    [line] = [a for a in report["actions"] if a["target"] == weird]
    assert (line["action"], line["outcome"]) == ("read", "skipped")
    assert "unexpected name" in line["reason"]
    assert report["counts"] == {"done": 3, "skipped": 1}
    lines = log_lines(capsys.readouterr().out)
    assert [x["severity"] for x in lines if x.get("target") == weird] == ["ERROR"]
    assert lines[-1]["severity"] == "WARNING"  # the summary: nothing failed, one unreadable


def test_an_unparseable_resource_does_not_stop_the_budget_cap(cloud):
    seed_budget(cloud)
    _unparseable_notebook(cloud)
    send_event(pubsub_event(budget_data(1.3, 1300)))  # acknowledged: redelivery cannot help
    _budget_done(cloud)
    assert _writes(cloud) == BUDGET.writes


# -- a misconfigured function fails every invocation loudly ------------------------------------


MISCONFIGURED = [
    ("MLGOV_POLICY", '{"dry_run": false}', "MLGOV_POLICY: missing required key(s) exempt_label"),
    ("MLGOV_POLICY", "not json", "MLGOV_POLICY: not valid JSON"),
    ("MLGOV_API_ENDPOINTS", '{"compute": "127.0.0.1:1"}', "MLGOV_API_ENDPOINTS: must map"),
    ("MLGOV_API_ENDPOINTS", '{"computer": "http://x"}', "unknown service(s) computer"),
]


@pytest.mark.parametrize(("variable", "value", "needle"), MISCONFIGURED)
@pytest.mark.parametrize("entry_point", ["reap_idle_vms", "reap_expired", "reap_idle_gpus"])
def test_a_misconfigured_http_function_answers_500_and_says_why(
    cloud, monkeypatch, capsys, entry_point, variable, value, needle
):
    cloud.compute.add(DEV, A, "vm", labels={"mlgov-expires-on": "2020-01-01"})
    monkeypatch.setenv(variable, value)
    client = http(entry_point)
    for _ in range(2):  # every invocation of the deployed instance, not just the first
        response = client.post("/")
        assert response.status_code == 500
        assert needle in response.get_json()["error"]
    assert cloud.server.calls() == []
    errors = [x for x in log_lines(capsys.readouterr().out) if x["severity"] == "ERROR"]
    assert len(errors) == 2
    assert all(needle in x["message"] and x["run_id"] for x in errors)


@pytest.mark.parametrize(("variable", "value", "needle"), MISCONFIGURED)
def test_a_misconfigured_budget_function_raises_so_the_alert_is_redelivered(
    cloud, monkeypatch, capsys, variable, value, needle
):
    seed_budget(cloud)
    monkeypatch.setenv(variable, value)
    send_event(pubsub_event(budget_data(1.3, 1300)), status=500)
    assert cloud.server.calls() == []
    [error] = [x for x in log_lines(capsys.readouterr().out) if x["severity"] == "ERROR"]
    assert needle in error["message"]
    # Fixed and redeployed: the redelivered alert is handled.
    services = ("compute", "notebooks", "tpu", "cloudbilling", "container", "aiplatform")
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps(dict.fromkeys(services, cloud.server.url)))
    set_policy(monkeypatch)
    send_event(pubsub_event(budget_data(1.3, 1300)))
    _budget_done(cloud)


# -- Local SSDs --------------------------------------------------------------------------------


def test_a_local_ssd_vm_is_stopped_keeping_its_data_and_the_report_line_says_so(cloud):
    cloud.compute.add(DEV, A, "scratch", gpus=1, labels={"workload": "training"}, local_ssds=2)
    vm = cloud.compute.instances[(DEV, A, "scratch")]
    cloud.monitoring.set(DEV, vm["id"], 0.0)
    report = post_report("reap_idle_gpus")
    assert cloud.compute.status(DEV, A, "scratch") == "TERMINATED"
    [stop] = cloud.server.calls("POST", "/stop")
    assert stop.query["discardLocalSsd"] == ["false"]
    assert cloud.compute.local_ssd_data == {(DEV, A, "scratch"): "preserved"}
    reason = report["actions"][0]["reason"]
    assert "2 Local SSD disk(s) are preserved (discardLocalSsd=false)" in reason
    assert "still billed while the VM is stopped" in reason


def test_a_vm_without_local_ssds_is_stopped_without_the_parameter(cloud):
    _idle_gpus(cloud)
    [stop] = cloud.server.calls("POST", "/stop")
    assert "discardLocalSsd" not in stop.query


# -- an API the project never enabled ----------------------------------------------------------


def test_a_project_without_the_gke_or_vertex_api_is_capped_without_errors(cloud, capsys):
    # Google answers 403 SERVICE_DISABLED (google.rpc.ErrorInfo) for an API the project has not
    # enabled: nothing of it runs, so the cap goes on and the alert is not redelivered.
    seed_budget(cloud)
    disabled = {
        "error": {
            "code": 403,
            "message": "Kubernetes Engine API has not been used in project before or it is disabled.",
            "status": "PERMISSION_DENIED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "SERVICE_DISABLED",
                    "domain": "googleapis.com",
                    "metadata": {"service": "container.googleapis.com"},
                }
            ],
        }
    }
    cloud.server.inject(r"/v1/projects/[^/]+/locations/-/clusters", 403, times=10, body=disabled)
    send_event(pubsub_event(budget_data(1.3, 1300)))
    _budget_done(cloud)
    lines = log_lines(capsys.readouterr().out)
    assert not [x for x in lines if x["severity"] in ("ERROR", "CRITICAL")]
    assert any("the API is not enabled in the project" in x["message"] for x in lines)


def test_a_permission_error_on_the_gke_list_is_not_mistaken_for_a_disabled_api(cloud):
    seed_budget(cloud)
    cloud.server.inject(r"/v1/projects/[^/]+/locations/-/clusters", 403, times=10)
    send_event(pubsub_event(budget_data(1.3, 1300)), status=500)  # raised: Pub/Sub redelivers
