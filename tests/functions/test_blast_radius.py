"""The reapers' blast-radius limits end to end: ceiling, error-rate breaker, canary, acting_reapers.

functions_framework, the real clients and the fake cloud, on its fake clock. Before these
limits a reaper acted on everything it decided, however much that was, whatever failed around
it, in any order; each test here fails on that code. The budget kill switch is exempt (last
test).
"""

from __future__ import annotations

from typing import Any

from tests.functions.conftest import (
    DEV,
    PROD,
    ZONES,
    budget_data,
    log_lines,
    post_report,
    pubsub_event,
    send_event,
    set_policy,
)

A, B = ZONES


def _past(cloud) -> str:
    return str(cloud.clock.wall().date().replace(day=1))


def _expired(cloud, project: str, zone: str, name: str) -> None:
    cloud.compute.add(project, zone, name, labels={"mlgov-expires-on": _past(cloud)})


def _outcomes(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {a["target"].rsplit("/", 1)[-1]: (a["outcome"], a["reason"]) for a in report["actions"]}


def _pages(out: str) -> list[dict[str, Any]]:
    return [x for x in log_lines(out) if x.get("page") is True]


# -- the ceiling ---------------------------------------------------------------------------------


def test_a_run_over_the_ceiling_stops_nothing_pages_and_answers_200(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, blast_radius={"max_stops_per_run": 2})
    for name in ("old-1", "old-2", "old-3"):
        _expired(cloud, DEV, A, name)

    report = post_report("reap_expired", status=200)  # a Scheduler retry must not act either

    assert [cloud.compute.status(DEV, A, n) for n in ("old-1", "old-2", "old-3")] == ["RUNNING"] * 3
    assert not cloud.server.calls("POST", "/stop")
    outcome = _outcomes(report)
    for name in ("old-1", "old-2", "old-3"):
        assert outcome[name][0] == "skipped"
        assert outcome[name][1].startswith("held: blast-radius ceiling: 3 stop(s) planned")
        assert "mlgov-expires-on" in outcome[name][1]  # what it would have done, kept
    [page] = _pages(capsys.readouterr().out)
    assert page["severity"] == "CRITICAL"
    assert page["blast_radius"]["kind"] == "ceiling" and page["planned_stops"] == 3
    assert report["held"] == [page["blast_radius"]] and report["failed"] is False

    post_report("reap_expired", status=200)  # the retry: held again, still nothing stopped
    assert not cloud.server.calls("POST", "/stop")


def test_the_ceiling_as_a_share_of_the_running_estate(cloud, monkeypatch):
    set_policy(monkeypatch, blast_radius={"max_stop_percent": 20})
    for i in range(8):
        cloud.compute.add(DEV, A, f"busy-{i}")
    _expired(cloud, DEV, A, "old-1")
    _expired(cloud, DEV, B, "old-2")
    _expired(cloud, PROD, A, "old-3")  # 11 running, 20% = 2 stops; 3 planned

    report = post_report("reap_expired")

    assert not cloud.server.calls("POST", "/stop")
    assert "max_stop_percent 20% of 11 running workload(s) = 2" in report["held"][0]["reason"]

    cloud.compute.add(PROD, A, "busy-p")  # 12 running, 20% = 2: still held
    cloud.compute.instances.pop((PROD, A, "old-3"))  # 2 planned of 11 running: fits
    post_report("reap_expired")
    assert cloud.compute.status(DEV, A, "old-1") == "TERMINATED"
    assert cloud.compute.status(DEV, B, "old-2") == "TERMINATED"


def test_a_dry_run_over_the_ceiling_says_so_without_paging(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, dry_run=True, blast_radius={"max_stops_per_run": 1})
    _expired(cloud, DEV, A, "old-1")
    _expired(cloud, DEV, A, "old-2")

    report = post_report("reap_expired")

    assert report["dry_run"] is True
    assert {o for o, _ in _outcomes(report).values()} == {"skipped"}
    out = log_lines(capsys.readouterr().out)
    assert not [x for x in out if x["severity"] == "CRITICAL"]
    [warning] = [x for x in out if x.get("blast_radius")]
    assert warning["severity"] == "WARNING" and warning["page"] is False


# -- the error-rate breaker ----------------------------------------------------------------------


def test_the_breaker_stops_starting_actions_once_calls_fail(cloud, monkeypatch, capsys):
    # One action at a time, so the order is fixed: 7 listings (compute, notebooks, TPU per
    # governed zone), then stops that all fail (HTTP 403: no retry). At 20 calls with 13
    # failures the breaker trips: the 7 stops not started are held, and the run answers 503.
    set_policy(monkeypatch, max_concurrency=1)
    names = [f"old-{i:02d}" for i in range(20)]
    for name in names:
        _expired(cloud, DEV, A, name)
    cloud.server.inject(r"/instances/old-[0-9]+/stop$", 403, times=1_000)

    report = post_report("reap_expired", status=503)

    outcome = _outcomes(report)
    failed = [n for n in names if outcome[n][0] == "failed"]
    held = [n for n in names if outcome[n][1].startswith("held: error-rate breaker")]
    assert (len(failed), len(held)) == (13, 7)
    assert len(cloud.server.calls("POST", "/stop")) == 13
    assert all(outcome[n][0] == "skipped" for n in held)
    [page] = _pages(capsys.readouterr().out)
    assert page["severity"] == "CRITICAL" and page["blast_radius"]["kind"] == "breaker"
    assert "13 of 20 API calls failed" in page["message"]
    assert report["held"][0]["retry"] is True


def test_a_few_failures_do_not_trip_the_breaker(cloud, monkeypatch):
    set_policy(monkeypatch, max_concurrency=1, blast_radius={"max_error_rate": 0.5})
    names = [f"old-{i:02d}" for i in range(20)]
    for name in names:
        _expired(cloud, DEV, A, name)
    cloud.server.inject(r"/instances/old-0[0-4]/stop$", 403, times=5)  # 5 of 27 calls

    report = post_report("reap_expired", status=503)  # five stops failed: retried

    assert report["held"] == []
    assert len(cloud.server.calls("POST", "/stop")) == 20


# -- the canary ----------------------------------------------------------------------------------


def test_the_canary_project_is_acted_on_first(cloud, monkeypatch):
    set_policy(monkeypatch, blast_radius={"canary": [f"projects/{PROD}"]})
    _expired(cloud, DEV, A, "dev-1")
    _expired(cloud, DEV, B, "dev-2")
    _expired(cloud, PROD, A, "prod-1")

    post_report("reap_expired")

    stops = [r.path.rsplit("/", 2)[-2] for r in cloud.server.calls("POST", "/stop")]
    assert stops[0] == "prod-1" and sorted(stops[1:]) == ["dev-1", "dev-2"]
    assert all(
        cloud.compute.status(p, z, n) == "TERMINATED"
        for p, z, n in [(DEV, A, "dev-1"), (DEV, B, "dev-2"), (PROD, A, "prod-1")]
    )


def test_a_failed_canary_holds_every_other_project(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, blast_radius={"canary": [f"projects/{PROD}"]})
    _expired(cloud, DEV, A, "dev-1")
    _expired(cloud, PROD, A, "prod-1")
    cloud.server.inject(r"/instances/prod-1/stop$", 403)

    report = post_report("reap_expired", status=503)

    outcome = _outcomes(report)
    assert outcome["prod-1"][0] == "failed"
    assert outcome["dev-1"][0] == "skipped"
    assert outcome["dev-1"][1].startswith("held: canary failed (//compute.googleapis.com/")
    assert cloud.compute.status(DEV, A, "dev-1") == "RUNNING"
    [page] = _pages(capsys.readouterr().out)
    assert page["blast_radius"]["kind"] == "canary"

    post_report("reap_expired")  # the canary heals: everything goes
    assert cloud.compute.status(DEV, A, "dev-1") == "TERMINATED"


def test_a_canary_folder_resolves_through_asset_inventory(cloud, monkeypatch):
    cloud.assets.add_folder("folders/42")
    cloud.assets.add_project(PROD, "folders/42")
    set_policy(monkeypatch, blast_radius={"canary": ["folders/42"]})
    _expired(cloud, DEV, A, "dev-1")
    _expired(cloud, PROD, A, "prod-1")

    report = post_report("reap_expired")

    stops = [r.path.rsplit("/", 2)[-2] for r in cloud.server.calls("POST", "/stop")]
    assert stops == ["prod-1", "dev-1"]
    assert {o for o, _ in _outcomes(report).values()} == {"done"}
    assert cloud.assets.searches(cloud.server, "folders/42")


def test_a_canary_folder_nothing_resolves_holds_everything_outside_it(cloud, monkeypatch):
    # folders/42 is not one Asset Inventory may search (403): a folder canary that cannot be
    # resolved holds every project that is not a known canary, never acts without it.
    set_policy(monkeypatch, blast_radius={"canary": ["folders/42", f"projects/{PROD}"]})
    _expired(cloud, DEV, A, "dev-1")
    _expired(cloud, PROD, A, "prod-1")

    report = post_report("reap_expired", status=503)

    outcome = _outcomes(report)
    assert outcome["prod-1"][0] == "done"
    assert outcome["dev-1"][1].startswith("held: canary folders/42 could not be resolved")
    assert cloud.compute.status(DEV, A, "dev-1") == "RUNNING"


# -- acting_reapers ------------------------------------------------------------------------------


def test_a_reaper_not_in_acting_reapers_simulates(cloud, monkeypatch):
    set_policy(monkeypatch, blast_radius={"acting_reapers": ["reap_idle_vms"]})
    _expired(cloud, DEV, A, "old-1")

    report = post_report("reap_expired")

    assert report["dry_run"] is True
    assert _outcomes(report)["old-1"][0] == "simulated"
    assert cloud.compute.status(DEV, A, "old-1") == "RUNNING"

    set_policy(monkeypatch, blast_radius={"acting_reapers": ["reap_expired"]})
    assert post_report("reap_expired")["dry_run"] is False
    assert cloud.compute.status(DEV, A, "old-1") == "TERMINATED"


# -- the budget kill switch is exempt ------------------------------------------------------------


def test_the_budget_cap_is_held_to_none_of_the_limits(cloud, monkeypatch):
    set_policy(
        monkeypatch,
        blast_radius={
            "max_stops_per_run": 1,
            "max_stop_percent": 1,
            "canary": ["folders/42"],
            "acting_reapers": [],
        },
    )
    for name in ("vm-1", "vm-2", "vm-3"):
        cloud.compute.add(DEV, A, name)
    cloud.billing.add(DEV)
    cloud.billing.add(PROD)

    send_event(pubsub_event(budget_data(1.0, 1000)))

    assert [cloud.compute.status(DEV, A, n) for n in ("vm-1", "vm-2", "vm-3")] == ["TERMINATED"] * 3
