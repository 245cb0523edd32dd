"""The estimator: governed vs baseline, and each governance lever moving the bill the right way."""

from __future__ import annotations

import copy
from datetime import date, timedelta

import pytest
from cost_plans import AS_OF, full_plan, node_pool, notebook, office_hours

from governance.costs.assumptions import HOURS_PER_MONTH, UsageAssumptions
from governance.costs.catalog import default_catalog
from governance.costs.errors import CatalogError, CostError, UnknownResourceType
from governance.costs.estimate import estimate_resources, window_hours_per_month
from governance.costs.registry import FREE, PRICED

RESOURCES_MD_TYPES = {
    "gcp:compute/network:Network", "gcp:compute/subnetwork:Subnetwork", "gcp:compute/router:Router",
    "gcp:compute/routerNat:RouterNat", "gcp:compute/globalAddress:GlobalAddress",
    "gcp:servicenetworking/connection:Connection", "gcp:workbench/instance:Instance",
    "gcp:cloudscheduler/job:Job", "gcp:serviceaccount/account:Account",
    "gcp:projects/iAMCustomRole:IAMCustomRole", "gcp:projects/iAMMember:IAMMember",
    "gcp:container/cluster:Cluster", "gcp:container/nodePool:NodePool", "gcp:tpu/v2Vm:V2Vm",
    "gcp:compute/instance:Instance", "gcp:sql/databaseInstance:DatabaseInstance",
    "gcp:sql/database:Database", "gcp:sql/user:User", "random:index/randomPassword:RandomPassword",
    "gcp:bigquery/dataset:Dataset", "gcp:bigquery/table:Table", "gcp:pubsub/topic:Topic",
    "gcp:billing/budget:Budget", "gcp:storage/bucket:Bucket",
    "gcp:storage/bucketObject:BucketObject",
    "gcp:cloudfunctionsv2/function:Function",
    "gcp:cloudfunctionsv2/functionIamMember:FunctionIamMember",
    "gcp:cloudrunv2/serviceIamMember:ServiceIamMember", "gcp:pubsub/topicIAMMember:TopicIAMMember",
    "gcp:compute/resourcePolicy:ResourcePolicy",
}  # fmt: skip


def one(resource, usage, **kw):
    return estimate_resources([resource], usage, **kw).resources[0]


def test_every_program_type_has_an_estimator_or_a_stated_zero():
    assert set(PRICED) | set(FREE) >= RESOURCES_MD_TYPES


def test_full_plan_prices_and_totals(plan, usage):
    report = estimate_resources(plan, usage)
    assert len(report.resources) == len(plan)
    assert 0 < report.monthly_usd < report.baseline_monthly_usd
    totals = report.as_dict()
    assert totals == {
        "monthly_usd": round(report.monthly_usd, 2),
        "baseline_monthly_usd": round(report.baseline_monthly_usd, 2),
    }
    assert report.by_name()["nb-alice"] == round(report.get("nb-alice").monthly_usd, 2)
    assert report.catalog_version == default_catalog().version


def test_free_resources_are_explicit_zeros_with_reasons(plan, usage):
    report = estimate_resources(plan, usage)
    for name, reason in (("net", "no charge"), ("member", "IAM"), ("db", "Cloud SQL instance"),
                         ("events", "priced on its dataset"), ("fleet", "component")):  # fmt: skip
        cost = report.get(name)
        assert cost.monthly_usd == 0
        assert cost.baseline_monthly_usd == 0
        assert reason in cost.lines[0]


def test_unknown_type_is_a_clear_error(usage):
    with pytest.raises(UnknownResourceType, match=r"'gcp:alloydb/cluster:Cluster'.*'db1'"):
        estimate_resources([{"type": "gcp:alloydb/cluster:Cluster", "name": "db1"}], usage)


def test_unknown_machine_type_or_gpu_is_an_error_naming_it(usage):
    with pytest.raises(CatalogError, match="n1-mega-7"):
        estimate_resources([notebook(machineType="n1-mega-7")], usage)
    nb = notebook(acceleratorConfigs=[{"type": "NVIDIA_TESLA_K80", "coreCount": "1"}])
    with pytest.raises(CatalogError, match=r"gpu\.nvidia-tesla-k80") as err:
        estimate_resources([nb], usage)
    assert "nb-alice" in str(err.value)


