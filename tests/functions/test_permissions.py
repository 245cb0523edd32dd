"""Each function's IAM permissions equal what its flow really calls, as Google documents it.

Every entry point runs end to end (functions_framework, real clients) against the fake cloud in
a scenario that takes every branch that calls an API; governance/fakecloud/iam.py maps each REST call
the fake saw to its documented permission. The union must equal the declared PERMISSIONS (a
function's role holds exactly what its code calls, nothing kept for history), and a dry run must
need exactly the flow's declared reads. A flow that starts calling something undeclared, or stops calling
something it is granted, fails here.
"""

from __future__ import annotations

from datetime import timedelta

import main
import pytest

from govern.flows import FLOWS
from govern.permissions import GRANTED_ELSEWHERE, PERMISSIONS
from governance.fakecloud import iam
from tests.functions import test_spend_caps as spend_caps
from tests.functions.conftest import (
    BUDGET,
    DEV,
    PROD,
    app_client,
    budget_data,
    budget_dict,
    post_report,
    pubsub_event,
    send_event,
    set_policy,
    workbench_vm,
)

A, B = "us-central1-a", "us-central1-b"
FLOW = {flow.entry_point: flow for flow in FLOWS}

# The permissions pinned by hand; each one's source is beside its Read (govern/ports.py) or
# its action kind (govern/actions/).
EXPECTED = {
    "on_budget_alert": (
        "aiplatform.customJobs.cancel",
        "aiplatform.customJobs.list",
        "aiplatform.endpoints.get",
        "aiplatform.endpoints.list",
        "aiplatform.endpoints.undeploy",
        "aiplatform.endpoints.update",
        "aiplatform.hyperparameterTuningJobs.cancel",
        "aiplatform.hyperparameterTuningJobs.list",
        "aiplatform.operations.get",
        "billing.resourcebudgets.read",
        "cloudasset.assets.searchAllResources",
        "compute.instanceGroupManagers.get",
        "compute.instances.get",
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "container.clusters.get",
        "container.clusters.list",
        "container.clusters.update",
        "container.operations.get",
        "notebooks.instances.list",
        "notebooks.instances.stop",
        "notebooks.operations.get",
        "pubsub.topics.publish",
        "resourcemanager.projects.deleteBillingAssignment",
        "resourcemanager.projects.get",
        "tpu.nodes.list",
        "tpu.nodes.stop",
        "tpu.operations.get",
        "tpu.queuedResources.delete",
        "tpu.queuedResources.list",
    ),
    "reap_idle_vms": (
        "cloudasset.assets.searchAllResources",
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "pubsub.topics.publish",
        "recommender.computeInstanceIdleResourceRecommendations.list",
        "recommender.computeInstanceIdleResourceRecommendations.update",
    ),
    "reap_expired": (
        "cloudasset.assets.searchAllResources",
        "compute.instances.get",
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "notebooks.instances.list",
        "notebooks.instances.stop",
        "notebooks.operations.get",
        "pubsub.topics.publish",
        "tpu.nodes.list",
        "tpu.nodes.stop",
        "tpu.operations.get",
    ),
    "reap_idle_gpus": (
        "cloudasset.assets.searchAllResources",
        "compute.instances.get",
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "monitoring.timeSeries.list",
        "notebooks.instances.stop",
        "notebooks.operations.get",
        "pubsub.topics.publish",
        "tpu.nodes.list",
        "tpu.nodes.stop",
        "tpu.operations.get",
    ),
    # One project's part of any of the four, never a search, a publish or a spend cap read.
    "on_work_item": (
        "aiplatform.customJobs.cancel",
        "aiplatform.customJobs.list",
        "aiplatform.endpoints.get",
        "aiplatform.endpoints.list",
        "aiplatform.endpoints.undeploy",
        "aiplatform.endpoints.update",
        "aiplatform.hyperparameterTuningJobs.cancel",
        "aiplatform.hyperparameterTuningJobs.list",
        "aiplatform.operations.get",
        "compute.instanceGroupManagers.get",
        "compute.instances.get",
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "container.clusters.get",
        "container.clusters.list",
        "container.clusters.update",
        "container.operations.get",
        "monitoring.timeSeries.list",
        "notebooks.instances.list",
        "notebooks.instances.stop",
        "notebooks.operations.get",
        "recommender.computeInstanceIdleResourceRecommendations.list",
        "recommender.computeInstanceIdleResourceRecommendations.update",
        "resourcemanager.projects.deleteBillingAssignment",
        "resourcemanager.projects.get",
        "tpu.nodes.list",
        "tpu.nodes.stop",
        "tpu.operations.get",
        "tpu.queuedResources.delete",
        "tpu.queuedResources.list",
    ),
    "on_dead_letter": (),  # it only logs
}
# Policy keys a scenario needs to take every branch (undeploying endpoints is opt-in).
BUDGET_POLICY = {"undeploy_endpoints": True, "spend_caps": spend_caps.CAPS}
SCENARIO_POLICY = {"on_budget_alert": BUDGET_POLICY, "on_work_item": BUDGET_POLICY}


