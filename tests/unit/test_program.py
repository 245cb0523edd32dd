"""The whole Pulumi program under mocks, for every shipped stack: concrete inputs, labels, regions."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from governance.labels import label_problem
from governance.review.offline import RecordedResource, run_program
from governance.settings import settings_from_config
from mlgov_policies.vocabulary import REQUIRED_LABELS as REQUIRED_KEYS
from tests.conftest import PROGRAM, STACKS, stack_config

# Where each labelable type keeps its labels (dotted path into the inputs).
LABEL_FIELDS: dict[str, tuple[str, ...]] = {
    "gcp:workbench/instance:Instance": ("labels",),
    "gcp:compute/instance:Instance": ("labels", "bootDisk.initializeParams.labels"),
    "gcp:compute/globalAddress:GlobalAddress": ("labels",),
    "gcp:container/cluster:Cluster": ("resourceLabels",),
    "gcp:container/nodePool:NodePool": ("nodeConfig.resourceLabels",),
    "gcp:tpu/v2Vm:V2Vm": ("labels",),
    "gcp:sql/databaseInstance:DatabaseInstance": ("settings.userLabels",),
    "gcp:bigquery/dataset:Dataset": ("labels",),
    "gcp:bigquery/table:Table": ("labels",),
    "gcp:pubsub/topic:Topic": ("labels",),
    "gcp:pubsub/subscription:Subscription": ("labels",),
    "gcp:storage/bucket:Bucket": ("labels",),
    "gcp:cloudfunctionsv2/function:Function": ("labels",),
    "gcp:artifactregistry/repository:Repository": ("labels",),
    "gcp:vertex/aiTensorboard:AiTensorboard": ("labels",),
}
# Types GCP gives no labels (IAM, networking plumbing, scheduler jobs, budgets, SQL children).
UNLABELABLE = {
    "gcp:compute/network:Network",
    "gcp:compute/subnetwork:Subnetwork",
    "gcp:compute/router:Router",
    "gcp:compute/routerNat:RouterNat",
    "gcp:servicenetworking/connection:Connection",
    "gcp:serviceaccount/account:Account",
    "gcp:projects/iAMCustomRole:IAMCustomRole",
    "gcp:projects/iAMMember:IAMMember",
    "gcp:pubsub/topicIAMMember:TopicIAMMember",
    "gcp:pubsub/subscriptionIAMMember:SubscriptionIAMMember",
    "gcp:serviceaccount/iAMMember:IAMMember",
    "gcp:organizations/iAMCustomRole:IAMCustomRole",
    "gcp:folder/iAMMember:IAMMember",
    "gcp:organizations/iAMMember:IAMMember",
    "gcp:cloudscheduler/job:Job",
    "gcp:billing/budget:Budget",
    "pulumi-python:dynamic/mlgov:SpendCapBudget",  # a Budget API budget: no labels either
    "gcp:sql/database:Database",
    "gcp:sql/user:User",
    "random:index/randomPassword:RandomPassword",
    "gcp:storage/bucketObject:BucketObject",
    "gcp:cloudfunctionsv2/functionIamMember:FunctionIamMember",
    "gcp:cloudrunv2/serviceIamMember:ServiceIamMember",
    "gcp:serviceusage/consumerQuotaOverride:ConsumerQuotaOverride",
    "gcp:logging/projectExclusion:ProjectExclusion",
    "gcp:logging/projectBucketConfig:ProjectBucketConfig",
}


@functools.cache
def resources(stack: str) -> tuple[RecordedResource, ...]:
    return tuple(run_program(stack_config(stack), stack, PROGRAM))


def of_type(stack: str, type_: str) -> list[dict[str, Any]]:
    return [r.inputs for r in resources(stack) if r.type == type_]


def dig(value: Any, path: str) -> Any:
    for key in path.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


@pytest.mark.parametrize("stack", STACKS)
def test_every_type_is_known_to_the_label_check(stack: str) -> None:
    types = {r.type for r in resources(stack) if not r.type.startswith("mlgov:index:")}
    assert types - set(LABEL_FIELDS) - UNLABELABLE == set()


@pytest.mark.parametrize("stack", STACKS)
def test_every_labelable_resource_has_valid_required_labels(stack: str) -> None:
    checked = 0
    for r in resources(stack):
        for field in LABEL_FIELDS.get(r.type, ()):
            labels = dig(r.inputs, field)
            assert isinstance(labels, dict), f"{r.name} ({r.type}) has no {field}"
            missing = set(REQUIRED_KEYS) - set(labels)
            assert not missing, f"{r.name} lacks {sorted(missing)} in {field}"
            assert labels["env"] == stack and labels["managed-by"] == "mlgov"
            assert [p for k, v in labels.items() if (p := label_problem(k, v))] == []
            checked += 1
    assert checked >= 8


@pytest.mark.parametrize("stack", STACKS)
def test_everything_regional_is_in_the_stack_region(stack: str) -> None:
    region = settings_from_config(stack_config(stack)).region
    for r in resources(stack):
        if r.type == "gcp:logging/projectBucketConfig:ProjectBucketConfig":
            assert r.inputs["location"] == "global"  # where Cloud Logging keeps _Default
            continue
        for key in ("region", "location", "zone"):
            where = r.inputs.get(key)
            if isinstance(where, str):
                where = where.lower()  # Cloud Storage locations are case-insensitive
                assert where == region or where.startswith(f"{region}-"), (r.name, key, where)


@pytest.mark.parametrize("stack", STACKS)
def test_notebooks_idle_shutdown_no_public_ip(stack: str) -> None:
    settings = settings_from_config(stack_config(stack))
    notebooks = of_type(stack, "gcp:workbench/instance:Instance")
    assert len(notebooks) == len(settings.notebooks) >= 1
    for nb in notebooks:
        setup = nb["gceSetup"]
        idle = int(setup["metadata"]["idle-timeout-seconds"])
        assert 0 < idle <= settings.limits.max_idle_minutes * 60
        assert setup["metadata"]["enable-guest-attributes"] == "TRUE"
        assert setup["disablePublicIp"] is True
        assert setup["machineType"] in settings.limits.notebook_machine_types
        for acc in setup.get("acceleratorConfigs") or []:
            assert acc["type"] in settings.limits.notebook_gpu_types


def test_dev_notebook_details() -> None:
    alice = next(
        n
        for n in of_type("dev", "gcp:workbench/instance:Instance")
        if n["name"] == "acme-dev-nb-alice"
    )
    assert alice["location"] == "us-central1-a"
    assert alice["gceSetup"]["metadata"]["idle-timeout-seconds"] == "3600"
    assert alice["gceSetup"]["acceleratorConfigs"] == [
        {"type": "NVIDIA_TESLA_T4", "coreCount": "1"}
    ]
    assert alice["gceSetup"]["metadata"]["install-nvidia-driver"] == "True"
    assert alice["instanceOwners"] == ["alice@acme.example"]
    bob = next(
        n
        for n in of_type("dev", "gcp:workbench/instance:Instance")
        if n["name"] == "acme-dev-nb-bob"
    )
    assert bob["labels"]["mlgov-expires-on"] == "2026-12-31"
    assert "acceleratorConfigs" not in bob["gceSetup"]


def test_office_hours_become_start_and_stop_jobs() -> None:
    jobs = {
        j["name"]: j for j in of_type("dev", "gcp:cloudscheduler/job:Job") if "-nb-" in j["name"]
    }
    assert set(jobs) == {"acme-dev-nb-alice-stop", "acme-dev-nb-alice-start"}
    stop = jobs["acme-dev-nb-alice-stop"]
    assert stop["schedule"] == "0 19 * * 1-5" and stop["timeZone"] == "Europe/Berlin"
    assert stop["httpTarget"]["uri"] == (
        "https://notebooks.googleapis.com/v2/projects/acme-ml-dev/"
        "locations/us-central1-a/instances/acme-dev-nb-alice:stop"
    )
    assert stop["httpTarget"]["oauthToken"]["serviceAccountEmail"].startswith(
        "acme-dev-nb-schedule@"
    )
    assert jobs["acme-dev-nb-alice-start"]["schedule"] == "0 8 * * 1-5"
    roles = of_type("dev", "gcp:projects/iAMCustomRole:IAMCustomRole")
    schedule_role = next(r for r in roles if r["roleId"] == "acme_dev_notebook_schedule")
    assert schedule_role["permissions"] == ["notebooks.instances.start", "notebooks.instances.stop"]


@pytest.mark.parametrize("stack", STACKS)
def test_cluster_node_auto_provisioning(stack: str) -> None:
    settings = settings_from_config(stack_config(stack))
    [cluster] = of_type(stack, "gcp:container/cluster:Cluster")
    ca = cluster["clusterAutoscaling"]
    assert ca["enabled"] is True and ca["autoscalingProfile"] == "OPTIMIZE_UTILIZATION"
    limits = {lim["resourceType"]: lim["maximum"] for lim in ca["resourceLimits"]}
    assert settings.gke is not None
    nap = settings.gke.autoprovisioning
    assert limits == {"cpu": nap.max_cpu, "memory": nap.max_memory_gb, **nap.accelerators}
    assert cluster["costManagementConfig"] == {"enabled": True}
    assert cluster["workloadIdentityConfig"] == {"workloadPool": f"{settings.project}.svc.id.goog"}
    assert cluster["removeDefaultNodePool"] is True
    assert cluster["deletionProtection"] is (stack == "prod")
    assert cluster["privateClusterConfig"]["enablePrivateNodes"] is True


@pytest.mark.parametrize("stack", STACKS)
def test_training_pools_are_spot_and_scale_from_zero(stack: str) -> None:
    settings = settings_from_config(stack_config(stack))
    pools = {p["name"]: p for p in of_type(stack, "gcp:container/nodePool:NodePool")}
    assert pools["system"]["nodeConfig"].get("spot") is not True
    for name, pool in settings.training_pools.items():
        p = pools[name]
        assert p["nodeConfig"]["spot"] is True
        assert p["initialNodeCount"] == 0
        assert p["autoscaling"]["totalMinNodeCount"] == 0
        assert p["autoscaling"]["totalMaxNodeCount"] == pool.max_nodes
        taints = {(t["key"], t["effect"]) for t in p["nodeConfig"]["taints"]}
        assert ("mlgov.io/workload", "NO_SCHEDULE") in taints
        if pool.kind == "gpu":
            assert ("nvidia.com/gpu", "NO_SCHEDULE") in taints
            assert p["nodeConfig"]["guestAccelerators"][0]["type"] == pool.accelerator
        else:
            assert "guestAccelerators" not in p["nodeConfig"]


def test_prod_tpu_vm_is_spot() -> None:
    [tpu] = of_type("prod", "gcp:tpu/v2Vm:V2Vm")
    assert tpu["schedulingConfig"] == {"spot": True}
    assert tpu["zone"] == "europe-west4-b" and tpu["acceleratorType"] == "v5litepod-8"
    assert tpu["networkConfig"]["enableExternalIps"] is False


def test_staging_gpu_vm_is_spot_with_max_run_duration() -> None:
    [vm] = [i for i in of_type("staging", "gcp:compute/instance:Instance")]
    sched = vm["scheduling"]
    assert sched["provisioningModel"] == "SPOT" and sched["preemptible"] is True
    assert sched["maxRunDuration"] == {"seconds": 6 * 3600}
    assert sched["instanceTerminationAction"] == "STOP"
    assert vm["guestAccelerators"] == [{"type": "nvidia-l4", "count": 1}]
    assert all("accessConfigs" not in nic for nic in vm["networkInterfaces"])


@pytest.mark.parametrize("stack", STACKS)
def test_metadata_db_private_and_safe_in_prod(stack: str) -> None:
    [db] = of_type(stack, "gcp:sql/databaseInstance:DatabaseInstance")
    s = db["settings"]
    assert s["ipConfiguration"]["ipv4Enabled"] is False
    assert s["ipConfiguration"]["privateNetwork"]
    prod = stack == "prod"
    assert db["deletionProtection"] is prod and s["deletionProtectionEnabled"] is prod
    assert s["backupConfiguration"]["enabled"] is (stack != "dev")
    assert s["availabilityType"] == ("REGIONAL" if prod else "ZONAL")
    [user] = of_type(stack, "gcp:sql/user:User")
    assert user["password"] == "[secret]"


@pytest.mark.parametrize("stack", STACKS)
def test_datasets_expire_and_tables_are_partitioned(stack: str) -> None:
    settings = settings_from_config(stack_config(stack))
    datasets = {d["datasetId"]: d for d in of_type(stack, "gcp:bigquery/dataset:Dataset")}
    export = datasets.pop(settings.billing_export.dataset_id)
    assert "defaultTableExpirationMs" not in export
    assert "defaultPartitionExpirationMs" not in export
    assert export["deleteContentsOnDestroy"] is False
    assert export["location"] == settings.region
    for key, ds in settings.datasets.items():
        d = datasets[key]
        assert ds.partition_expiration_days is not None
        assert d["defaultPartitionExpirationMs"] == ds.partition_expiration_days * 86_400_000
        assert d["location"] == settings.region
    tables = of_type(stack, "gcp:bigquery/table:Table")
    assert len(tables) == sum(len(ds.tables) for ds in settings.datasets.values())
    for t in tables:
        assert t["timePartitioning"]["type"] in {"HOUR", "DAY", "MONTH", "YEAR"}
        large = (
            settings.datasets[next(k for k in settings.datasets if t["datasetId"] == k)]
            .tables[t["tableId"]]
            .large
        )
        assert t.get("requirePartitionFilter", False) is large


@pytest.mark.parametrize("stack", STACKS)
def test_budget_thresholds_and_topic(stack: str) -> None:
    settings = settings_from_config(stack_config(stack))
    # The stack's budget (a spend cap's alerts-only pair watches one service: tests/spend_caps).
    [budget] = [
        b
        for b in of_type(stack, "gcp:billing/budget:Budget")
        if not dig(b, "budgetFilter.services")
    ]
    assert budget["amount"]["specifiedAmount"] == {
        "currencyCode": "USD",
        "units": str(settings.budget.amount_usd),
    }
    assert budget["budgetFilter"]["projects"] == [f"projects/{settings.project_number}"]
    actual = [
        r["thresholdPercent"]
        for r in budget["thresholdRules"]
        if r["spendBasis"] == "CURRENT_SPEND"
    ]
    forecast = [
        r["thresholdPercent"]
        for r in budget["thresholdRules"]
        if r["spendBasis"] == "FORECASTED_SPEND"
    ]
    assert actual == list(settings.budget.thresholds)
    assert forecast == list(settings.budget.forecast_thresholds)
    topic = next(
        t for t in of_type(stack, "gcp:pubsub/topic:Topic") if t["name"].endswith("budget-alerts")
    )
    assert budget["allUpdatesRule"] == {
        "pubsubTopic": f"projects/{settings.project}/topics/{topic['name']}",
        "schemaVersion": "1.0",
    }
    [publisher] = [
        m
        for m in of_type(stack, "gcp:pubsub/topicIAMMember:TopicIAMMember")
        if m["member"] == "serviceAccount:billing-budget-alert@system.gserviceaccount.com"
    ]
    assert publisher["role"] == "roles/pubsub.publisher"


@pytest.mark.parametrize("stack", STACKS)
def test_no_resource_has_a_public_ip_or_primitive_role(stack: str) -> None:
    for r in resources(stack):
        text = json.dumps(r.inputs)
        assert "allUsers" not in text and "allAuthenticatedUsers" not in text
        if r.type == "gcp:projects/iAMMember:IAMMember":
            assert r.inputs["role"] not in {"roles/owner", "roles/editor", "roles/viewer"}


@pytest.mark.parametrize("stack", STACKS)
def test_physical_names_fit_gcp_rules(stack: str) -> None:
    import re

    for r in resources(stack):
        name = r.inputs.get("name")
        if (
            isinstance(name, str)
            and r.type.startswith("gcp:")
            and "/" not in name
            and r.type != "gcp:storage/bucketObject:BucketObject"
        ):  # object names are paths
            assert len(name) <= 63 and re.fullmatch(r"[a-z][a-z0-9-]*[a-z0-9]", name), name
        if r.type == "gcp:serviceaccount/account:Account":
            assert 6 <= len(r.inputs["accountId"]) <= 30
