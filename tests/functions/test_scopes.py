"""Scopes without fan-out: a folder's ACTIVE, labelled projects are governed in every zone.

End to end through functions_framework, real REST adapters against the fake cloud (Cloud Asset
Inventory `searchAllResources` in governance/fakecloud/cloudasset.py). A scope that fails or finds
nothing acts on nothing and fails the run (raised for redelivery, or HTTP 503); other scopes and
listed projects are still acted on. Never "everything".
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from govern import resolve
from govern.models import FoundProject, ScopePolicy
from govern.parse import action_policy
from tests.functions.conftest import (
    BUDGET,
    DEV,
    PROD,
    budget_data,
    budget_dict,
    log_lines,
    policy_dict,
    post_report,
    pubsub_event,
    send_event,
    set_policy,
)

A, B = "us-central1-a", "us-central1-b"
MIG = "projects/1/zones/us-west1-c/instanceGroupManagers/web"
FAR = "asia-east1-b"  # a zone no listed project governs
FOLDER, TEAM, OTHER = "folders/100", "folders/200", "folders/300"
GOVERNED = {"mlgov-governed": "true"}
SCOPES = {
    FOLDER: {"environment": "prod", "allow_billing_disable": False, "labels": GOVERNED},
    OTHER: {"environment": "dev", "allow_billing_disable": True},
}


def _seed_tree(cloud) -> None:
    """folders/100 (with folders/200 below it) and folders/300, each with some projects."""
    assets = cloud.assets
    assets.add_folder(FOLDER)
    assets.add_folder(TEAM, FOLDER)
    assets.add_folder(OTHER)
    assets.add_project("ml-a", FOLDER, labels=GOVERNED)
    assets.add_project("ml-b", TEAM, labels={**GOVERNED, "team": "vision"})  # a subfolder
    assets.add_project("ml-unlabelled", FOLDER, labels={"team": "x"})
    assets.add_project("ml-going", TEAM, labels=GOVERNED, state="DELETE_REQUESTED")
    assets.add_project(DEV, FOLDER, labels=GOVERNED)  # listed too: explicit wins
    assets.add_project("other-1", OTHER)
    for project in ("ml-a", "ml-b", "ml-unlabelled", "ml-going", "other-1"):
        cloud.compute.add(project, FAR, "vm")
        cloud.tpu.add(project, FAR, "tpu")
        cloud.billing.add(project)
    cloud.compute.add(DEV, A, "vm-dev")
    cloud.compute.add(DEV, FAR, "vm-dev-far")  # outside DEV's listed zones
    cloud.billing.add(DEV)
    cloud.billing.add(PROD)


def _scoped_budget(monkeypatch, **budget) -> None:
    set_policy(
        monkeypatch,
        scopes=SCOPES,
        budgets={BUDGET: budget_dict(projects=[DEV], scopes=[FOLDER, OTHER], **budget)},
    )


def test_a_budget_over_a_folder_stops_its_active_labelled_projects_in_every_zone(
    cloud, monkeypatch, capsys
):
    _seed_tree(cloud)
    _scoped_budget(monkeypatch)
    send_event(pubsub_event(budget_data(1.0, 1000)))
    for project in ("ml-a", "ml-b", "other-1"):  # every zone, TPU VMs too (locations/-)
        assert cloud.compute.status(project, FAR, "vm") == "TERMINATED", project
        assert cloud.tpu.state(project, FAR, "tpu") == "STOPPED", project
    for project in ("ml-unlabelled", "ml-going"):  # labelled out; being deleted
        assert cloud.compute.status(project, FAR, "vm") == "RUNNING", project
        assert cloud.tpu.state(project, FAR, "tpu") == "READY", project
    # DEV is listed and found under the folder: its listed zones win, so FAR is not capped
    # there, and the run names that VM.
    assert cloud.compute.status(DEV, A, "vm-dev") == "TERMINATED"
    assert cloud.compute.status(DEV, FAR, "vm-dev-far") == "RUNNING"
    # A project found through a scope lists TPUs in every zone with one call.
    tpu_lists = [r.path for r in cloud.server.calls("GET", "/v2/projects/ml-a/locations/")]
    assert [p for p in tpu_lists if p.endswith("/nodes")] == ["/v2/projects/ml-a/locations/-/nodes"]
    searches = cloud.assets.searches(cloud.server)
    assert sorted(r.path for r in searches) == [
        f"/v1/{FOLDER}:searchAllResources",
        f"/v1/{OTHER}:searchAllResources",
    ]
    assert searches[0].query["assetTypes"] == ["cloudresourcemanager.googleapis.com/Project"]
    assert searches[0].query["query"] == ["state:ACTIVE"]
    summary = log_lines(capsys.readouterr().out)[-1]
    assert summary["failed"] is False
    far = f"//compute.googleapis.com/projects/{DEV}/zones/{FAR}/instances/vm-dev-far"
    assert far in summary["not_capped"]
    assert "vertex ai outside vertex_regions not read" in summary["not_capped"]


def test_every_page_of_a_large_folder_is_read(cloud, monkeypatch):
    # 1,001 ACTIVE projects are three pages of 500 (tokens "500", "1000"). Every page must be
    # read and the projects on each acted on; acting on all 1,001 is not the point, so one
    # labelled project per page is governed (the others are listed, then labelled out).
    cloud.assets.add_folder(FOLDER)
    per_page = ["p-0000", "p-0500", "p-1000"]  # the first, second and last (third) page
    for i in range(1001):
        project = f"p-{i:04d}"
        cloud.assets.add_project(project, FOLDER, labels=GOVERNED if project in per_page else {})
    for project in per_page:
        cloud.compute.add(project, FAR, "vm")
    set_policy(
        monkeypatch,
        scopes={FOLDER: SCOPES[FOLDER]},
        budgets={BUDGET: budget_dict(projects=[], scopes=[FOLDER], disable_billing_at=None)},
    )
    send_event(pubsub_event(budget_data(1.0, 1000)))
    pages = cloud.assets.searches(cloud.server, FOLDER)
    assert [r.query.get("pageToken") for r in pages] == [None, ["500"], ["1000"]]
    assert all(r.query["pageSize"] == ["500"] for r in pages)
    for project in per_page:
        assert cloud.compute.status(project, FAR, "vm") == "TERMINATED", project


@pytest.mark.parametrize("failure", ["403", "503", "empty"])
def test_a_failing_or_empty_scope_acts_on_nothing_and_is_redelivered(
    cloud, monkeypatch, capsys, failure
):
    _seed_tree(cloud)
    _scoped_budget(monkeypatch)
    if failure == "empty":
        for project in ("ml-a", "ml-b", DEV):
            cloud.assets.projects[project]["labels"] = {}
    else:
        cloud.assets.failing[FOLDER] = int(failure)
    send_event(pubsub_event(budget_data(1.0, 1000)), status=500)  # raised: redelivered
    # The failed scope's projects are untouched: nothing of it was assumed.
    assert cloud.compute.status("ml-a", FAR, "vm") == "RUNNING"
    assert cloud.compute.status("ml-b", FAR, "vm") == "RUNNING"
    # The other scope and the listed project were still acted on.
    assert cloud.compute.status("other-1", FAR, "vm") == "TERMINATED"
    assert cloud.compute.status(DEV, A, "vm-dev") == "TERMINATED"
    lines = log_lines(capsys.readouterr().out)
    errors = [x for x in lines if x["severity"] == "ERROR" and x.get("scope") == FOLDER]
    assert len(errors) == 1
    assert "acts on nothing" in errors[0]["message"]
    assert lines[-1]["answer"] == "raised for redelivery"
    if failure == "503":  # transient: retried before it counts as failed
        assert len(cloud.assets.searches(cloud.server, FOLDER)) > 1


def test_a_budget_naming_only_a_failing_scope_fails_rather_than_doing_nothing(cloud, monkeypatch):
    _seed_tree(cloud)
    cloud.assets.failing[FOLDER] = 403
    set_policy(
        monkeypatch,
        scopes=SCOPES,
        budgets={BUDGET: budget_dict(projects=[], scopes=[FOLDER])},
    )
    send_event(pubsub_event(budget_data(1.3, 1300)), status=500)
    assert cloud.mutations() == []


def test_an_alert_below_stop_at_never_searches(cloud, monkeypatch):
    _seed_tree(cloud)
    _scoped_budget(monkeypatch)
    send_event(pubsub_event(budget_data(0.5, 500)))
    assert cloud.server.calls() == []


def test_billing_is_unlinked_only_where_the_scope_allows_it(cloud, monkeypatch):
    _seed_tree(cloud)
    _scoped_budget(monkeypatch)
    send_event(pubsub_event(budget_data(1.2, 1200)))
    assert cloud.billing.accounts["other-1"] == ""  # folders/300 allows it
    assert cloud.billing.accounts["ml-a"] != ""  # folders/100 does not
    assert cloud.billing.accounts[DEV] == ""  # listed: its own opt-in


def test_reap_expired_reaps_scope_projects_in_every_zone(cloud, monkeypatch):
    _seed_tree(cloud)
    set_policy(monkeypatch, scopes=SCOPES)
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.compute.add("ml-a", FAR, "old", labels={"mlgov-expires-on": past})
    cloud.compute.add("ml-unlabelled", FAR, "old", labels={"mlgov-expires-on": past})
    report = post_report("reap_expired")
    assert cloud.compute.status("ml-a", FAR, "old") == "TERMINATED"
    assert cloud.compute.status("ml-unlabelled", FAR, "old") == "RUNNING"
    assert report["failed"] is False


def test_reap_expired_answers_503_when_a_scope_fails(cloud, monkeypatch):
    _seed_tree(cloud)
    set_policy(monkeypatch, scopes=SCOPES)
    cloud.assets.failing[OTHER] = 403
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.compute.add("ml-a", FAR, "old", labels={"mlgov-expires-on": past})
    cloud.compute.add("other-1", FAR, "old", labels={"mlgov-expires-on": past})
    report = post_report("reap_expired", status=503)
    assert cloud.compute.status("ml-a", FAR, "old") == "TERMINATED"
    assert cloud.compute.status("other-1", FAR, "old") == "RUNNING"
    assert any(OTHER in e and "acts on nothing" in e for e in report["errors"])


def test_reap_idle_vms_reads_recommendations_only_where_a_scope_project_runs_plain_vms(
    cloud, monkeypatch
):
    cloud.assets.add_folder(FOLDER)
    cloud.assets.add_project("ml-a", FOLDER, labels=GOVERNED)
    set_policy(monkeypatch, scopes={FOLDER: SCOPES[FOLDER]})
    cloud.compute.add("ml-a", FAR, "idle")
    cloud.compute.add("ml-a", "europe-west4-a", "gpu", gpus=1)  # never recommended
    cloud.compute.add("ml-a", "europe-west4-b", "node", labels={"goog-gke-node": ""})
    cloud.compute.add("ml-a", "us-east1-b", "off", status="TERMINATED")
    # Nothing the reaper could act on, or the recommender flag: each zone's one VM is
    # exempt, has Local SSDs, or belongs to a managed instance group.
    cloud.compute.add("ml-a", "us-west1-a", "kept", labels={"mlgov-exempt": "true"})
    cloud.compute.add("ml-a", "us-west1-b", "scratch", local_ssds=1)
    cloud.compute.add("ml-a", "us-west1-c", "mig-1", metadata={"created-by": MIG})
    cloud.recommender.add("ml-a", FAR, "idle")
    report = post_report("reap_idle_vms")
    listed = [
        r.path.split("/locations/")[1].split("/")[0]
        for r in cloud.server.calls("GET", "/recommendations")
        if r.path.startswith("/v1/projects/ml-a/")
    ]
    assert listed == [FAR]
    assert cloud.compute.status("ml-a", FAR, "idle") == "TERMINATED"
    assert report["counts"] == {"done": 1}
    # One aggregatedList for the project (listed once, before the recommendations).
    assert len(cloud.server.calls("GET", "/projects/ml-a/aggregated/instances")) == 1


# -- the pure part: selection and the rebuilt policy ---------------------------------------------


def _found(pid, state="ACTIVE", **labels) -> FoundProject:
    return FoundProject(pid, "1", state, labels)


def test_selection_keeps_active_projects_matching_every_label():
    scope = ScopePolicy("prod", False, {"a": "1", "b": ""})
    found = [
        _found("yes", a="1", b=""),
        _found("extra", a="1", b="", c="2"),
        _found("wrong", a="2", b=""),
        _found("missing", a="1"),
        _found("deleting", "DELETE_REQUESTED", a="1", b=""),
        _found("yes", a="1", b=""),  # a duplicate result
    ]
    assert resolve.selected(found, scope) == ("extra", "yes")


def test_explicit_wins_and_billing_needs_every_scope_that_found_a_project():
    policy = action_policy(
        __import__("json").dumps(
            policy_dict(
                scopes={
                    "folders/1": {"environment": "prod", "allow_billing_disable": True},
                    "folders/2": {
                        "environment": "dev",
                        "allow_billing_disable": False,
                        "vertex_regions": ["europe-west4"],
                    },
                },
                budgets={BUDGET: budget_dict(projects=[PROD], scopes=["folders/2"])},
            )
        )
    )
    resolution = resolve.Resolution({"folders/1": ("x", DEV), "folders/2": ("x", "y")})
    governed = resolve.governed(policy, resolution)
    assert governed.projects[DEV] == policy.projects[DEV]  # explicit wins
    x, y = governed.projects["x"], governed.projects["y"]
    assert (x.scope, x.zones, x.environment, x.allow_billing_disable) == (
        "folders/1",
        (),
        "prod",
        False,  # folders/2 also found it and forbids unlinking
    )
    assert x.vertex_regions == ("us-central1",)  # the listed projects' regions
    assert (y.scope, y.allow_billing_disable, y.vertex_regions) == (
        "folders/2",
        False,
        ("europe-west4",),
    )
    assert governed.budgets[BUDGET].projects == (PROD, "x", "y")