def _budget_alert(cloud) -> None:
    cloud.compute.add(DEV, A, "vm")
    # A VM an earlier stop left STOPPING is read again until it stopped (instances.get).
    cloud.compute.add(DEV, A, "vm-stopping", status="STOPPING")
    cloud.compute.stopping[(DEV, A, "vm-stopping")] = 0
    cloud.notebooks.add(DEV, A, "nb")
    cloud.tpu.add(DEV, B, "tpu")
    cloud.tpu.add_queued(DEV, B, "tpu-waiting")  # queued capacity: withdrawn
    cloud.billing.add(DEV)  # allow_billing_disable: true
    cloud.billing.add(PROD)
    cloud.container.add_cluster(DEV, "us-central1", "ml", nap={"cpu": (0, 64), "nvidia-l4": (0, 8)})
    cloud.container.add_pool(DEV, "us-central1", "ml", "system", nodes=1)
    cloud.container.add_pool(
        DEV,
        "us-central1",
        "ml",
        "l4",
        machine_type="g2-standard-8",
        gpus=1,
        autoscaling={"enabled": True, "totalMinNodeCount": 0, "totalMaxNodeCount": 4},
        nodes=2,
    )
    cloud.vertex.add_job(DEV, "us-central1", "train-1")
    cloud.vertex.add_job(DEV, "us-central1", "hpt-1", kind="hyperparameterTuningJobs")
    cloud.vertex.add_endpoint(
        DEV, "us-central1", "e1", models={"1": 100}, labels={"mlgov-undeploy-at-cap": "true"}
    )
    # Someone relabels the cluster and the endpoint just before the cap writes its marks: the
    # fresh reads after the conflicts (clusters.get, endpoints.get) are taken too.
    cloud.container.races = 1
    cloud.vertex.races = 1
    send_event(pubsub_event(budget_data(1.2, 1200)))
    # A spend cap's alerts-only budget: the cap's state is read (and nothing done).
    spend_caps.seed_cap(cloud, "ENFORCED")
    send_event(spend_caps.pair_alert(2100.0, 1.0))


def _reap_idle_vms(cloud) -> None:
    cloud.compute.add(DEV, A, "idle")
    cloud.recommender.add(DEV, A, "idle")
    post_report("reap_idle_vms")


def _reap_expired(cloud) -> None:
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.compute.add(DEV, A, "vm", labels={"mlgov-expires-on": past})
    cloud.compute.add(DEV, A, "vm-stopping", labels={"mlgov-expires-on": past}, status="STOPPING")
    cloud.compute.stopping[(DEV, A, "vm-stopping")] = 0
    cloud.notebooks.add(DEV, A, "nb", labels={"mlgov-expires-on": past})
    cloud.tpu.add(DEV, B, "tpu", labels={"mlgov-expires-on": past})
    post_report("reap_expired")


def _reap_idle_gpus(cloud) -> None:
    vm = cloud.compute.add(DEV, A, "gpu", gpus=1, labels={"workload": "training"})
    cloud.compute.add(
        DEV, A, "gpu-stopping", gpus=1, labels={"workload": "training"}, status="STOPPING"
    )
    cloud.compute.stopping[(DEV, A, "gpu-stopping")] = 0
    nb = workbench_vm(cloud, DEV, B, "nb-gpu", gpus=1, labels={"workload": "notebook"})
    cloud.notebooks.add(DEV, B, "nb-gpu", gpus=1, labels={"workload": "notebook"})
    cloud.monitoring.set(DEV, vm["id"], 0.0)
    cloud.monitoring.set(DEV, nb["id"], 0.0)
    cloud.tpu.add(DEV, B, "tpu", labels={"workload": "training"})
    cloud.monitoring.set_tpu(DEV, "tpu", 0.0)
    post_report("reap_idle_gpus")


DISPATCHERS = {
    "on_budget_alert": _budget_alert,
    "reap_idle_vms": _reap_idle_vms,
    "reap_expired": _reap_expired,
    "reap_idle_gpus": _reap_idle_gpus,
}
FOLDER, TOPIC = "folders/100", "projects/acme-ops/topics/acme-work"


def _at_org_scale(cloud, monkeypatch, entry_point: str, policy: dict) -> None:
    """The dispatcher once more, with a folder scope and fan-out on: it searches and publishes."""
    cloud.assets.add_folder(FOLDER)
    cloud.assets.add_project("ml-scoped", FOLDER)
    cloud.pubsub.add_topic(TOPIC)
    monkeypatch.setenv("MLGOV_WORK_TOPIC", TOPIC)
    scope = {FOLDER: {"environment": "prod", "allow_billing_disable": False}}
    budget = {BUDGET: budget_dict(scopes=[FOLDER])}
    set_policy(monkeypatch, **policy, scopes=scope, budgets=budget)
    if entry_point == "on_budget_alert":
        send_event(pubsub_event(budget_data(1.0, 1000)))
    else:
        post_report(entry_point)
    assert cloud.server.calls("POST", ":publish")


