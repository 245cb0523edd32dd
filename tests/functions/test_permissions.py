"""Each function's IAM permissions equal what its flow really calls, as Google documents it.

Every entry point runs end to end (functions_framework, real clients) against the fake cloud in
a scenario that takes every branch that calls an API; tests/fakegcp/iam.py maps each REST call
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
from govern.permissions import PERMISSIONS
from tests.fakegcp import iam
from tests.functions import test_spend_caps as spend_caps
from tests.functions.conftest import (
    DEV,
    PROD,
    budget_data,
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
        "resourcemanager.projects.deleteBillingAssignment",
        "resourcemanager.projects.get",
        "tpu.nodes.list",
        "tpu.nodes.stop",
        "tpu.operations.get",
        "tpu.queuedResources.delete",
        "tpu.queuedResources.list",
    ),
    "reap_idle_vms": (
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "recommender.computeInstanceIdleResourceRecommendations.list",
        "recommender.computeInstanceIdleResourceRecommendations.update",
    ),
    "reap_expired": (
        "compute.instances.get",
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "notebooks.instances.list",
        "notebooks.instances.stop",
        "notebooks.operations.get",
        "tpu.nodes.list",
        "tpu.nodes.stop",
        "tpu.operations.get",
    ),
    "reap_idle_gpus": (
        "compute.instances.get",
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "monitoring.timeSeries.list",
        "notebooks.instances.stop",
        "notebooks.operations.get",
        "tpu.nodes.list",
        "tpu.nodes.stop",
        "tpu.operations.get",
    ),
}
# Policy keys a scenario needs to take every branch (undeploying endpoints is opt-in).
SCENARIO_POLICY = {"on_budget_alert": {"undeploy_endpoints": True, "spend_caps": spend_caps.CAPS}}


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


SCENARIOS = {
    "on_budget_alert": _budget_alert,
    "reap_idle_vms": _reap_idle_vms,
    "reap_expired": _reap_expired,
    "reap_idle_gpus": _reap_idle_gpus,
}


def test_permissions_are_pinned():
    assert PERMISSIONS == EXPECTED


@pytest.mark.parametrize("entry_point", sorted(SCENARIOS))
def test_declared_permissions_equal_the_documented_permissions_of_the_calls_made(
    cloud, monkeypatch, entry_point
):
    set_policy(monkeypatch, **SCENARIO_POLICY.get(entry_point, {}))
    SCENARIOS[entry_point](cloud)
    assert cloud.mutations(), "the scenario must act, or the actions' permissions go unchecked"
    needed = iam.permissions(cloud.server.calls())
    assert needed == set(PERMISSIONS[entry_point])


@pytest.mark.parametrize("entry_point", sorted(SCENARIOS))
def test_a_dry_run_needs_exactly_the_declared_reads(cloud, monkeypatch, entry_point):
    set_policy(monkeypatch, dry_run=True, **SCENARIO_POLICY.get(entry_point, {}))
    SCENARIOS[entry_point](cloud)
    assert cloud.mutations() == []
    reads = {p for read in FLOW[entry_point].reads for p in read.permissions}
    assert iam.permissions(cloud.server.calls()) == reads


def test_unknown_calls_are_errors_not_guesses():
    from tests.fakegcp.server import Request

    with pytest.raises(iam.UnknownCall, match="DELETE /compute/v1/projects/p/zones/z/instances/i"):
        iam.permission(
            Request("DELETE", "/compute/v1/projects/p/zones/z/instances/i", {}, None, {})
        )


def test_linking_billing_is_not_mistaken_for_unlinking():
    from tests.fakegcp.server import Request

    def put(body):
        return iam.permission(Request("PUT", "/v1/projects/p/billingInfo", {}, body, {}))

    assert put({}) == "resourcemanager.projects.deleteBillingAssignment"
    assert put({"billingAccountName": "billingAccounts/X"}) == (
        "resourcemanager.projects.createBillingAssignment"
    )


def test_every_entry_point_has_permissions():
    entry_points = {
        name
        for name in ("on_budget_alert", "reap_idle_vms", "reap_expired", "reap_idle_gpus")
        if callable(getattr(main, name, None))
    }
    assert entry_points == set(PERMISSIONS) == set(SCENARIOS)
