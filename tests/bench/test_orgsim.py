"""The organization-scale simulation's own logic (bench/orgsim): fast, deterministic.

Latency parameters, the rate limits as reservations, the quota meter, naming requests by the
discovery documents, deriving a call graph from traced runs, and small simulated runs whose
outcome follows from the model's rules (pacing keeps an organization-level quota at half, a
worker that always crashes dead-letters every item, one thread serialises one invocation).
"""

from __future__ import annotations

import math
import random

import pytest

from bench.orgsim import apis
from bench.orgsim.latency import Z99, Lognormal
from bench.orgsim.model import Scenario, simulate
from bench.orgsim.profile import (
    JobProfile,
    KindProfile,
    Observed,
    TraceCall,
    derive_trace,
    gke_clusters_unrelated,
)
from bench.orgsim.quotas import Bucket, Window, peak_in


def test_lognormal_from_issue_29s_median_and_p99():
    lat = Lognormal.from_median_p99(0.2, 2.0)
    assert lat.sigma == pytest.approx(math.log(10) / Z99)
    assert lat.sigma == pytest.approx(0.98976, abs=1e-4)
    assert lat.quantile(0.5) == pytest.approx(0.2)
    assert lat.quantile(0.99) == pytest.approx(2.0)
    rng = random.Random(7)  # noqa: S311 - reproducible draws
    draws = sorted(lat.draw(rng) for _ in range(20_000))
    assert draws[10_000] == pytest.approx(0.2, rel=0.05)
    assert draws[19_800] == pytest.approx(2.0, rel=0.15)


def test_a_fixed_latency_and_bad_parameters():
    assert Lognormal.from_median_p99(0.05, 0.05).draw(random.Random(1)) == pytest.approx(0.05)  # noqa: S311
    with pytest.raises(ValueError, match="median <= p99"):
        Lognormal.from_median_p99(0.3, 0.2)


def test_the_functions_rate_limiter_as_a_reservation():
    # 10 calls/s with a 2 s burst (functions/govern/execute.py): 20 at once, then 0.1 s apart.
    bucket = Bucket(10.0, 20.0)
    starts = [bucket.reserve(0.0) for _ in range(100)]
    assert starts[:20] == pytest.approx([0.0] * 20)
    assert starts[20] == pytest.approx(0.1)
    assert starts[-1] == pytest.approx(8.0)
    # Idle time refills it, never beyond the burst.
    later = [bucket.reserve(100.0) for _ in range(21)]
    assert later[:20] == pytest.approx([100.0] * 20) and later[20] == pytest.approx(100.1)


def test_the_busiest_minute():
    window = Window(60.0)
    for t in (61.0, 0.0, 10.0, 59.9, 60.0):  # booked out of order
        window.add(t)
    assert window.peak() == 4  # 10, 59.9, 60, 61


@pytest.mark.parametrize(
    ("service", "method", "path", "expected", "cls"),
    [
        (
            "compute",
            "POST",
            "/compute/v1/projects/p/zones/z/instances/vm/stop",
            "compute.instances.stop",
            "write",
        ),
        (
            "compute",
            "GET",
            "/compute/v1/projects/p/zones/z/operations/op-1",
            "compute.zoneOperations.get",
            "poll",
        ),
        (
            "container",
            "POST",
            "/v1/projects/p/locations/l/clusters/c/nodePools/n:setSize",
            "container.projects.locations.clusters.nodePools.setSize",
            "write",
        ),
        (
            "cloudbilling",
            "PUT",
            "/v1/projects/p/billingInfo",
            "cloudbilling.projects.updateBillingInfo",
            "write",
        ),
        (
            "cloudasset",
            "GET",
            "/v1/folders/123:searchAllResources",
            "cloudasset.searchAllResources",
            "read",
        ),
        (
            "pubsub",
            "POST",
            "/v1/projects/p/topics/t:publish",
            "pubsub.projects.topics.publish",
            "write",
        ),
    ],
)
def test_requests_are_named_by_the_discovery_documents(service, method, path, expected, cls):
    found = apis.identify(service, method, path)
    assert (found.id, found.call_class) == (expected, cls)


def test_a_path_google_does_not_have_is_refused():
    with pytest.raises(apis.UnknownCall, match="no discovery-document method"):
        apis.identify("compute", "POST", "/compute/v1/projects/p/zones/z/instances/vm/explode")


def test_organization_level_quotas_are_billing_assets_and_recommender():
    assert {
        "cloudbilling",
        "cloudasset",
        "recommender",
        "recommender-write",
    } == apis.ORGANIZATION_SERVICES
    assert all(q.source for q in apis.QUOTAS.values())


def _obs(key, start, end, cls="read", service="compute", confirms=""):
    return Observed(key, service, f"m.{key}", cls, "", start, end, confirms=confirms)


