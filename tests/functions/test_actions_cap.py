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
from govern.ports import Conflict
from govern.vertex import DeployedModel, Endpoint, VertexJob
from governance.fakecloud.clock import FakeClock
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
    return [
        m.split(".", 1)[1]
        for m, _ in cloud.calls
        if m.startswith(("container.set", "container.request"))
    ]


def test_an_autoscaled_pool_is_labelled_then_emptied_then_frozen():
    p = NodePool(DEV, R, "ml", "l4", "g2-standard-8", 1, AUTO, resource_labels={"team": "x"})
    cloud, _ = _with(p)
    result = _run(CapNodePool(p.target, "over budget", pool=p), cloud)
    assert result.outcome == "done"
    assert "was autoscale-total-0-16-any" in result.reason
    assert _writes(cloud) == ["set_pool_labels", "request_pool_size", "set_pool_autoscaling"]
    assert cloud.called("container.set_pool_labels") == [
        ("l4", {"team": "x", "mlgov-cap-prev": "autoscale-total-0-16-any"})
    ]
    assert cloud.pool_sizes[p.path] == 0
    assert cloud.called("container.set_pool_autoscaling") == [("l4", Autoscaling(False))]


def test_an_autoscaled_pool_records_its_size_at_cap_time():
    p = NodePool(DEV, R, "ml", "l4", "g2-standard-8", 1, AUTO)
    cloud, _ = _with(p)
    assert _run(CapNodePool(p.target, "r", pool=p, nodes=6), cloud).outcome == "done"
    [(_name, labels)] = cloud.called("container.set_pool_labels")
    assert labels == {"mlgov-cap-prev": "autoscale-total-0-16-any-n6"}


def test_a_fixed_pool_is_labelled_with_its_size_now_not_its_initial_count():
    p = NodePool(DEV, R, "ml", "t4", "n1-standard-8", 2, None, initial_node_count=2)
    cloud, _ = _with(p)
    _run(CapNodePool(p.target, "r", pool=p, nodes=6), cloud)  # resized since creation
    # Label first: a redelivery after a crash before the resize still has the size.
    assert _writes(cloud) == ["set_pool_labels", "request_pool_size"]
    [(_name, labels)] = cloud.called("container.set_pool_labels")
    assert labels == {"mlgov-cap-prev": "fixed-n6"}


def test_a_labelled_fixed_pool_still_sized_is_emptied_and_keeps_its_label():
    labels = {"mlgov-cap-prev": "fixed-n6"}
    p = NodePool(DEV, R, "ml", "t4", "n1-standard-8", 2, None, resource_labels=labels)
    cloud, _ = _with(p)
    assert _run(CapNodePool(p.target, "r", pool=p, nodes=6), cloud).outcome == "done"
    assert _writes(cloud) == ["request_pool_size"]


def test_a_labelled_fixed_pool_already_empty_is_skipped_without_a_write():
    labels = {"mlgov-cap-prev": "fixed-n6"}
    p = NodePool(DEV, R, "ml", "t4", "n1-standard-8", 2, None, resource_labels=labels)
    cloud, _ = _with(p)
    result = _run(CapNodePool(p.target, "r", pool=p, nodes=0), cloud)
    assert (result.outcome, _writes(cloud)) == ("skipped", [])
    assert "already capped" in result.reason


def test_an_unknown_size_does_not_stop_the_cap():
    p = NodePool(DEV, R, "ml", "t4", "n1-standard-8", 2, None, initial_node_count=2)
    cloud, _ = _with(p)
    action = CapNodePool(p.target, "r", pool=p, size_note="HTTP 403 denied")
    result = _run(action, cloud)
    assert result.outcome == "done"
    assert "size at cap time is unknown (HTTP 403 denied)" in result.reason
    assert cloud.pool_sizes[p.path] == 0
    [(_name, labels)] = cloud.called("container.set_pool_labels")
    assert labels == {"mlgov-cap-prev": "fixed-2"}  # the old format: restore falls back


def test_a_nap_pool_keeps_its_autoscaling_and_says_it_was_nap_made():
    p = NodePool(DEV, R, "ml", "nap-l4", "g2-standard-8", 1, AUTO, autoprovisioned=True)
    cloud, _ = _with(p)
    result = _run(CapNodePool(p.target, "r", pool=p, nodes=2), cloud)
    assert _writes(cloud) == ["set_pool_labels", "request_pool_size"]
    [(_name, labels)] = cloud.called("container.set_pool_labels")
    assert labels == {"mlgov-cap-prev": "autoscale-total-0-16-any-n2-nap"}
    assert "NAP" in result.reason


def test_an_interrupted_pool_keeps_the_label_it_wrote_first():
    labels = {"mlgov-cap-prev": "autoscale-total-0-16-any-n6"}
    p = NodePool(DEV, R, "ml", "l4", "g2-standard-8", 1, AUTO, resource_labels=labels)
    cloud, _ = _with(p)
    action = CapNodePool(p.target, "r", pool=p)
    assert not action.needs_size  # its label already holds the size
    _run(action, cloud)
    assert _writes(cloud) == ["request_pool_size", "set_pool_autoscaling"]


