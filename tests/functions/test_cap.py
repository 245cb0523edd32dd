"""The cap's pure decisions (govern/cap.py) and the GKE values they rest on (govern/gke.py)."""

from __future__ import annotations

import json

import pytest

from govern import cap
from govern.actions import CapAutoprovisioning, CapNodePool, Skip, UndeployEndpoint
from govern.gke import Autoscaling, Cluster, NodePool, ResourceLimit
from govern.parse import action_policy
from govern.vertex import Endpoint, JobKind, VertexJob, region_of
from tests.functions.conftest import DEV, PROD, policy_dict

R = "us-central1"
POLICY = action_policy(json.dumps(policy_dict()))
OPTED = action_policy(json.dumps(policy_dict(undeploy_endpoints=True)))
AUTO = Autoscaling(True, 0, 16, total=True, location_policy="ANY")


def pool(name="gpu", **kw) -> NodePool:
    kw.setdefault("machine_type", "g2-standard-8")
    kw.setdefault("accelerators", 1)
    kw.setdefault("autoscaling", AUTO)
    return NodePool(DEV, R, "ml", name, **kw)


def cluster(*pools: NodePool, **kw) -> Cluster:
    return Cluster(DEV, kw.pop("location", R), "ml", node_pools=pools, **kw)


def _kinds(actions):
    return [(type(a).__name__, a.target.rsplit("/", 1)[-1]) for a in actions]


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        (pool(), "gpu"),
        (pool(machine_type="ct5lp-hightpu-4t", accelerators=0), "tpu"),
        (pool(machine_type="a3-highgpu-8g", accelerators=0), "gpu"),
        (pool(machine_type="e2-standard-4", accelerators=0), None),
    ],
)
def test_accelerator_kind(p, expected):
    assert p.accelerator_kind == expected


@pytest.mark.parametrize(
    ("autoscaling", "initial", "label"),
    [
        (AUTO, 0, "autoscale-total-0-16-any"),
        (Autoscaling(True, 1, 4), 0, "autoscale-zone-1-4"),
        (
            Autoscaling(True, 0, 8, total=True, location_policy="BALANCED"),
            0,
            "autoscale-total-0-8-balanced",
        ),
        (None, 3, "fixed-3"),
        (Autoscaling(False), 2, "fixed-2"),
    ],
)
def test_previous_settings_as_a_label_value(autoscaling, initial, label):
    value = pool(autoscaling=autoscaling, initial_node_count=initial).previous()
    assert value == label
    # GCP label rules: lowercase letters, digits, dashes; at most 63 characters.
    assert len(value) <= 63 and value == value.lower() and value.replace("-", "").isalnum()


@pytest.mark.parametrize(
    ("kw", "nodes", "label"),
    [
        ({}, 6, "autoscale-total-0-16-any-n6"),
        ({"autoscaling": Autoscaling(True, 1, 4)}, 0, "autoscale-zone-1-4-n0"),
        ({"autoscaling": None, "initial_node_count": 1}, 9, "fixed-n9"),
        ({"autoprovisioned": True}, 2, "autoscale-total-0-16-any-n2-nap"),
        ({"autoprovisioned": True}, None, "autoscale-total-0-16-any-nap"),
        (
            {
                "autoscaling": Autoscaling(
                    True, 0, 1000, location_policy="LOCATION_POLICY_UNSPECIFIED"
                )
            },
            1,
            "autoscale-zone-0-1000-n1",
        ),
    ],
)
def test_previous_settings_with_the_size_at_cap_time(kw, nodes, label):
    assert pool(**kw).previous(nodes) == label


def test_the_longest_pool_value_fits_a_label():
    big = Autoscaling(True, 2**31 - 1, 2**31 - 1, total=True, location_policy="BALANCED")
    value = pool(autoscaling=big, autoprovisioned=True).previous(2**31 - 1)
    assert len(value) <= 63, value


def test_a_pool_is_capped_once_its_last_step_is_done():
    labelled = {"mlgov-cap-prev": "autoscale-total-0-16-any-n6"}
    assert not pool().capped
    assert not pool(resource_labels=labelled).capped  # label written, autoscaling still on
    assert pool(resource_labels=labelled, autoscaling=Autoscaling(False)).capped
    # Fixed and NAP-made pools keep no size in their JSON: the action reads their groups.
    assert not pool(resource_labels={"mlgov-cap-prev": "fixed-n2"}, autoscaling=None).capped
    nap = {"mlgov-cap-prev": "autoscale-total-0-16-any-n6-nap"}
    assert not pool(resource_labels=nap, autoprovisioned=True).capped


