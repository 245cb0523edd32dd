"""The reapers' blast radius survives fan-out, end to end.

functions_framework, the real REST adapters and the fake cloud (Asset Inventory indexing the fake
VMs, TPU VMs and Workbench instances; Pub/Sub pushed to on_work_item by the harness in
governance/fakecloud/pushdelivery.py). Before this, a fanned-out reaper published every project with
`allowance: null` and the policy's dry_run, each worker acted on all it decided, and the canary
was never first: every test here fails on that code.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.functions.conftest import (
    DEV,
    PROD,
    app_client,
    log_lines,
    post_report,
)
from tests.functions.test_fanout import (
    FAR,
    FOLDER,
    GOVERNED,
    TOPIC,
    _fan_out,
    _forged,
    _items,
    _org,
    _push,
)

A = "us-central1-a"


def _expired(cloud, project: str, name: str = "old", zone: str = FAR) -> str:
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.compute.add(project, zone, name, labels={"mlgov-expires-on": past})
    return f"//compute.googleapis.com/projects/{project}/zones/{zone}/instances/{name}"


def _pages(out: str) -> list[dict[str, Any]]:
    return [x for x in log_lines(out) if x.get("page") is True]


def _published(cloud) -> int:
    return len(cloud.pubsub.messages.get(TOPIC, []))


# -- the ceiling, held at dispatch ---------------------------------------------------------------


def test_expired_workloads_counted_above_the_ceiling_hold_the_whole_run(cloud, monkeypatch, capsys):
    _org(cloud, n=4)
    for project in ("ml-001", "ml-002", "ml-003"):
        _expired(cloud, project)
    _fan_out(cloud, monkeypatch, blast_radius={"max_stops_per_run": 2})
    push = _push(cloud)

    report = post_report("reap_expired", status=200)  # a Scheduler retry must not act either

    assert _published(cloud) == 0 and report["dispatch"]["items"] == 0
    [page] = _pages(capsys.readouterr().out)
    assert page["severity"] == "CRITICAL" and page["blast_radius"]["kind"] == "ceiling"
    assert page["blast_radius"]["reason"].startswith(
        "held: blast-radius ceiling: 3 stop(s) counted by Cloud Asset Inventory in 3 project(s), "
        "more than max_stops_per_run 2"
    )
    assert report["held"] == [page["blast_radius"]] and report["failed"] is False
    push.run()
    assert all(cloud.compute.status(p, FAR, "old") == "RUNNING" for p in ("ml-001", "ml-003"))
    # The index was asked once for the folder's expired workloads, by label.
    [search] = [
        r
        for r in cloud.assets.searches(cloud.server, FOLDER)
        if "cloudresourcemanager.googleapis.com/Project" not in r.query["assetTypes"]
    ]
    assert search.query["query"] == ["labels.mlgov-expires-on:*"]
    assert sorted(search.query["assetTypes"]) == [
        "compute.googleapis.com/Instance",
        "notebooks.googleapis.com/Instance",
        "tpu.googleapis.com/Node",
    ]

    post_report("reap_expired", status=200)  # the retry: held again
    assert _published(cloud) == 0


def test_the_ceiling_as_a_share_of_the_running_estate_the_index_counts(cloud, monkeypatch, capsys):
    _org(cloud, n=4)  # 4 running VMs in the folder, and ml-000's GPU VM and TPU VM
    _expired(cloud, "ml-001")
    _expired(cloud, "ml-002")  # 8 running: 20% = 1 stop, 2 counted
    _fan_out(cloud, monkeypatch, blast_radius={"max_stop_percent": 20})

    report = post_report("reap_expired", status=200)

    assert _published(cloud) == 0
    [page] = _pages(capsys.readouterr().out)
    reason = page["blast_radius"]["reason"]
    assert "more than max_stop_percent 20% of 8 running workload(s) = 1" in reason
    assert report["dispatch"]["blast_radius"]["ceiling"] == 1


def test_idle_gpu_candidates_above_the_ceiling_share_it_and_are_never_held_at_dispatch(
    cloud, monkeypatch
):
    governed = _org(cloud, n=10)  # ml-000 and ml-005 run a GPU VM labelled workload=training
    _fan_out(cloud, monkeypatch, blast_radius={"max_stops_per_run": 1})

    report = post_report("reap_idle_gpus", status=200)

    assert report["held"] == []
    allowance = {i["project"]: i["allowance"] for i in _items(cloud)}
    assert sorted(allowance) == sorted([*governed, PROD])
    # Two candidates, a ceiling of 1: each project with a candidate still gets 1; counted
    # projects without one get 0; the listed projects (not counted) get 1 each.
    assert allowance["ml-000"] == allowance["ml-005"] == 1
    assert {allowance[f"ml-00{i}"] for i in (1, 2, 3, 4, 6, 7, 8, 9)} == {0}
    assert allowance[DEV] == allowance[PROD] == 1
    assert report["dispatch"]["blast_radius"]["bound"] == 4


def test_an_index_that_cannot_be_searched_leaves_the_projects_uncounted(cloud, monkeypatch, capsys):
    _org(cloud, n=3)
    _expired(cloud, "ml-001")
    cloud.assets.failing_workloads[FOLDER] = 403
    _fan_out(cloud, monkeypatch, blast_radius={"max_stops_per_run": 10})

    report = post_report("reap_expired", status=200)

    lines = log_lines(capsys.readouterr().out)
    assert any(
        x["severity"] == "WARNING" and "candidates under folders/100 not counted" in x["message"]
        for x in lines
    )
    allowance = {i["project"]: i["allowance"] for i in _items(cloud)}
    # Nothing counted: the ceiling of 10 shared evenly over the five projects.
    assert allowance == {DEV: 2, PROD: 2, "ml-000": 2, "ml-001": 2, "ml-002": 2}
    assert report["dispatch"]["blast_radius"]["counted_projects"] == 0


# -- the allowance, enforced by each worker ------------------------------------------------------


def test_a_worker_holds_an_item_that_plans_more_than_its_allowance(cloud, monkeypatch, capsys):
    _org(cloud, n=2)
    _expired(cloud, "ml-000", "old-1")
    late = _expired(cloud, "ml-000", "old-2")
    _expired(cloud, "ml-001", "old-1")
    cloud.assets.lagging.add(late)  # labelled minutes ago: the index has not seen it yet
    _fan_out(cloud, monkeypatch, blast_radius={"max_stops_per_run": 3})
    push = _push(cloud)

    post_report("reap_expired")
    allowance = {i["project"]: i["allowance"] for i in _items(cloud)}
    # 2 counted, 1 stop left over for 4 projects: to the first by id; the listed projects
    # (not counted) still get 1 each.
    assert allowance == {DEV: 1, PROD: 1, "ml-000": 1, "ml-001": 1}
    capsys.readouterr()
    push.run()

    # ml-000's worker planned 2 stops on an allowance of 1: it held both and paged.
    assert cloud.compute.status("ml-000", FAR, "old-1") == "RUNNING"
    assert cloud.compute.status("ml-000", FAR, "old-2") == "RUNNING"
    assert cloud.compute.status("ml-001", FAR, "old-1") == "TERMINATED"
    lines = log_lines(capsys.readouterr().out)
    [held] = [x for x in lines if x.get("work_item", {}).get("project") == "ml-000"]
    assert held["outcome"] == "done" and held["counts"] == {"skipped": 2}
    assert held["held"][0]["reason"].startswith(
        "held: blast-radius ceiling: 2 stop(s) planned, more than this work item's allowance of "
        "1 stop(s)"
    )
    [page] = _pages("\n".join(_json(x) for x in lines))
    assert page["blast_radius"]["kind"] == "ceiling" and page["planned_stops"] == 2
    # Held is an answer, not a failure: acknowledged at once, never redelivered.
    assert push.dead_lettered == [] and {a.status for a in push.attempts} == {200}


def _json(line: dict[str, Any]) -> str:
    import json

    return json.dumps(line)


def test_a_forged_allowance_never_passes_the_policys_ceiling(cloud, monkeypatch):
    for name in ("old-1", "old-2", "old-3"):
        _expired(cloud, DEV, name, zone=A)
    _fan_out(cloud, monkeypatch, blast_radius={"max_stops_per_run": 2})

    body = _forged(project=DEV, allowance=1000)
    assert app_client("on_work_item", "cloudevent").post("/", json=body).status_code == 200

    assert all(cloud.compute.status(DEV, A, n) == "RUNNING" for n in ("old-1", "old-2", "old-3"))


# -- dry_run: an item can only make a run drier --------------------------------------------------


def test_a_reaper_not_in_acting_reapers_publishes_dry_items_a_forged_one_cannot_wake(
    cloud, monkeypatch, capsys
):
    _org(cloud, n=1)
    _expired(cloud, DEV, zone=A)
    _fan_out(cloud, monkeypatch, blast_radius={"acting_reapers": ["reap_idle_vms"]})

    assert post_report("reap_expired")["dry_run"] is True
    assert {i["dry_run"] for i in _items(cloud)} == {True}
    capsys.readouterr()

    body = _forged(project=DEV, dry_run=False)
    assert app_client("on_work_item", "cloudevent").post("/", json=body).status_code == 200

    assert cloud.compute.status(DEV, A, "old") == "RUNNING"
    assert not cloud.server.calls("POST", "/stop")
    [line] = [x for x in log_lines(capsys.readouterr().out) if "work_item" in x]
    assert line["counts"] == {"simulated": 1} and line["dry_run"] is True


# -- the canary, acted on by the dispatcher first ------------------------------------------------


def test_the_dispatcher_acts_on_the_canary_then_publishes_the_rest(cloud, monkeypatch):
    _org(cloud, n=3)
    for project in ("ml-000", "ml-001"):
        _expired(cloud, project)
    _expired(cloud, DEV, zone=A)
    _fan_out(cloud, monkeypatch, blast_radius={"canary": ["projects/ml-001"]})
    push = _push(cloud)

    report = post_report("reap_expired")

    # Before any item is delivered, the canary's VM is stopped, and only the canary's.
    assert cloud.compute.status("ml-001", FAR, "old") == "TERMINATED"
    assert cloud.compute.status("ml-000", FAR, "old") == "RUNNING"
    assert [a["outcome"] for a in report["actions"]] == ["done"]
    assert "ml-001" not in {i["project"] for i in _items(cloud)}
    assert "ml-001" not in report["dispatch"]["projects"]
    stop = cloud.server.calls("POST", "/instances/old/stop")[0]
    publish = cloud.server.calls("POST", ":publish")[0]
    assert stop.at <= publish.at and "ml-001" in stop.path

    push.run()
    assert cloud.compute.status("ml-000", FAR, "old") == "TERMINATED"
    assert cloud.compute.status(DEV, A, "old") == "TERMINATED"


def test_a_failed_canary_publishes_nothing_pages_and_answers_503(cloud, monkeypatch, capsys):
    _org(cloud, n=3)
    for project in ("ml-000", "ml-001"):
        _expired(cloud, project)
    _fan_out(cloud, monkeypatch, blast_radius={"canary": ["projects/ml-001"]})
    cloud.server.inject(r"/projects/ml-001/zones/.*/instances/old/stop$", 403)

    report = post_report("reap_expired", status=503)

    assert _published(cloud) == 0 and report["dispatch"]["items"] == 0
    assert cloud.compute.status("ml-000", FAR, "old") == "RUNNING"
    [page] = _pages(capsys.readouterr().out)
    assert page["blast_radius"]["kind"] == "canary" and page["severity"] == "CRITICAL"
    assert page["blast_radius"]["reason"].startswith("held: canary failed (//compute")
    assert page["not_published"] == 4  # the folder's other two and the two listed projects


def test_a_canary_folder_resolves_through_asset_inventory(cloud, monkeypatch):
    _org(cloud, n=2)
    cloud.assets.add_folder("folders/42", FOLDER)
    cloud.assets.add_project("ml-canary", "folders/42", labels=GOVERNED)
    _expired(cloud, "ml-canary")
    _expired(cloud, "ml-000")
    _fan_out(cloud, monkeypatch, blast_radius={"canary": ["folders/42"]})

    report = post_report("reap_expired")

    assert cloud.compute.status("ml-canary", FAR, "old") == "TERMINATED"
    assert cloud.compute.status("ml-000", FAR, "old") == "RUNNING"
    assert "ml-canary" not in report["dispatch"]["projects"]
    assert "ml-000" in report["dispatch"]["projects"]
    assert cloud.assets.searches(cloud.server, "folders/42")


def test_a_dry_run_has_no_canary_to_wait_for(cloud, monkeypatch):
    _org(cloud, n=2)
    _expired(cloud, "ml-001")
    _fan_out(cloud, monkeypatch, dry_run=True, blast_radius={"canary": ["projects/ml-001"]})

    report = post_report("reap_expired")

    assert report["actions"] == [] and "ml-001" in report["dispatch"]["projects"]
    assert cloud.compute.status("ml-001", FAR, "old") == "RUNNING"