def test_a_pool_write_conflict_fails_the_cap_never_skips_it():
    p = NodePool(DEV, R, "ml", "l4", "g2-standard-8", 1, AUTO)
    cloud, _ = _with(p)
    cloud.errors[("container.request_pool_size", "l4")] = Conflict("HTTP 409 changed")
    result = _run(CapNodePool(p.target, "r", pool=p), cloud)
    assert result.outcome == "failed" and "NOT capped" in result.reason


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


def test_nap_limits_still_conflicting_after_fresh_reads_fail_the_cap():
    cloud, c = _with(node_autoprovisioning=True, limits=(ResourceLimit("nvidia-l4", 0, 8),))
    cloud.errors[("container.set_cluster_labels", "ml")] = Conflict("fingerprint mismatch")
    result = _run(CapAutoprovisioning(c.target, "r", cluster=c), cloud)
    assert result.outcome == "failed" and "NOT closed" in result.reason
    assert len(cloud.called("container.get_cluster")) == 3
    assert cloud.called("container.set_resource_limits") == []


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


def _model(model_id: str, **kw) -> DeployedModel:
    kw.setdefault("model", f"projects/{DEV}/locations/{R}/models/{model_id}00")
    kw.setdefault("version", "2")
    kw.setdefault("resources", "dedicated")
    kw.setdefault("machine_type", "g2-standard-8")
    kw.setdefault("accelerator_type", "NVIDIA_L4")
    kw.setdefault("accelerator_count", 1)
    kw.setdefault("min_replicas", 1)
    kw.setdefault("max_replicas", 3)
    return DeployedModel(model_id, **kw)


def test_an_endpoint_records_each_deployment_before_undeploying_it():
    models = (
        _model("11"),
        _model("12", machine_type="n1-standard-4", accelerator_type="", accelerator_count=0),
    )
    e = Endpoint(
        DEV, R, "e1", {"team": "x"}, ("11", "12"), {"11": 70, "12": 30}, models=models, etag="e-1"
    )
    cloud = MemoryCloud(endpoints=[e])
    result = _run(UndeployEndpoint(e.target, "r", endpoint=e), cloud)
    assert result.outcome == "done" and "kept in labels mlgov-cap-dm-*" in result.reason
    # Each undeploy is confirmed by its operation before the next is requested.
    assert [m for m, _ in cloud.calls] == [
        "vertex.set_endpoint_labels",
        "vertex.undeploy_model",
        "vertex.wait_operation",
        "vertex.undeploy_model",
        "vertex.wait_operation",
    ]
    assert cloud.called("vertex.wait_operation") == [(R, "operation-11"), (R, "operation-12")]
    assert cloud.endpoints[0].labels == {
        "team": "x",
        "mlgov-cap-dm-11": "70_d1-3_g2-standard-8_nvidia-l4_1",
        "mlgov-cap-dm-11-m": "2__1100",
        "mlgov-cap-dm-12": "30_d1-3_n1-standard-4__0",
        "mlgov-cap-dm-12-m": "2__1200",
    }


def test_a_redelivered_undeploy_keeps_the_first_record():
    # The first delivery recorded both, undeployed 11 (moving its traffic to 12), then died.
    first = {
        "mlgov-cap-dm-11": "70_d1-3_g2-standard-8_nvidia-l4_1",
        "mlgov-cap-dm-11-m": "2__1100",
        "mlgov-cap-dm-12": "30_d1-3_g2-standard-8_nvidia-l4_1",
        "mlgov-cap-dm-12-m": "2__1200",
    }
    e = Endpoint(DEV, R, "e1", first, ("12",), {"12": 100}, models=(_model("12"),))
    cloud = MemoryCloud(endpoints=[e])
    assert _run(UndeployEndpoint(e.target, "r", endpoint=e), cloud).outcome == "done"
    assert cloud.called("vertex.set_endpoint_labels") == []
    assert cloud.endpoints[0].labels == first


def test_a_deployment_labels_cannot_hold_is_undeployed_and_reported():
    shared = _model("13", resources="shared")
    elsewhere = _model("14", model="projects/other-proj/locations/us-central1/models/9")
    e = Endpoint(DEV, R, "e1", {}, ("13", "14"), {"13": 100}, models=(shared, elsewhere))
    cloud = MemoryCloud(endpoints=[e])
    result = _run(UndeployEndpoint(e.target, "r", endpoint=e), cloud)
    assert result.outcome == "done"
    assert "restore cannot deploy 13: model 1300@2 on g2-standard-8 + 1 NVIDIA_L4" in result.reason
    assert "shared deployment resource pool" in result.reason
    assert "another project (other-proj)" in result.reason
    assert len(cloud.called("vertex.undeploy_model")) == 2


def test_an_endpoint_that_keeps_changing_is_still_undeployed_with_what_it_was():
    e = Endpoint(DEV, R, "e1", {}, ("11",), {"11": 100}, models=(_model("11"),))
    cloud = MemoryCloud(endpoints=[e])
    cloud.errors[("vertex.set_endpoint_labels", "e1")] = Conflict("etag mismatch")
    result = _run(UndeployEndpoint(e.target, "r", endpoint=e), cloud)
    assert result.outcome == "done"
    assert "NOT recorded for restore" in result.reason
    assert "11: model 1100@2 on g2-standard-8 + 1 NVIDIA_L4, 1-3 replicas, 100%" in result.reason
    assert len(cloud.called("vertex.get_endpoint")) == 3


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
