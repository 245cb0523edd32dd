"""Every VM that bills is in the cap's reach, and what it cannot reach is named (issue 19).

User-managed (Notebooks v1) notebook VMs: the v2 API never lists them, so they are stopped through
Compute (labels and metadata of tests/functions/data/get-v1-...-instances_1.json). Autopilot
clusters cannot be capped by node pools or NAP limits: the run names them in `not_capped` (the
recorded Autopilot cluster of tests/functions/data/gke-cluster-set-label/). End to end through
functions_framework against the fake cloud.
"""

from __future__ import annotations

import json

from govern import decide
from govern.actions import Skip, StopInstance, StopNotebook
from govern.models import Workload
from govern.parse import action_policy
from tests.functions.conftest import (
    CLUSTER,
    DATA,
    DEV,
    PROD,
    REGION,
    budget_data,
    log_lines,
    policy_dict,
    post_report,
    pubsub_event,
    seed_accelerators,
    seed_budget,
    send_event,
    user_managed_notebook_vm,
    workbench_vm,
)

A, B = "us-central1-a", "us-central1-b"
POLICY = action_policy(json.dumps(policy_dict()))


def _vm_target(name: str, zone: str = A) -> str:
    return f"//compute.googleapis.com/projects/{DEV}/zones/{zone}/instances/{name}"


def test_a_user_managed_notebook_vm_is_stopped_by_the_cap_through_compute(cloud, capsys):
    seed_budget(cloud)
    user_managed_notebook_vm(cloud, DEV, A, "instancetest")
    send_event(pubsub_event(budget_data(1.0, 1000)))
    assert cloud.compute.status(DEV, A, "instancetest") == "TERMINATED"
    stop = f"/compute/v1/projects/{DEV}/zones/{A}/instances/instancetest/stop"
    assert len(cloud.server.calls("POST", stop)) == 1
    # The Workbench instance's VM is still left to the Notebooks API.
    assert cloud.compute.status(DEV, A, "nb-vm") == "RUNNING"
    lines = {x["target"]: x for x in log_lines(capsys.readouterr().out) if "target" in x}
    assert lines[_vm_target("instancetest")]["outcome"] == "done"
    assert "user-managed notebook VM (Notebooks v1" in lines[_vm_target("instancetest")]["reason"]
    assert lines[_vm_target("nb-vm")]["reason"] == decide.WORKBENCH_VM


def test_a_notebook_vm_the_v2_api_lists_is_stopped_through_it_only(cloud):
    # Whatever its metadata says, a VM the Notebooks v2 API lists is stopped once, through it.
    seed_budget(cloud)
    user_managed_notebook_vm(cloud, DEV, B, "listed")
    cloud.notebooks.add(DEV, B, "listed")
    send_event(pubsub_event(budget_data(1.0, 1000)))
    assert cloud.notebooks.state(DEV, B, "listed") == "STOPPED"
    assert cloud.compute.status(DEV, B, "listed") == "RUNNING"


def test_an_expired_user_managed_notebook_vm_is_stopped(cloud):
    past = str(cloud.clock.wall().date().replace(day=1))
    user_managed_notebook_vm(cloud, DEV, A, "old-nb", labels={"mlgov-expires-on": past})
    workbench_vm(cloud, DEV, A, "wb-vm", labels={"mlgov-expires-on": past})
    report = post_report("reap_expired")
    outcome = {a["target"]: a["outcome"] for a in report["actions"]}
    assert outcome == {_vm_target("old-nb"): "done", _vm_target("wb-vm"): "skipped"}
    assert cloud.compute.status(DEV, A, "old-nb") == "TERMINATED"


def test_decide_tells_the_two_kinds_of_notebook_vm_apart():
    v1 = Workload("compute", DEV, A, "v1", "RUNNING", user_managed_notebook=True)
    listed = Workload("compute", DEV, A, "listed", "RUNNING", user_managed_notebook=True)
    instance = Workload("notebook", DEV, A, "listed", "ACTIVE")
    v2 = Workload("compute", DEV, A, "v2", "RUNNING", managed_by="workbench")
    actions = decide.stop_workloads([v1, listed, instance, v2], POLICY, "cap")
    assert {a.target: type(a) for a in actions} == {
        _vm_target("v1"): StopInstance,
        _vm_target("listed"): Skip,
        _vm_target("v2"): Skip,
        instance.target: StopNotebook,
    }


# -- Autopilot clusters: out of reach by design, and named --------------------------------------

