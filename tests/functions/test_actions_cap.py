"""The cap's action kinds on memory ports: the order of their writes, what they keep, the report.

Run through execute.apply, so each outcome is the one a report carries.
"""

from __future__ import annotations

import json

from govern import execute
from govern.actions import (
    Action,
    CancelCustomJob,
    CancelTuningJob,
    CapAutoprovisioning,
    CapNodePool,
    UndeployEndpoint,
)
from govern.gke import Autoscaling, Cluster, NodePool, ResourceLimit
from govern.models import ActionPolicy, Result
from govern.vertex import Endpoint, VertexJob
from tests.fakegcp.clock import FakeClock
from tests.functions.conftest import DEV, policy_dict
from tests.functions.memory import MemoryCloud, MemoryPorts

R = "us-central1"
AUTO = Autoscaling(True, 0, 16, total=True, location_policy="ANY")


def _run(action: Action, cloud: MemoryCloud, dry_run: bool = False) -> Result:
    runner = execute.Runner(ActionPolicy.from_json(json.dumps(policy_dict())), FakeClock())
    [result] = execute.apply([action], MemoryPorts(cloud), runner, "test", dry_run=dry_run)
    return result


def _with(*pools: NodePool, **kw) -> tuple[MemoryCloud, Cluster]:
    c = Cluster(DEV, R, "ml", node_pools=pools, **kw)
    return MemoryCloud(clusters={c.path: c}), c


def _writes(cloud: MemoryCloud) -> list[str]:
    return [m.split(".", 1)[1] for m, _ in cloud.calls if m.startswith("container.set")]


def test_an_autoscaled_pool_is_labelled_then_emptied_then_frozen():
    p = NodePool(DEV, R, "ml", "l4", "g2-standard-8", 1, AUTO, resource_labels={"team": "x"})
    cloud, _ = _with(p)
    result = _run(CapNodePool(p.target, "over budget", pool=p), cloud)
    assert result.outcome == "done"
    assert "was autoscale-total-0-16-any" in result.reason
    assert _writes(cloud) == ["set_pool_labels", "set_pool_size", "set_pool_autoscaling"]
    assert cloud.called("container.set_pool_labels") == [
        ("l4", {"team": "x", "mlgov-cap-prev": "autoscale-total-0-16-any"})
    ]
    assert cloud.pool_sizes[p.path] == 0
    assert cloud.called("container.set_pool_autoscaling") == [("l4", Autoscaling(False))]


def test_a_fixed_pool_is_emptied_then_labelled():
    p = NodePool(DEV, R, "ml", "t4", "n1-standard-8", 2, None, initial_node_count=2)
    cloud, _ = _with(p)
    _run(CapNodePool(p.target, "r", pool=p), cloud)
    assert _writes(cloud) == ["set_pool_size", "set_pool_labels"]
    [(_name, labels)] = cloud.called("container.set_pool_labels")
    assert labels == {"mlgov-cap-prev": "fixed-2"}


def test_a_nap_pool_keeps_its_autoscaling():
    p = NodePool(DEV, R, "ml", "nap-l4", "g2-standard-8", 1, AUTO, autoprovisioned=True)
    cloud, _ = _with(p)
    result = _run(CapNodePool(p.target, "r", pool=p), cloud)
    assert _writes(cloud) == ["set_pool_size", "set_pool_labels"]
    assert "NAP" in result.reason


def test_an_interrupted_pool_keeps_the_label_it_wrote_first():
    labels = {"mlgov-cap-prev": "autoscale-total-0-16-any"}
    p = NodePool(DEV, R, "ml", "l4", "g2-standard-8", 1, AUTO, resource_labels=labels)
    cloud, _ = _with(p)
    _run(CapNodePool(p.target, "r", pool=p), cloud)
    assert _writes(cloud) == ["set_pool_size", "set_pool_autoscaling"]


def test_nap_limits_are_recorded_then_closed():
    cloud, c = _with(
        node_autoprovisioning=True,
        limits=(ResourceLimit("cpu", 0, 64), ResourceLimit("nvidia-l4", 0, 8)),
        resource_labels={"team": "x"},
    )
    result = _run(CapAutoprovisioning(c.target, "r", cluster=c), cloud)
    assert result.outcome == "done" and "nvidia-l4 0-8" in result.reason
    assert _writes(cloud) == ["set_cluster_labels", "set_resource_limits"]
    assert cloud.clusters[c.path].resource_labels == {
        "team": "x",
        "mlgov-cap-nap-nvidia-l4": "0-8",
    }
    assert cloud.clusters[c.path].limits == (
        ResourceLimit("cpu", 0, 64),
        ResourceLimit("nvidia-l4", 0, 0),
    )


def test_nap_labels_already_written_are_not_written_again():
    cloud, c = _with(
        node_autoprovisioning=True,
        limits=(ResourceLimit("nvidia-l4", 0, 8),),
        resource_labels={"mlgov-cap-nap-nvidia-l4": "0-8"},
    )
    _run(CapAutoprovisioning(c.target, "r", cluster=c), cloud)
    assert _writes(cloud) == ["set_resource_limits"]


def test_jobs_are_cancelled_through_the_vertex_port():
    jobs = [
        VertexJob("customJobs", DEV, R, "j1", "JOB_STATE_RUNNING"),
        VertexJob("hyperparameterTuningJobs", DEV, R, "h1", "JOB_STATE_PENDING"),
    ]
    cloud = MemoryCloud(jobs=list(jobs))
    assert _run(CancelCustomJob(jobs[0].target, "r", job=jobs[0]), cloud).outcome == "done"
    assert _run(CancelTuningJob(jobs[1].target, "r", job=jobs[1]), cloud).outcome == "done"
    assert {j.state for j in cloud.jobs} == {"JOB_STATE_CANCELLING"}


def test_an_endpoint_moves_traffic_to_its_last_model_while_undeploying():
    e = Endpoint(DEV, R, "e1", {}, ("1", "2", "3"), {"1": 50, "2": 30, "3": 20})
    cloud = MemoryCloud(endpoints=[e])
    result = _run(UndeployEndpoint(e.target, "r", endpoint=e), cloud)
    assert result.outcome == "done" and "3 model(s)" in result.reason
    assert cloud.called("vertex.undeploy_model") == [
        ("e1", "1", {"3": 100}),
        ("e1", "2", {"3": 100}),
        ("e1", "3", {}),
    ]


def test_dry_run_simulates_every_cap_kind_without_a_call():
    p = NodePool(DEV, R, "ml", "l4", "g2-standard-8", 1, AUTO)
    cloud, c = _with(p, node_autoprovisioning=True, limits=(ResourceLimit("nvidia-l4", 0, 8),))
    job = VertexJob("customJobs", DEV, R, "j1", "JOB_STATE_RUNNING")
    e = Endpoint(DEV, R, "e1", {}, ("1",))
    for action in (
        CapNodePool(p.target, "r", pool=p),
        CapAutoprovisioning(c.target, "r", cluster=c),
        CancelCustomJob(job.target, "r", job=job),
        UndeployEndpoint(e.target, "r", endpoint=e),
    ):
        assert _run(action, cloud, dry_run=True).outcome == "simulated"
    assert cloud.calls == []