def test_region_without_prices_is_an_error(usage):
    nb = notebook()
    nb["inputs"]["location"] = "asia-south2-a"
    with pytest.raises(CatalogError, match="asia-south2"):
        estimate_resources([nb], usage)


def test_lines_trace_catalog_keys_and_assumptions(usage):
    cost = one(notebook(), usage)
    text = "\n".join(cost.lines)
    assert "gce.n1.vcpu[us-central1/ondemand]" in text
    assert "88 active h + 22 sessions x 1 h idle timeout = 110 h" in text
    assert "baseline always on: 730 h" in text


def test_notebook_cost_arithmetic(usage):
    cat = default_catalog()
    cost = one(notebook(acceleratorConfigs=[]), usage)
    hours = 88 + 22 * 1.0  # active + sessions x idle timeout
    expected = (
        hours * (4 * cat.price("gce.n1.vcpu", "us-central1").usd
                 + 15 * cat.price("gce.n1.ram", "us-central1").usd
                 + 4 * cat.price("workbench.mgmt.vcpu", "us-central1").usd)
        + 250 * cat.price("disk.pd-balanced", "us-central1").usd
    )  # fmt: skip
    assert cost.monthly_usd == pytest.approx(expected)


def test_idle_shutdown_costs_less_than_always_on(usage):
    idle = one(notebook(), usage)
    always = one(notebook(metadata={"enable-guest-attributes": "TRUE"}), usage)
    assert idle.monthly_usd < always.monthly_usd
    assert always.monthly_usd == pytest.approx(always.baseline_monthly_usd)
    longer = one(notebook(metadata={"idle-timeout-seconds": "10800"}), usage)
    assert idle.monthly_usd < longer.monthly_usd < always.monthly_usd


def test_office_hours_reduce_cost(usage):
    nb = notebook(metadata={})  # no idle shutdown: the schedule alone bounds it
    alone = one(nb, usage)
    scheduled = estimate_resources([nb, *office_hours(nb["inputs"]["name"])], usage).get("nb-alice")
    assert scheduled.monthly_usd < alone.monthly_usd
    assert any("office-hours schedule allows 239.0 h/month" in line for line in scheduled.lines)


def test_office_hours_window_parsing():
    weekly = 11 * 5  # 08:00-19:00, Monday to Friday
    assert window_hours_per_month("0 8 * * 1-5", "0 19 * * 1-5") == pytest.approx(
        weekly * HOURS_PER_MONTH / 168
    )
    assert window_hours_per_month("30 7 * * MON-FRI", "30 18 * * MON-FRI") == pytest.approx(
        weekly * HOURS_PER_MONTH / 168
    )
    # start Monday 08:00, stop only Friday 18:00: runs through the week
    assert window_hours_per_month("0 8 * * 1", "0 18 * * 5") == pytest.approx(
        (4 * 24 + 10) * HOURS_PER_MONTH / 168
    )
    assert window_hours_per_month("*/5 * * * *", "0 19 * * 1-5") is None


def test_expiry_prorates_running_hours_but_not_disks(usage):
    nb = notebook()
    running = one(nb, usage)
    soon = copy.deepcopy(nb)
    soon["inputs"]["labels"]["mlgov-expires-on"] = (AS_OF + timedelta(days=9)).isoformat()
    expired = copy.deepcopy(nb)
    expired["inputs"]["labels"]["mlgov-expires-on"] = (AS_OF - timedelta(days=1)).isoformat()
    soon_cost, gone = one(soon, usage), one(expired, usage)
    assert gone.monthly_usd < soon_cost.monthly_usd < running.monthly_usd
    disks = 250 * default_catalog().price("disk.pd-balanced", "us-central1").usd
    assert gone.monthly_usd == pytest.approx(disks)  # stopped VMs still pay for disks
    assert gone.baseline_monthly_usd == running.baseline_monthly_usd


