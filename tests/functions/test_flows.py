"""The flows on memory ports: what each reads, in what order it acts, and what it reports.

Decisions are table-tested in test_decide.py; these check the sequencing around them and that
each flow calls only ports it declares (the REST-level check is test_permissions.py).
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from govern import decide, execute, flows
from govern.models import ActionPolicy, BudgetAlert, Recommendation, Report, Workload
from governance.fakecloud.clock import FakeClock
from tests.functions.conftest import BUDGET, DEV, PROD, policy_dict
from tests.functions.memory import MemoryCloud, MemoryPorts

A, B = "us-central1-a", "us-central1-b"
TODAY = date(2026, 11, 21)
NOW = datetime(2026, 11, 21, 5, 0, tzinfo=UTC)
# Which memory-port methods each declared read or action kind stands for.
READ_METHODS = {
    "compute.instances.aggregatedList": "compute.list_instances",
    "notebooks.projects.locations.instances.list": "notebooks.list_instances",
    "tpu.projects.locations.nodes.list": "tpus.list_nodes",
    "tpu.projects.locations.queuedResources.list": "tpus.list_queued_resources",
    "cloudbilling.projects.getBillingInfo": "billing.billing_enabled",
    "recommender.projects.locations.recommenders.recommendations.list": (
        "recommender.list_recommendations"
    ),
    "monitoring.projects.timeSeries.list": {
        "monitoring.gpu_utilization",
        "monitoring.tpu_duty_cycle",
    },
    "container.projects.locations.clusters.list": "container.list_clusters",
    "compute.instanceGroupManagers.get": "compute.group_size",
    "aiplatform.projects.locations.customJobs.list": "vertex.list_jobs",
    "aiplatform.projects.locations.hyperparameterTuningJobs.list": "vertex.list_jobs",
    "aiplatform.projects.locations.endpoints.list": "vertex.list_endpoints",
    "billingbudgets.billingAccounts.budgets.get": "budgets.get_spend_cap",
    "cloudasset.searchAllResources": "assets.search_projects",
    "cloudasset.searchAllResources (workloads)": "assets.search_workloads",
    "pubsub.projects.topics.publish": "work.publish",
}
ACTION_METHODS = {
    # A stop is confirmed by its operation (govern/operations.py).
    "StopInstance": {"compute.stop", "compute.wait_operation"},
    "StopNotebook": {"notebooks.stop", "notebooks.wait_operation"},
    "StopTpuNode": {"tpus.stop", "tpus.wait_operation"},
    # A VM left STOPPING is read until it stopped, and stopped again if it runs.
    "ConfirmStop": {"compute.wait_stopped", "compute.stop", "compute.wait_operation"},
    "DisableBilling": {"billing.unlink"},
    "WithdrawQueuedResource": {"tpus.delete_queued_resource", "tpus.wait_operation"},
    "ReapRecommendation": {
        "recommender.mark_claimed",
        "compute.stop",
        "compute.wait_operation",  # SUCCEEDED only once the stop is DONE
        "recommender.mark_succeeded",
        "recommender.mark_failed",
        "recommender.list_recommendations",  # to recognise its own claim after a lost reply
    },
    "ReleaseClaim": {"recommender.mark_succeeded", "recommender.mark_failed"},
    "CapNodePool": {
        "container.set_pool_labels",
        "container.request_pool_size",
        "container.wait_operation",  # the resize confirmed once every action started
        "container.set_pool_autoscaling",
    },
    "CapAutoprovisioning": {
        "container.set_cluster_labels",
        "container.set_resource_limits",
        "container.get_cluster",  # a fresh read after a fingerprint conflict
    },
    "CancelCustomJob": {"vertex.cancel_job"},
    "CancelTuningJob": {"vertex.cancel_job"},
    "UndeployEndpoint": {
        "vertex.set_endpoint_labels",  # the record restore reads
        "vertex.get_endpoint",  # a fresh read after a stale etag
        "vertex.undeploy_model",
        "vertex.wait_operation",  # each undeploy confirmed before the next
    },
}


def _runner(**extra) -> execute.Runner:
    policy = ActionPolicy.from_json(json.dumps(policy_dict(**extra)))
    return execute.Runner(policy, FakeClock(wall=NOW))


def _alert(cost: float, budget: float, threshold: float, budget_id: str = BUDGET) -> BudgetAlert:
    """A notification of the stack's budget for November 2026 (the period NOW is in)."""
    return BudgetAlert(
        budget_id,
        cost,
        budget,
        threshold,
        billing_account_id="01D4EE-079462-DFD6EC",
        currency="USD",
        cost_interval_start="2026-11-01T07:00:00Z",
    )