def test_governed_cluster_pools_and_nap():
    c = cluster(
        pool("system", machine_type="e2-standard-4", accelerators=0),
        pool("gpu"),
        pool("exempt", resource_labels={"mlgov-exempt": "true"}),
        pool("done", resource_labels={"mlgov-cap-prev": "autoscale-zone-0-2"}, autoscaling=None),
        pool("fixed", resource_labels={"mlgov-cap-prev": "fixed-n1"}, autoscaling=None),
        node_autoprovisioning=True,
        limits=(ResourceLimit("cpu", 0, 64), ResourceLimit("nvidia-l4", 0, 8)),
    )
    plan = cap.cap_clusters([c], POLICY, "over budget")
    assert _kinds(plan.first) == [("CapAutoprovisioning", "ml")]
    assert _kinds(plan.later) == [
        ("Skip", "system"),
        ("CapNodePool", "gpu"),
        ("Skip", "exempt"),
        # Capped before: its JSON cannot say it is still empty (a hand resize keeps the label
        # and autoscaling off), so its action reads its size, as for a fixed pool.
        ("CapNodePool", "done"),
        ("CapNodePool", "fixed"),  # its action reads its size to tell whether it is done
    ]
    reasons = {a.target.rsplit("/", 1)[-1]: a.reason for a in plan.later}
    assert "system pool" in reasons["system"]
    assert "exempt" in reasons["exempt"]
    pools = {a.target.rsplit("/", 1)[-1]: a for a in plan.later if isinstance(a, CapNodePool)}
    assert pools["done"].needs_size and pools["fixed"].needs_size


@pytest.mark.parametrize(
    ("c", "kind", "why"),
    [
        (cluster(pool(), resource_labels={"mlgov-exempt": "true"}), Skip, "exempt"),
        (cluster(pool(), autopilot=True), cap.NotCapped, "Autopilot"),
        # An exempt Autopilot cluster is left alone by choice, not named as out of reach.
        (
            cluster(pool(), autopilot=True, resource_labels={"mlgov-exempt": "true"}),
            Skip,
            "exempt",
        ),
    ],
)
def test_exempt_and_autopilot_clusters_are_left_alone_whole(c, kind, why):
    plan = cap.cap_clusters([c], POLICY, "r")
    assert [type(a) for a in plan.first] == [kind] and plan.later == []
    assert why in plan.first[0].reason


def test_closed_nap_is_reported_and_clusters_elsewhere_are_not_considered():
    closed = cluster(node_autoprovisioning=True, limits=(ResourceLimit("nvidia-l4", 0, 0),))
    assert [a.reason for a in cap.cap_clusters([closed], POLICY, "r").first] == [
        "NAP accelerator limits already 0"
    ]
    # A cluster with accelerators in another region of a governed project is named (issue 29).
    elsewhere = cluster(pool(), location="europe-west4")
    outside = cap.cap_clusters([elsewhere], POLICY, "r")
    assert [type(a) for a in outside.first] == [cap.OutsideZones]
    assert outside.later == []
    system_only = cluster(
        pool(machine_type="e2-standard-4", accelerators=0), location="europe-west4"
    )
    assert cap.cap_clusters([system_only], POLICY, "r") == cap.CapPlan()


def test_nap_labels_keep_a_value_already_recorded():
    c = cluster(
        node_autoprovisioning=True,
        limits=(ResourceLimit("nvidia-l4", 0, 8), ResourceLimit("memory", 0, 256)),
        resource_labels={"mlgov-cap-nap-nvidia-l4": "0-32"},
    )
    assert c.nap_labels() == {"mlgov-cap-nap-nvidia-l4": "0-32"}
    assert c.capped_limits() == (ResourceLimit("nvidia-l4", 0, 0), ResourceLimit("memory", 0, 256))


def job(job_id, state="JOB_STATE_RUNNING", kind: JobKind = "customJobs", **kw) -> VertexJob:
    return VertexJob(kind, kw.pop("project", PROD), kw.pop("region", R), job_id, state, **kw)


def test_cancel_active_jobs_in_governed_regions():
    jobs = [
        job("run"),
        job("queued", "JOB_STATE_QUEUED"),
        job("tune", kind="hyperparameterTuningJobs"),
        job("exempt", labels={"mlgov-exempt": "true"}),
        job("done", "JOB_STATE_SUCCEEDED"),
        job("cancelling", "JOB_STATE_CANCELLING"),
        job("elsewhere", region="europe-west4"),
    ]
    assert _kinds(cap.cancel_jobs(jobs, POLICY, "r")) == [
        ("Skip", "exempt"),
        ("CancelCustomJob", "queued"),
        ("CancelCustomJob", "run"),
        ("CancelTuningJob", "tune"),
    ]


def test_endpoints_need_both_opt_ins():
    opted = Endpoint(PROD, R, "e1", {"mlgov-undeploy-at-cap": "true"}, ("1", "2"))
    serving = Endpoint(PROD, R, "e2", {}, ("3",))
    empty = Endpoint(PROD, R, "e3", {"mlgov-undeploy-at-cap": "true"}, ())
    assert cap.undeploy_endpoints([opted, serving, empty], POLICY, "r") == []
    actions = cap.undeploy_endpoints([opted, serving, empty], OPTED, "r")
    assert [type(a) for a in actions] == [UndeployEndpoint, Skip]
    assert "not opted in" in actions[1].reason


def test_cap_actions_name_the_project_they_spend_quota_in():
    p = pool()
    assert CapNodePool(p.target, "r", pool=p).project == DEV
    assert CapAutoprovisioning(cluster().target, "r", cluster=cluster()).project == DEV


@pytest.mark.parametrize(
    ("zone", "region"),
    [
        ("us-central1-a", "us-central1"),
        ("europe-west4", "europe-west4"),
        ("me-west1-b", "me-west1"),
    ],
)
def test_region_of(zone, region):
    assert region_of(zone) == region