def test_partition_expiration_bounds_storage(usage):
    cat = default_catalog()
    active = cat.price("bigquery.storage.active", "us-central1").usd
    longterm = cat.price("bigquery.storage.longterm", "us-central1").usd
    ds = {"type": "gcp:bigquery/dataset:Dataset", "name": "f",
          "inputs": {"datasetId": "f", "location": "us-central1",
                     "defaultPartitionExpirationMs": str(60 * 86_400_000)}}  # fmt: skip
    u = UsageAssumptions(as_of=AS_OF, bigquery_ingest={"f": 5.0})
    bounded = one(ds, u)
    assert bounded.monthly_usd == pytest.approx(5.0 * 60 * active)  # stored = ingest x days
    unbounded = dict(ds, inputs={"datasetId": "f", "location": "us-central1"})
    forever = one(unbounded, u)
    assert forever.monthly_usd == pytest.approx(5.0 * 90 * active + 5.0 * 275 * longterm)
    assert bounded.baseline_monthly_usd == pytest.approx(forever.monthly_usd)


def test_table_partition_expirations_bound_their_dataset(usage):
    ds = {"type": "gcp:bigquery/dataset:Dataset", "name": "d", "inputs": {"datasetId": "d"}}
    partitioning = {"type": "DAY", "expirationMs": 30 * 86_400_000}
    table = {
        "type": "gcp:bigquery/table:Table",
        "name": "t",
        "inputs": {"datasetId": "d", "timePartitioning": partitioning},
    }
    with_table = estimate_resources([ds, table], usage).get("d")
    alone = estimate_resources([ds], usage).get("d")
    assert with_table.monthly_usd < alone.monthly_usd


def test_autoscale_from_zero_pool_costs_less_than_baseline(usage):
    pool = one(node_pool(), usage)
    assert pool.monthly_usd < pool.baseline_monthly_usd
    on_demand = one(node_pool(spot=False), usage)
    assert pool.monthly_usd < on_demand.monthly_usd
    idle = one(node_pool(), UsageAssumptions(as_of=AS_OF, training_pool_nodes={"t4-spot": 0}))
    assert idle.monthly_usd == 0
    busy = one(node_pool(), UsageAssumptions(as_of=AS_OF, training_pool_nodes={"t4-spot": 9}))
    capped = one(node_pool(), UsageAssumptions(as_of=AS_OF, training_pool_nodes={"t4-spot": 4}))
    assert busy.monthly_usd == pytest.approx(capped.monthly_usd)  # clamped to max nodes


def test_system_pool_runs_its_minimum(usage):
    system = one(node_pool("system", spot=False, low=1, high=3, machineType="e2-standard-4",
                           guestAccelerators=[]), usage)  # fmt: skip
    cat = default_catalog()
    hourly = (
        4 * cat.price("gce.e2.vcpu", "us-central1").usd
        + 16 * cat.price("gce.e2.ram", "us-central1").usd
    )
    disk = 100 * cat.price("disk.pd-balanced", "us-central1").usd
    assert system.monthly_usd == pytest.approx(hourly * HOURS_PER_MONTH + disk)
    assert system.baseline_monthly_usd == pytest.approx(system.monthly_usd)


def test_spot_tpu_pool_and_vm_cost_less_than_on_demand(usage):
    tpu_pool = one(node_pool("tpu", machineType="ct5lp-hightpu-4t", guestAccelerators=[]), usage)
    assert 0 < tpu_pool.monthly_usd < tpu_pool.baseline_monthly_usd
    vm = {"type": "gcp:tpu/v2Vm:V2Vm", "name": "v",
          "inputs": {"zone": "us-central1-a", "acceleratorType": "v5litepod-8",
                     "schedulingConfig": {"spot": True}}}  # fmt: skip
    spot = one(vm, usage)
    on_demand = one(dict(vm, inputs={**vm["inputs"], "schedulingConfig": {}}), usage)
    assert spot.monthly_usd < on_demand.monthly_usd == pytest.approx(spot.baseline_monthly_usd)
    chip = default_catalog().price("tpu.v5litepod.chip", "us-central1").usd
    assert on_demand.monthly_usd == pytest.approx(8 * chip * HOURS_PER_MONTH)