def _work_items(cloud, monkeypatch, policy: dict) -> int:
    """Each dispatcher's scenario fanned out, its items done by on_work_item.

    The index of the first call a worker made: what comes before is the dispatchers'.
    """
    cloud.pubsub.add_topic(TOPIC)
    monkeypatch.setenv("MLGOV_WORK_TOPIC", TOPIC)
    worker = app_client("on_work_item", "cloudevent")
    first = None
    for scenario in DISPATCHERS.values():
        published = len(cloud.pubsub.messages[TOPIC])
        scenario(cloud)
        first = len(cloud.server.calls()) if first is None else first
        for message in cloud.pubsub.messages[TOPIC][published:]:
            body = {"message": message, "subscription": "projects/acme-ops/subscriptions/w"}
            assert worker.post("/", json=body).status_code == 200
    return first or 0


def _dead_letter(cloud) -> None:
    body = {
        "message": {
            "data": "",
            "attributes": {"CloudPubSubDeadLetterSourceDeliveryCount": "5"},
            "messageId": "1",
        },
        "subscription": "projects/acme-ops/subscriptions/dead",
    }
    assert app_client("on_dead_letter", "cloudevent").post("/", json=body).status_code == 200


def _run(entry_point: str, cloud, monkeypatch, policy: dict) -> list:
    """Run an entry point's scenario; the REST calls it made."""
    if entry_point in DISPATCHERS:
        DISPATCHERS[entry_point](cloud)
        _at_org_scale(cloud, monkeypatch, entry_point, policy)
        return cloud.server.calls()
    if entry_point == "on_work_item":
        since = _work_items(cloud, monkeypatch, policy)
        # The workers' calls only (the dispatchers publish; workers never do).
        return [r for r in cloud.server.calls()[since:] if not r.path.endswith(":publish")]
    _dead_letter(cloud)
    return cloud.server.calls()


SCENARIOS = (*DISPATCHERS, "on_work_item", "on_dead_letter")


def test_permissions_are_pinned():
    assert PERMISSIONS == EXPECTED


@pytest.mark.parametrize("entry_point", sorted(SCENARIOS))
def test_declared_permissions_equal_the_documented_permissions_of_the_calls_made(
    cloud, monkeypatch, entry_point
):
    policy = SCENARIO_POLICY.get(entry_point, {})
    set_policy(monkeypatch, **policy)
    calls = _run(entry_point, cloud, monkeypatch, policy)
    if PERMISSIONS[entry_point]:
        assert [r for r in calls if r.method != "GET"], "the scenario must act"
    assert iam.permissions(calls) == set(PERMISSIONS[entry_point])


@pytest.mark.parametrize("entry_point", sorted(SCENARIOS))
def test_a_dry_run_needs_exactly_the_declared_reads(cloud, monkeypatch, entry_point):
    policy = {"dry_run": True, **SCENARIO_POLICY.get(entry_point, {})}
    set_policy(monkeypatch, **policy)
    calls = _run(entry_point, cloud, monkeypatch, policy)
    # A dispatcher publishes work items even in a dry run (the items carry it to the workers).
    assert [r.path for r in calls if r.method != "GET" and not r.path.endswith(":publish")] == []
    reads = {p for read in FLOW[entry_point].reads for p in read.permissions}
    assert iam.permissions(calls) == reads


def test_unknown_calls_are_errors_not_guesses():
    from governance.fakecloud.server import Request

    with pytest.raises(iam.UnknownCall, match="DELETE /compute/v1/projects/p/zones/z/instances/i"):
        iam.permission(
            Request("DELETE", "/compute/v1/projects/p/zones/z/instances/i", {}, None, {})
        )


def test_linking_billing_is_not_mistaken_for_unlinking():
    from governance.fakecloud.server import Request

    def put(body):
        return iam.permission(Request("PUT", "/v1/projects/p/billingInfo", {}, body, {}))

    assert put({}) == "resourcemanager.projects.deleteBillingAssignment"
    assert put({"billingAccountName": "billingAccounts/X"}) == (
        "resourcemanager.projects.createBillingAssignment"
    )


def test_every_entry_point_has_permissions():
    names = (
        "on_budget_alert",
        "reap_idle_vms",
        "reap_expired",
        "reap_idle_gpus",
        "on_work_item",
        "on_dead_letter",
    )
    entry_points = {name for name in names if callable(getattr(main, name, None))}
    assert entry_points == set(PERMISSIONS) == set(SCENARIOS)


def test_org_scale_permissions_are_granted_where_they_apply():
    dispatchers = {e for e, perms in PERMISSIONS.items() if "pubsub.topics.publish" in perms}
    assert dispatchers == set(DISPATCHERS)
    assert set(GRANTED_ELSEWHERE) == {
        "cloudasset.assets.searchAllResources",
        "pubsub.topics.publish",
    }