RECORDED_CLUSTERS = json.loads(
    (DATA / "gke-cluster-set-label" / "get-v1-projects-cloud-custodian-locations---clusters_1.json")
    .read_text()
    .replace("cloud-custodian", PROD)
)["body"]["clusters"]


def _add_recorded_autopilot_cluster(cloud) -> str:
    """The recorded Autopilot cluster (with its NAP limits and pools), as GKE listed it."""
    [recorded] = [c for c in RECORDED_CLUSTERS if c.get("autopilot", {}).get("enabled")]
    cloud.container.clusters[(PROD, recorded["location"], recorded["name"])] = recorded
    return f"//container.googleapis.com/projects/{PROD}/locations/{recorded['location']}/clusters/{recorded['name']}"


def test_an_autopilot_cluster_is_named_in_not_capped_with_one_warning(cloud, capsys):
    seed_accelerators(cloud)
    autopilot = _add_recorded_autopilot_cluster(cloud)
    send_event(pubsub_event(budget_data(1.0, 1000)))
    # The standard cluster was capped; nothing was written to the Autopilot one.
    assert cloud.container.limits(PROD, REGION, CLUSTER)["nvidia-l4"] == (0, 0)
    name = autopilot.split("/projects/", 1)[1]
    assert [r.path for r in cloud.mutations() if name in r.path] == []
    lines = log_lines(capsys.readouterr().out)
    warnings = [x for x in lines if x["severity"] == "WARNING" and "not_capped" in x]
    assert len(warnings) == 1
    assert warnings[0]["not_capped"] == [autopilot]
    assert "Autopilot" in warnings[0]["message"]
    summary = lines[-1]
    assert summary["summary"] is True
    assert summary["not_capped"] == [autopilot]
    assert summary["answer"] == "acknowledged"  # out of reach by design is not a failure


def test_without_autopilot_clusters_not_capped_is_empty(cloud, capsys):
    seed_accelerators(cloud)
    send_event(pubsub_event(budget_data(1.0, 1000)))
    lines = log_lines(capsys.readouterr().out)
    assert lines[-1]["not_capped"] == []
    assert not [x for x in lines if x["severity"] == "WARNING" and "not_capped" in x]


# -- what runs outside the governed zones: named, never skipped without a trace (issue 29) ------


def test_a_vm_running_outside_the_governed_zones_is_named_in_not_capped(cloud, capsys):
    # The budget scenario's "5 done + 1 unlink" run used to leave vm-elsewhere (a running VM of a
    # governed project, in a zone the policy does not list) out of the report altogether.
    seed_budget(cloud)
    send_event(pubsub_event(budget_data(1.2, 1200)))
    elsewhere = _vm_target("vm-elsewhere", "europe-west4-a")
    assert cloud.compute.status(DEV, "europe-west4-a", "vm-elsewhere") == "RUNNING"
    lines = log_lines(capsys.readouterr().out)
    summary = lines[-1]
    assert summary["not_capped"] == [elsewhere]
    assert "1 not capped" in summary["message"]
    [line] = [x for x in lines if x.get("target") == elsewhere]
    assert line["outcome"] == "skipped"
    assert (
        "outside the governed zones of acme-ml-dev (us-central1-a, us-central1-b)"
        in (line["reason"])
    )
    [warning] = [x for x in lines if x["severity"] == "WARNING" and "not_capped" in x]
    assert warning["not_capped"] == [elsewhere]


def test_a_gpu_cluster_outside_the_governed_regions_is_named_in_not_capped(cloud, capsys):
    seed_accelerators(cloud)
    cloud.container.add_cluster(PROD, "europe-west4", "eu-ml")
    cloud.container.add_pool(
        PROD, "europe-west4", "eu-ml", "l4", machine_type="g2-standard-8", gpus=1, nodes=2
    )
    cloud.container.add_cluster(PROD, "europe-west1", "eu-cpu")
    cloud.container.add_pool(PROD, "europe-west1", "eu-cpu", "system", nodes=1)
    send_event(pubsub_event(budget_data(1.0, 1000)))
    summary = log_lines(capsys.readouterr().out)[-1]
    eu = f"//container.googleapis.com/projects/{PROD}/locations/europe-west4/clusters/eu-ml"
    assert summary["not_capped"] == [eu]  # the CPU-only cluster holds nothing the cap acts on
    assert not [r for r in cloud.mutations() if "/europe-west4/" in r.path]
