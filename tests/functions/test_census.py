"""What a fan-out dispatcher counts before publishing a reaper run, and how it splits the ceiling.

Pure: govern/census.py (the index's candidates and running estate), blast.split_ceiling (the
allowances), parse.found_workload (a search result); and the workload search's request and
answer against the cloudasset v1 discovery document, through the real adapter.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import date

import pytest

from govern import blast, census, parse
from govern.models import ActionPolicy, BlastRadius, ProjectPolicy, Workload
from tests.functions.conftest import DEV, PROD, policy_dict, post_report, set_policy
from tests.functions.test_fake_shapes import _check, _methods

A, B, FAR = "us-central1-a", "us-central1-b", "asia-east1-b"
TODAY = date(2026, 11, 21)
EXPIRED = {"mlgov-expires-on": "2026-11-01"}
SCOPED = "ml-scoped"


def _policy(**extra) -> ActionPolicy:
    policy = parse.action_policy(json.dumps(policy_dict(**extra)))
    # A project found through a scope: every zone.
    scoped = ProjectPolicy("prod", (), False, scope="folders/100")
    return dataclasses.replace(policy, projects={**policy.projects, SCOPED: scoped})


def _vm(project: str, name: str, zone: str = A, state: str = "RUNNING", **labels) -> Workload:
    return Workload("compute", project, zone, name, state, labels)


# -- census --------------------------------------------------------------------------------------


def test_expired_candidates_are_what_decide_would_stop_in_governed_zones():
    policy = _policy()
    found = [
        _vm(DEV, "old", **EXPIRED),
        _vm(DEV, "old-elsewhere", zone=FAR, **EXPIRED),  # not a zone DEV governs
        _vm(DEV, "stopped", state="TERMINATED", **EXPIRED),
        _vm(DEV, "exempt", **EXPIRED, **{"mlgov-exempt": "true"}),
        _vm(DEV, "later", **{"mlgov-expires-on": "2027-01-01"}),
        _vm(SCOPED, "old", zone=FAR, **EXPIRED),  # every zone
        Workload("tpu", SCOPED, B, "tpu-old", "READY", EXPIRED),
        _vm(PROD, "old", **EXPIRED),  # not counted: outside the searched scopes
    ]
    search = census.search_for("reap_expired", policy)
    assert search is not None and search.query == "labels.mlgov-expires-on:*"
    counted = census.census("reap_expired", search, found, policy, {DEV, SCOPED}, TODAY)
    assert counted.candidates == {DEV: 1, SCOPED: 2}
    assert counted.running is None  # max_stop_percent is off


def test_idle_gpu_candidates_are_running_accelerators_with_a_watched_workload_label():
    policy = _policy()
    found = [
        _vm(DEV, "train", workload="training"),
        _vm(DEV, "web", workload="serving"),
        _vm(DEV, "train-off", state="TERMINATED", workload="training"),
        Workload("tpu", SCOPED, FAR, "tpu", "READY", {"workload": "training"}),
        Workload(
            "tpu",
            SCOPED,
            FAR,
            "tpu-exempt",
            "READY",
            {"workload": "training", "mlgov-exempt": "true"},
        ),
    ]
    search = census.search_for("reap_idle_gpus", policy)
    assert search is not None and search.query == "labels.workload:*"
    counted = census.census("reap_idle_gpus", search, found, policy, {DEV, SCOPED}, TODAY)
    assert counted.candidates == {DEV: 1, SCOPED: 1}


def test_with_max_stop_percent_the_search_reads_the_running_estate():
    policy = _policy(blast_radius={"max_stop_percent": 10})
    search = census.search_for("reap_expired", policy)
    assert search is not None and search.query == "state:(RUNNING OR READY OR ACTIVE)"
    found = [_vm(DEV, "a"), _vm(DEV, "b", **EXPIRED), _vm(SCOPED, "c", zone=FAR), _vm(PROD, "d")]
    counted = census.census("reap_expired", search, found, policy, {DEV, SCOPED}, TODAY)
    assert counted.running == 3 and counted.candidates == {DEV: 1, SCOPED: 0}
    idle_vms = census.search_for("reap_idle_vms", policy)
    assert idle_vms is not None and idle_vms.query == "state:RUNNING"
    assert not idle_vms.counts_candidates
    counted = census.census("reap_idle_vms", idle_vms, found, policy, {DEV, SCOPED}, TODAY)
    assert counted.candidates == {} and counted.running == 3


def test_reap_idle_vms_has_nothing_to_count_without_a_percentage():
    assert census.search_for("reap_idle_vms", _policy()) is None


def test_the_running_estate_of_a_project_found_through_a_scope_counts_every_zone():
    # blast.running_estate looked only at the listed zones: a scoped project (no zones) had none.
    policy = _policy()
    assert blast.running_estate([_vm(SCOPED, "x", zone=FAR), _vm(DEV, "y", zone=FAR)], policy) == 1


# -- the split -----------------------------------------------------------------------------------


def test_counts_within_the_ceiling_each_get_their_own_and_the_rest_is_shared_evenly():
    split = blast.split_ceiling(
        ["a", "b", "c", "d"], {"a": 3, "b": 0}, BlastRadius(max_stops_per_run=10), hold_over=True
    )
    # 3 counted, 7 left over 4 projects: 1 each and 3 to the first three by id.
    assert split.allowances == {"a": 5, "b": 2, "c": 2, "d": 1}
    assert split.bound == 10 and split.hold is None and split.counted == 3


def test_every_project_not_counted_gets_at_least_one():
    projects = [f"p{i}" for i in range(5)]
    split = blast.split_ceiling(projects, {}, BlastRadius(max_stops_per_run=3), hold_over=True)
    assert split.allowances == dict.fromkeys(projects, 1)
    assert split.bound == 5  # the ceiling, plus one for each of the two raised from 0


def test_expired_counts_over_the_ceiling_hold_the_run():
    split = blast.split_ceiling(
        ["a", "b"], {"a": 2, "b": 2}, BlastRadius(max_stops_per_run=3), hold_over=True
    )
    assert split.allowances == {} and split.hold is not None and split.hold.retry is False
    assert split.hold.reason.startswith(
        "held: blast-radius ceiling: 4 stop(s) counted by Cloud Asset Inventory in 2 project(s)"
    )


def test_an_upper_bound_over_the_ceiling_is_shared_and_never_held():
    split = blast.split_ceiling(
        ["a", "b", "c", "z"],
        {"a": 30, "b": 1, "c": 0},
        BlastRadius(max_stops_per_run=10),
        hold_over=False,
    )
    assert split.hold is None
    assert split.allowances == {"a": 10, "b": 1, "c": 0, "z": 1}


def test_a_ceiling_of_zero_allows_no_stop_anywhere():
    split = blast.split_ceiling(
        ["a", "b"], {"a": 0}, BlastRadius(max_stops_per_run=0), hold_over=True
    )
    assert split.allowances == {"a": 0, "b": 0}


def test_the_split_uses_the_percent_of_the_estate_when_it_is_lower():
    limits = BlastRadius(max_stops_per_run=100, max_stop_percent=10)
    split = blast.split_ceiling(["a"], {"a": 1}, limits, running=25, hold_over=True)
    assert split.ceiling == 2 and split.allowances == {"a": 2}


# -- a search result -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("asset_type", "name", "kind"),
    [
        (
            "compute.googleapis.com/Instance",
            "//compute.googleapis.com/projects/p-1/zones/us-east1-b/instances/vm",
            "compute",
        ),
        (
            "tpu.googleapis.com/Node",
            "//tpu.googleapis.com/projects/p-1/locations/us-east1-b/nodes/vm",
            "tpu",
        ),
        (
            "notebooks.googleapis.com/Instance",
            "//notebooks.googleapis.com/projects/p-1/locations/us-east1-b/instances/vm",
            "notebook",
        ),
    ],
)
def test_a_workload_result_becomes_a_workload(asset_type, name, kind):
    raw = {"name": name, "assetType": asset_type, "state": "RUNNING", "labels": {"a": "b"}}
    w = parse.found_workload(raw)
    assert (w.kind, w.project, w.zone, w.name, w.state, dict(w.labels)) == (
        kind,
        "p-1",
        "us-east1-b",
        "vm",
        "RUNNING",
        {"a": "b"},
    )
    assert w.target == name


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ({"assetType": "compute.googleapis.com/Disk", "name": "x"}, "is not one of"),
        (
            {
                "assetType": "compute.googleapis.com/Instance",
                "name": "//compute.googleapis.com/projects/p/global/instances/x",
            },
            "is not a zonal",
        ),
    ],
)
def test_an_unexpected_result_is_a_parse_error(raw, why):
    with pytest.raises(parse.ParseError, match=why):
        parse.found_workload(raw)


# -- the search on the wire ----------------------------------------------------------------------


def test_the_workload_search_uses_documented_parameters_and_answers(cloud, monkeypatch):
    folder, topic = "folders/100", "projects/ops/topics/work"
    cloud.assets.add_folder(folder)
    cloud.assets.add_project(SCOPED, folder)
    cloud.compute.add(SCOPED, FAR, "vm", labels=EXPIRED)
    cloud.tpu.add(SCOPED, FAR, "tpu", labels=EXPIRED)
    cloud.notebooks.add(SCOPED, FAR, "nb", labels=EXPIRED)
    cloud.pubsub.add_topic(topic)
    monkeypatch.setenv("MLGOV_WORK_TOPIC", topic)
    set_policy(
        monkeypatch, scopes={folder: {"environment": "prod", "allow_billing_disable": False}}
    )

    post_report("reap_expired")

    searches = [
        (q, r)
        for q, r in cloud.server.exchanges
        if q.path.endswith(":searchAllResources")
        and "cloudresourcemanager.googleapis.com/Project" not in q.query["assetTypes"]
    ]
    [(request, reply)] = searches
    [method] = [
        m for verb, p, m in _methods("cloudasset") if verb == "GET" and p.fullmatch(request.path)
    ]
    for name in request.query:
        assert name in method["parameters"], f"{name} is not a parameter"
    _check("cloudasset", reply.body, method["response"], "searchAllResources response")
    names = sorted(r["name"] for r in reply.body["results"])
    assert names == [
        f"//compute.googleapis.com/projects/{SCOPED}/zones/{FAR}/instances/vm",
        f"//notebooks.googleapis.com/projects/{SCOPED}/locations/{FAR}/instances/nb",
        f"//tpu.googleapis.com/projects/{SCOPED}/locations/{FAR}/nodes/tpu",
    ]
    assert {r["state"] for r in reply.body["results"]} == {"RUNNING", "READY", "ACTIVE"}