def test_max_run_duration_caps_standalone_gpu_vm(usage):
    vm = full_plan()[[r["name"] for r in full_plan()].index("gpu-vm")]
    capped = one(vm, usage)
    free_running = copy.deepcopy(vm)
    del free_running["inputs"]["scheduling"]["maxRunDuration"]
    uncapped = one(free_running, usage)
    assert capped.monthly_usd < uncapped.monthly_usd < capped.baseline_monthly_usd
    assert any("maxRunDuration 8 h x 22 runs/month" in line for line in capped.lines)


def test_sustained_use_discount_applies_to_on_demand_n1_only(usage):
    always = one(notebook(metadata={}, acceleratorConfigs=[]), usage)
    cat = default_catalog()
    full = HOURS_PER_MONTH * (4 * cat.price("gce.n1.vcpu", "us-central1").usd
                              + 15 * cat.price("gce.n1.ram", "us-central1").usd)  # fmt: skip
    compute = sum(float(line.rsplit("$", 1)[1]) for line in always.lines
                  if line.startswith(("vCPU", "RAM")))  # fmt: skip
    assert compute == pytest.approx(full * 0.7, abs=0.02)  # 30% SUD for a full N1 month


def test_sql_ha_doubles_compute_and_storage(plan, usage):
    sql = next(r for r in plan if r["name"] == "metadata")
    zonal = one(sql, usage)
    regional = copy.deepcopy(sql)
    regional["inputs"]["settings"]["availabilityType"] = "REGIONAL"
    backups = 20 * default_catalog().price("sql.backup", "us-central1").usd
    assert one(regional, usage).monthly_usd - backups == pytest.approx(
        2 * (zonal.monthly_usd - backups)
    )
    bad = copy.deepcopy(sql)
    bad["inputs"]["settings"]["tier"] = "db-perf-optimized-N-8"
    with pytest.raises(CostError, match="db-perf-optimized-N-8"):
        one(bad, usage)


def test_gke_free_tier_only_for_the_first_zonal_cluster(usage):
    regional = {
        "type": "gcp:container/cluster:Cluster",
        "name": "r",
        "inputs": {"location": "us-central1"},
    }
    zonal = {
        "type": "gcp:container/cluster:Cluster",
        "name": "z",
        "inputs": {"location": "us-central1-a"},
    }
    report = estimate_resources([regional, zonal, dict(zonal, name="z2")], usage)
    assert report.get("r").monthly_usd == pytest.approx(73.0)
    assert report.get("z").monthly_usd == 0  # $73 fee minus the $74.40 credit
    assert report.get("z2").monthly_usd == pytest.approx(73.0)


def test_scheduler_free_tier_covers_three_jobs(usage):
    jobs = [{"type": "gcp:cloudscheduler/job:Job", "name": f"j{i}", "inputs": {}} for i in range(5)]
    report = estimate_resources(jobs, usage)
    assert report.monthly_usd == pytest.approx(0.2)
    assert [r.monthly_usd for r in report.resources[:3]] == [0, 0, 0]


def test_function_bucket_nat_topic_use_assumptions(plan, usage):
    fn = next(r for r in plan if r["name"] == "reaper")
    base = one(fn, usage).monthly_usd
    busier = one(fn, UsageAssumptions(as_of=AS_OF, function_invocations={"reaper": 30000}))
    assert busier.monthly_usd == pytest.approx(10 * base)
    bucket = next(r for r in plan if r["name"] == "src")
    assert one(bucket, UsageAssumptions(storage_gb={"src": 100})).monthly_usd == pytest.approx(2.0)
    nat = next(r for r in plan if r["name"] == "nat")
    assert one(nat, usage).monthly_usd == pytest.approx(2 * 0.0014 * 730 + 50 * 0.045)


def test_assumptions_round_trip_through_the_plan_document():
    u = UsageAssumptions(as_of=date(2026, 1, 5), training_pool_nodes={"a100": 1.5})
    again = UsageAssumptions.model_validate(u.model_dump(mode="json"))
    assert again == u
    with pytest.raises(ValueError, match="extra"):
        UsageAssumptions.model_validate({"notebook_hours": 3})


def test_ten_thousand_resources_estimate_quickly(usage):
    import time

    plan = full_plan() * 300
    start = time.perf_counter()
    report = estimate_resources(plan, usage)
    assert len(report.resources) == len(plan)
    assert time.perf_counter() - start < 5  # bench/cost_bench.py records the real number