def test_a_dependency_holds_in_every_run_and_the_graph_is_reduced():
    # A read; B and C start after it; D after both; E is independent and lands anywhere.
    runs = [
        [
            _obs("A", 0.0, 1.0),
            _obs("B", 1.01, 2.0, "write"),
            _obs("C", 1.02, 3.0, "write"),
            _obs("D", 3.01, 4.0, "poll", confirms="C"),
            _obs("E", 0.0, e_end),
        ]
        for e_end in (0.5, 3.5, 2.5)
    ]
    trace = derive_trace(runs)
    by_key = {c.key: (i, c) for i, c in enumerate(trace)}
    index = {k: i for k, (i, _) in by_key.items()}
    assert by_key["A"][1].after == ()
    assert by_key["B"][1].after == (index["A"],)
    assert set(by_key["D"][1].after) == {index["B"], index["C"]}  # A implied, E not always before
    assert by_key["E"][1].after == ()
    assert by_key["D"][1].confirms == index["C"]
    assert by_key["B"][1].gap_s == pytest.approx(0.01)


def test_a_call_missing_from_a_run_is_left_out():
    trace = derive_trace([[_obs("A", 0, 1), _obs("X", 1, 2)], [_obs("A", 0, 1)]])
    assert [c.key for c in trace] == ["A"]


def _job(calls: list[TraceCall], cpu: float = 0.0) -> JobProfile:
    kind = KindProfile("plain", 1, [], calls, 1, 1.0, 0.0, float(len(calls)))
    accel = KindProfile("accelerated", 1, [], calls, 1, 1.0, 0.0, float(len(calls)))
    return JobProfile(
        "test", "on_budget_alert", {"plain": kind, "accelerated": accel}, [1.0], [cpu], [1]
    )


READ_STOP_POLL = [
    TraceCall("r", "compute", "compute.instances.aggregatedList", "read", "", (), 0.0),
    TraceCall("s", "compute", "compute.instances.stop", "write", "stop", (0,), 0.0),
    TraceCall("p", "compute", "compute.zoneOperations.get", "poll", "", (1,), 0.0, confirms=1),
]


def test_every_stop_is_requested_and_confirmed_after_its_operation():
    result = simulate(
        _job(READ_STOP_POLL),
        Scenario(projects=200, max_instances=20, concurrency=10, crash_rate=0, duplicate_rate=0),
    )
    assert result.items_done == 200 and result.items_dead_lettered == 0
    assert result.stops == result.stops_issued == result.stops_confirmed == 200
    # A Compute stop takes 20-90 s (operations.py): confirmed after it, within the wait cap.
    assert result.last_stop_issued_s is not None and result.last_stop_confirmed_s is not None
    assert result.last_stop_confirmed_s - result.last_stop_issued_s >= 20.0
    assert result.dispatcher_answer_s > 0


def _billing_job() -> JobProfile:
    return _job(
        [
            TraceCall(
                "g", "cloudbilling", "cloudbilling.projects.getBillingInfo", "read", "", (), 0.0
            ),
            TraceCall(
                "u",
                "cloudbilling",
                "cloudbilling.projects.updateBillingInfo",
                "write",
                "unlink",
                (0,),
                0.0,
            ),
        ]
    )


def test_pacing_keeps_an_organization_quota_at_half_and_without_it_the_quota_is_passed():
    scenario = Scenario(
        projects=2000,
        max_instances=50,
        concurrency=10,
        crash_rate=0,
        duplicate_rate=0,
        max_delivery_attempts=100,
        time_budget_s=3000,
        function_timeout_s=3600,
    )
    paced = simulate(_billing_job(), scenario)
    assert paced.items_done == 2000
    # Each instance starts at most floor(487.5 / 50) = 9 calls in any minute: 450 together,
    # never more than half (functions/govern/pacing.py's bound, exact).
    assert 0.45 <= paced.org_peak_share["cloudbilling"] <= 0.5
    unpaced = simulate(_billing_job(), Scenario(**{**scenario.__dict__, "org_share": None}))
    assert unpaced.org_peak_share["cloudbilling"] > 1.0


def test_a_worker_that_always_crashes_dead_letters_every_item_after_its_attempts():
    one_read = READ_STOP_POLL[:1]  # a crash before a drawn call: here always the first
    result = simulate(
        _job(one_read),
        Scenario(projects=20, crash_rate=1.0, duplicate_rate=0, max_delivery_attempts=5),
    )
    assert result.items_dead_lettered == 20 and result.items_done == 0
    assert result.deliveries == 100  # 5 attempts each