def _declared(flow: flows.Flow) -> set[str]:
    methods: set[str] = set()
    for read in flow.reads:
        found = READ_METHODS[read.method]
        methods |= {found} if isinstance(found, str) else found
    return methods.union(*(ACTION_METHODS[k.__name__] for k in flow.actions))


def vm(name, zone=A, project=DEV, state="RUNNING", **kw) -> Workload:
    kw.setdefault("last_start", datetime(2026, 11, 1, tzinfo=UTC))  # running for weeks
    return Workload("compute", project, zone, name, state, **kw)


def _budget_cloud() -> MemoryCloud:
    return MemoryCloud(
        workloads=[
            vm("vm-1"),
            vm("vm-prod", project=PROD),
            Workload("notebook", DEV, A, "nb-1", "ACTIVE"),
            Workload("tpu", DEV, B, "tpu-1", "READY"),
        ],
        billing={DEV: True, PROD: True},
    )


def test_budget_alert_stops_everything_before_unlinking_billing():
    cloud = _budget_cloud()
    report = flows.budget_alert(_alert(1300, 1000, 1.3), MemoryPorts(cloud), _runner())
    assert isinstance(report, Report)
    assert report.counts() == {"done": 5}
    mutations = [m for m, _ in cloud.calls if m.endswith((".stop", ".unlink"))]
    assert mutations[-1] == "billing.unlink"
    assert sorted(mutations[:-1]) == ["compute.stop", "compute.stop", "notebooks.stop", "tpus.stop"]
    assert cloud.called("billing.billing_enabled") == [(DEV,)]  # PROD did not opt in
    assert cloud.methods() <= _declared(flows.BUDGET_ALERT)


def test_budget_alert_reads_billing_only_once_every_stop_is_requested():
    # Cloud Billing is an organization-level quota, paced per worker: a read made before the
    # stops held them back (bench/RESULTS.md: 9,863 of 10,000 items dead-lettered).
    cloud = _budget_cloud()
    flows.budget_alert(_alert(1300, 1000, 1.3), MemoryPorts(cloud), _runner())
    order = [m for m, _ in cloud.calls]
    stops = [i for i, m in enumerate(order) if m.endswith(".stop")]
    assert len(stops) == 4
    assert order.index("billing.billing_enabled") > max(stops)
    assert cloud.called("billing.billing_enabled") == [(DEV,)]  # only where unlinking applies


def test_budget_alert_below_disable_billing_never_reads_billing():
    cloud = _budget_cloud()
    report = flows.budget_alert(_alert(1000, 1000, 1.0), MemoryPorts(cloud), _runner())
    assert not isinstance(report, flows.Quiet)
    assert not {m for m in cloud.methods() if m.startswith("billing.")}


def test_budget_alert_below_stop_at_is_quiet_and_reads_nothing():
    cloud = _budget_cloud()
    outcome = flows.budget_alert(_alert(500, 1000, 0.5), MemoryPorts(cloud), _runner())
    assert outcome == flows.Quiet(
        f"actual spend at 50% of budget {BUDGET} (500 of the stack's 1000), below stop_at 100%"
    )
    assert cloud.calls == []


def test_budget_alert_for_an_unknown_budget_raises_the_decision_error():
    with pytest.raises(decide.DecisionError):
        flows.budget_alert(_alert(5, 1, 5.0, "other"), MemoryPorts(MemoryCloud()), _runner())


def test_budget_alert_dry_run_reads_but_changes_nothing():
    cloud = _budget_cloud()
    report = flows.budget_alert(_alert(1300, 1000, 1.3), MemoryPorts(cloud), _runner(dry_run=True))
    assert isinstance(report, Report)
    assert report.counts() == {"simulated": 5}
    assert cloud.methods() == {
        "compute.list_instances",
        "notebooks.list_instances",
        "tpus.list_nodes",
        "tpus.list_queued_resources",  # queued capacity (govern/queued.py)
        "billing.billing_enabled",
        "container.list_clusters",
        "vertex.list_jobs",  # endpoints only where the policy opts in to undeploying
    }


def test_reap_idle_vms_lists_instances_only_where_there_are_recommendations():
    rec = Recommendation("recs/1", "e0", "ACTIVE", "STOP_VM", DEV, A, "idle-1")
    cloud = MemoryCloud(
        workloads=[vm("idle-1"), vm("prod-vm", project=PROD)], recommendations=[rec]
    )
    report = flows.reap_idle_vms(MemoryPorts(cloud), _runner(), NOW)
    assert report.counts() == {"done": 1}
    assert cloud.called("compute.list_instances") == [(DEV,)]
    zones = sorted(args for args in cloud.called("recommender.list_recommendations"))
    assert zones == [(DEV, A), (DEV, B), (PROD, A)]  # every governed zone
    assert cloud.rec_states == {"recs/1": "SUCCEEDED"}
    assert cloud.methods() <= _declared(flows.REAP_IDLE_VMS)