def test_one_invocation_with_one_thread_runs_its_calls_one_after_the_other():
    reads = [
        TraceCall(f"r{i}", "compute", "compute.instances.get", "read", "", (), 0.0)
        for i in range(5)
    ]
    result = simulate(
        _job(reads),
        Scenario(
            projects=10,
            single_invocation=True,
            threads=1,
            latency_median_s=0.1,
            latency_p99_s=0.1,
            cold_start_s=0.0,
            org_share=None,
            rate_per_project=1000.0,
            crash_rate=0.0,
            duplicate_rate=0.0,
        ),
    )
    assert result.items_done == 10 and result.calls == 50
    assert result.last_item_done_s == pytest.approx(5.0)  # 50 calls x 0.1 s on one thread


def _gke(key, start, end, cluster, method, cls="write", confirms=""):
    return Observed(key, "container", method, cls, "", start, end, cluster, confirms)


NAP = "container.projects.locations.clusters.update"
SIZE = "container.projects.locations.clusters.nodePools.setSize"


def test_gke_clusters_chains_wait_for_each_other_only_across_the_cluster_level_barrier():
    # Two clusters in lock step: NAP write then its poll, then the pools' setSize, every run.
    run = [
        _gke(f"{NAP} a", 0.0, 1.0, "a", NAP),
        _gke(f"{NAP} b", 0.0, 1.0, "b", NAP),
        _gke(
            "poll a",
            1.0,
            2.0,
            "a",
            "container.projects.locations.operations.get",
            "poll",
            f"container {NAP} a",
        ),
        _gke(
            "poll b",
            1.0,
            2.0,
            "b",
            "container.projects.locations.operations.get",
            "poll",
            f"container {NAP} b",
        ),
        _gke(f"{SIZE} a", 2.0, 3.0, "a", SIZE),
        _gke(f"{SIZE} b", 2.0, 3.0, "b", SIZE),
        _gke(
            "poll size a",
            3.0,
            4.0,
            "a",
            "container.projects.locations.operations.get",
            "poll",
            f"container {SIZE} a",
        ),
    ]
    plain = derive_trace([run, run])
    keyed = {c.key: c for c in plain}
    index = {c.key: i for i, c in enumerate(plain)}
    # From timing alone, a's second poll also waits for b's setSize.
    assert index[f"{SIZE} b"] in keyed["poll size a"].after
    trace = derive_trace([run, run], gke_clusters_unrelated)
    keyed = {c.key: c for c in trace}
    index = {c.key: i for i, c in enumerate(trace)}
    assert keyed["poll size a"].after == (index[f"{SIZE} a"],)
    # The barrier stays: a pool step waits for every cluster's cluster-level steps.
    assert set(keyed[f"{SIZE} a"].after) == {index["poll a"], index["poll b"]}
    assert keyed["poll a"].after == (index[f"{NAP} a"],)


def test_asking_when_a_token_would_come_books_nothing():
    bucket = Bucket(1.0, 1.0)
    assert bucket.reserve(0.0) == 0.0
    assert bucket.available(0.0) == pytest.approx(1.0)
    assert bucket.available(0.0) == pytest.approx(1.0)  # still: nothing was booked
    assert bucket.reserve(0.0) == pytest.approx(1.0)


def test_a_call_the_pacing_would_hold_past_the_deadline_is_left_and_books_nothing():
    # 100 instances may run, so each paces at 50% of 975/min / 100: 4.9 calls a minute; the 40
    # projects fit on one instance. With a 60 s budget a delivery round gets ~5 Billing calls;
    # the rest are left (non-2xx) and come back, instead of booking tokens past their deadline
    # that no call would use.
    result = simulate(
        _billing_job(),
        Scenario(
            projects=40,
            max_instances=100,
            concurrency=40,
            crash_rate=0,
            duplicate_rate=0,
            push_window_initial=None,
            time_budget_s=60,
            max_delivery_attempts=100,
        ),
    )
    assert result.items_done == 40 and result.items_dead_lettered == 0
    assert result.org_peak_share["cloudbilling"] <= 0.5
    assert result.deliveries > 40  # some came back
    # No call waits for the pacing past its delivery's 60 s budget (booking tokens for calls
    # sent after their deadline averaged 235 s of waiting per call here).
    assert result.waits_s["org pacing"] / result.calls_by_service["cloudbilling"] < 60


def test_the_sliding_window_pacer_never_lets_a_minute_hold_more_than_its_share():
    from bench.orgsim.quotas import SlidingWindow

    window = SlidingWindow(allowed=3)
    asks = [0.0, 0.0, 0.0, 0.0, 10.0, 59.0, 61.0, 61.0, 200.0, 5.0]  # the last out of order
    starts = [window.reserve(t) for t in asks]
    assert starts[:3] == [0.0, 0.0, 0.0]
    assert starts[3] == 60.0  # the fourth waits for the first to be 60 s old
    assert all(s >= a for s, a in zip(starts, asks, strict=True))
    assert starts == sorted(starts)  # booked in order, as the functions' pacer books
    assert peak_in(starts, 60.0) == 3
    assert SlidingWindow(allowed=0).available(0.0) == float("inf")  # a share below one call