def test_reap_expired_reads_every_kind_and_stops_the_expired():
    cloud = MemoryCloud(
        workloads=[
            vm("old", labels={"mlgov-expires-on": "2026-11-20"}),
            vm("today", labels={"mlgov-expires-on": "2026-11-21"}),
            Workload("tpu", DEV, B, "old-tpu", "READY", {"mlgov-expires-on": "2026-01-01"}),
        ]
    )
    report = flows.reap_expired(MemoryPorts(cloud), _runner(), TODAY)
    assert {r.target.rsplit("/", 1)[-1]: r.outcome for r in report.results} == {
        "old": "done",
        "today": "skipped",
        "old-tpu": "done",
    }
    # TPUs are listed per governed zone: two for DEV, one for PROD.
    assert sorted(cloud.called("tpus.list_nodes")) == [(DEV, A), (DEV, B), (PROD, A)]
    assert cloud.methods() <= _declared(flows.REAP_EXPIRED)


def test_reap_idle_gpus_reads_utilization_only_for_candidates():
    cloud = MemoryCloud(workloads=[vm("cpu", labels={"workload": "training"})])
    report = flows.reap_idle_gpus(MemoryPorts(cloud), _runner())
    assert report.results == ()
    assert cloud.methods() == {"compute.list_instances", "tpus.list_nodes"}


def test_reap_idle_gpus_stops_idle_ones_per_owner():
    gpu = vm("gpu", gpus=1, labels={"workload": "training"}, instance_id="11")
    nb = vm(
        "nb",
        zone=B,
        gpus=1,
        labels={"workload": "notebook", "goog-caip-notebook": ""},
        instance_id="12",
        managed_by="workbench",
    )
    busy = vm("busy", gpus=1, labels={"workload": "training"}, instance_id="13")
    cloud = MemoryCloud(
        workloads=[gpu, nb, busy, Workload("notebook", DEV, B, "nb", "ACTIVE")],
        utilization={"11": 1.0, "12": 0.0, "13": 90.0},
    )
    report = flows.reap_idle_gpus(MemoryPorts(cloud), _runner())
    assert report.counts() == {"done": 2, "skipped": 1}
    assert cloud.called("compute.stop") == [(DEV, A, "gpu")]
    assert cloud.called("notebooks.stop") == [(DEV, B, "nb")]
    assert cloud.called("monitoring.gpu_utilization") == [(DEV, 60, ("13", "11", "12"))]
    assert cloud.methods() <= _declared(flows.REAP_IDLE_GPUS)


def test_a_failed_listing_is_an_error_of_the_report_and_never_an_action():
    from govern import ports

    cloud = _budget_cloud()
    cloud.errors[("compute.list_instances", DEV)] = ports.PortError("HTTP 403 denied")
    report = flows.reap_expired(MemoryPorts(cloud), _runner(), TODAY)
    assert report.errors == (f"compute list {DEV}: HTTP 403 denied",)


def test_a_work_item_starts_a_few_calls_at_once_and_waits_for_all_its_operations(monkeypatch):
    # Dozens of items share one worker instance: an item no longer takes the policy's pool of
    # 16 threads (64 as deployed) per step, but confirms every operation it started at once.
    from govern import workitems
    from govern.flows.work import ITEM_CONCURRENCY, ITEM_WAITS

    widths: list[int] = []

    class Counted(execute.ThreadPoolExecutor):
        def __init__(self, max_workers: int, **kw):
            widths.append(max_workers)
            super().__init__(max_workers=max_workers, **kw)

    monkeypatch.setattr(execute, "ThreadPoolExecutor", Counted)
    cloud = MemoryCloud(workloads=[vm(f"vm-{i:02d}") for i in range(24)])
    period = "2026-11-01T07:00:00Z"
    item = workitems.BudgetItem(
        project=DEV,
        run="run-1",
        scope=None,
        budget_id=BUDGET,
        ratio=1.0,
        period_start=period,
        stop=True,
        unlink=False,
        key=workitems.budget_key(BUDGET, period, 1.0, DEV),
    )
    worked = flows.work_item(item, MemoryPorts(cloud), _runner(max_concurrency=64), NOW)
    assert worked.outcome == "done"
    assert len(cloud.called("compute.stop")) == 24
    assert ITEM_CONCURRENCY < 24 <= ITEM_WAITS
    assert max(widths) == 24  # the 24 stops' confirmations, all at once
    assert sorted(widths)[-2] == ITEM_CONCURRENCY  # the 24 stops: ITEM_CONCURRENCY at a time
