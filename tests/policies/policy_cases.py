"""Table of one-change cases over the known-good stack: (rule expected, what changed).

Shared by test_policy_rules.py (offline evaluator) and test_policy_pack.py (CrossGuard objects),
so both paths are held to the same findings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from policy_fixtures import POLICY_JSON, PROD_CONFIG, PROJECT, good_stack, labels

Op = tuple[Any, ...]  # ("set", name, path, value) | ("del", name, path) | ("drop", name)


@dataclass(frozen=True)
class Case:
    id: str
    expected: str | None  # rule name, None: the change is allowed
    ops: tuple[Op, ...]
    config: dict[str, Any] = field(default_factory=lambda: dict(PROD_CONFIG))
    resource: str | None = None  # resource the finding lands on; default: first op's resource


def apply(ops: tuple[Op, ...]) -> list[dict[str, Any]]:
    stack = good_stack()
    by_name = {r["name"]: r for r in stack}
    for op in ops:
        if op[0] == "drop":
            stack = [r for r in stack if r["name"] != op[1]]
            continue
        target = by_name[op[1]]["inputs"]
        *parents, last = op[2].split(".")
        for key in parents:
            target = target.setdefault(key, {})
        if op[0] == "set":
            target[last] = op[3]
        else:
            del target[last]
    return stack


def s(name: str, path: str, value: Any) -> Op:
    return ("set", name, path, value)


def d(name: str, path: str) -> Op:
    return ("del", name, path)


def _policy(**project: Any) -> str:
    data = json.loads(POLICY_JSON)
    data["projects"][PROJECT].update(project)
    return json.dumps(data)


def cfg(**changes: Any) -> dict[str, Any]:
    return {**PROD_CONFIG, **changes}


ENV = "serviceConfig.environmentVariables.MLGOV_POLICY"
_T4 = [{"type": "nvidia-tesla-t4", "count": 1.0}]

CASES: tuple[Case, ...] = (
    # labels
    Case("labels-missing-team", "mlgov-labels-required", (d("nb-alice", "labels.team"),)),
    Case("labels-missing-all", "mlgov-labels-required", (d("metadata-db", "settings.userLabels"),)),
    Case("labels-empty-value", "mlgov-labels-required", (s("features", "labels.team", ""),)),
    Case(
        "labels-boot-disk",
        "mlgov-labels-required",
        (d("gpu-vm", "bootDisk.initializeParams.labels"),),
    ),
    Case(
        "labels-boot-disk-from-source",
        None,
        (s("gpu-vm", "bootDisk", {"source": "projects/p/zones/z/disks/d"}),),
    ),
    Case(
        "labels-node-pool", "mlgov-labels-required", (d("gpu-pool", "nodeConfig.resourceLabels"),)
    ),
    Case("labels-cluster", "mlgov-labels-required", (d("gke", "resourceLabels"),)),
    Case(
        "labels-custom-required",
        "mlgov-labels-required",
        (),
        cfg(required_labels=["team", "owner"]),
        resource="peering-range",
    ),
    Case(
        "labels-uppercase-value", "mlgov-labels-valid", (s("nb-alice", "labels.team", "Research"),)
    ),
    Case("labels-bad-key", "mlgov-labels-valid", (s("budget-topic", "labels.9lives", "x"),)),
    Case("labels-long-value", "mlgov-labels-valid", (s("source", "labels.extra", "x" * 64),)),
    Case("labels-63-char-value", None, (s("source", "labels.extra", "x" * 63),)),
    Case("labels-expires-on", None, (s("tpu", "labels.mlgov-expires-on", "2026-12-31"),)),
    # location
    Case(
        "zone-other-region",
        "mlgov-location-in-region",
        (s("nb-alice", "location", "europe-west4-a"),),
    ),
    Case("sql-other-region", "mlgov-location-in-region", (s("metadata-db", "region", "us-east1"),)),
    Case(
        "pool-node-location",
        "mlgov-location-in-region",
        (s("gpu-pool", "nodeLocations", ["us-central1-a", "us-east1-b"]),),
    ),
    Case("bucket-multi-region", "mlgov-location-in-region", (s("source", "location", "US"),)),
    Case("bq-multi-region", "mlgov-location-in-region", (s("features", "location", "US"),)),
    Case(
        "bq-multi-region-allowed",
        None,
        (s("features", "location", "US"),),
        cfg(allowed_bigquery_locations=["US"]),
    ),
    Case(
        "region-inferred",
        "mlgov-location-in-region",
        (s("features", "location", "US"),),
        cfg(region=None),
    ),
    Case("region-ambiguous-skipped", None, (s("tpu", "zone", "us-east1-c"),), cfg(region=None)),
    Case(
        "function-trigger-region",
        "mlgov-location-in-region",
        (s("budget-fn", "eventTrigger.triggerRegion", "us-east1"),),
    ),
    # workbench
    Case(
        "idle-missing",
        "mlgov-workbench-idle-shutdown",
        (d("nb-alice", "gceSetup.metadata.idle-timeout-seconds"),),
    ),
    Case(
        "idle-too-long",
        "mlgov-workbench-idle-shutdown",
        (s("nb-alice", "gceSetup.metadata.idle-timeout-seconds", "86400"),),
    ),
    Case(
        "idle-garbage",
        "mlgov-workbench-idle-shutdown",
        (s("nb-alice", "gceSetup.metadata.idle-timeout-seconds", "soon"),),
    ),
    Case("idle-at-limit", None, (s("nb-alice", "gceSetup.metadata.idle-timeout-seconds", "7200"),)),
    Case("idle-number", None, (s("nb-alice", "gceSetup.metadata.idle-timeout-seconds", 3600.0),)),
    Case(
        "guest-attributes-off",
        "mlgov-workbench-guest-attributes",
        (s("nb-alice", "gceSetup.metadata.enable-guest-attributes", "FALSE"),),
    ),
    Case(
        "guest-attributes-missing",
        "mlgov-workbench-guest-attributes",
        (d("nb-alice", "gceSetup.metadata.enable-guest-attributes"),),
    ),
    Case(
        "notebook-public-ip",
        "mlgov-workbench-no-public-ip",
        (s("nb-alice", "gceSetup.disablePublicIp", False),),
    ),
    Case(
        "notebook-public-ip-default",
        "mlgov-workbench-no-public-ip",
        (d("nb-alice", "gceSetup.disablePublicIp"),),
    ),
    Case(
        "notebook-machine",
        "mlgov-workbench-machine-type-allowed",
        (s("nb-alice", "gceSetup.machineType", "a2-highgpu-1g"),),
    ),
    Case(
        "notebook-machine-any",
        None,
        (s("nb-alice", "gceSetup.machineType", "a2-highgpu-1g"),),
        cfg(notebook_machine_types=[]),
    ),
    Case(
        "notebook-gpu",
        "mlgov-workbench-gpu-allowed",
        (
            s(
                "nb-alice",
                "gceSetup.acceleratorConfigs",
                [{"type": "NVIDIA_TESLA_A100", "coreCount": "1"}],
            ),
        ),
    ),
    Case(
        "notebook-gpu-none-allowed",
        "mlgov-workbench-gpu-allowed",
        (),
        cfg(notebook_gpu_types=[]),
        resource="nb-alice",
    ),
    Case(
        "notebook-no-gpu",
        None,
        (d("nb-alice", "gceSetup.acceleratorConfigs"),),
        cfg(notebook_gpu_types=[]),
    ),
    # training
    Case("pool-on-demand", "mlgov-training-spot", (s("gpu-pool", "nodeConfig.spot", False),)),
    Case(
        "pool-preemptible",
        None,
        (d("gpu-pool", "nodeConfig.spot"), s("gpu-pool", "nodeConfig.preemptible", True)),
    ),
    Case("system-pool-on-demand", None, (s("system-pool", "nodeConfig.spot", False),)),
    Case(
        "tpu-pool-on-demand",
        "mlgov-training-spot",
        (
            s(
                "gpu-pool",
                "nodeConfig",
                {"machineType": "ct5lp-hightpu-4t", "resourceLabels": labels("training")},
            ),
        ),
    ),
    Case("tpu-vm-on-demand", "mlgov-training-spot", (s("tpu", "schedulingConfig", {}),)),
    Case("tpu-vm-preemptible", None, (s("tpu", "schedulingConfig", {"preemptible": True}),)),
    Case(
        "gpu-vm-standard",
        "mlgov-training-spot",
        (
            s("gpu-vm", "scheduling.provisioningModel", "STANDARD"),
            s("gpu-vm", "scheduling.preemptible", False),
        ),
    ),
    Case(
        "gpu-vm-builtin-gpu",
        "mlgov-training-spot",
        (
            d("gpu-vm", "guestAccelerators"),
            s("gpu-vm", "scheduling.provisioningModel", "STANDARD"),
            d("gpu-vm", "scheduling.preemptible"),
        ),
    ),
    Case(
        "cpu-vm-on-demand",
        None,
        (
            s("gpu-vm", "machineType", "e2-standard-4"),
            d("gpu-vm", "guestAccelerators"),
            s("gpu-vm", "scheduling", {}),
        ),
    ),
    Case(
        "pool-min-one",
        "mlgov-training-scale-from-zero",
        (s("gpu-pool", "autoscaling.totalMinNodeCount", 1.0),),
    ),
    Case(
        "pool-zonal-min-one",
        "mlgov-training-scale-from-zero",
        (s("gpu-pool", "autoscaling", {"minNodeCount": 1.0, "maxNodeCount": 2.0}),),
    ),
    Case("pool-no-autoscaling", "mlgov-training-scale-from-zero", (d("gpu-pool", "autoscaling"),)),
    Case(
        "pool-initial-nodes",
        "mlgov-training-scale-from-zero",
        (s("gpu-pool", "initialNodeCount", 2.0),),
    ),
    Case(
        "gpu-vm-no-max-run",
        "mlgov-training-max-run-duration",
        (d("gpu-vm", "scheduling.maxRunDuration"),),
    ),
    # GKE
    Case(
        "nap-off",
        "mlgov-gke-autoprovisioning-limits",
        (s("gke", "clusterAutoscaling.enabled", False),),
    ),
    Case("nap-missing", "mlgov-gke-autoprovisioning-limits", (d("gke", "clusterAutoscaling"),)),
    Case(
        "nap-no-accelerator-limit",
        "mlgov-gke-autoprovisioning-limits",
        (
            s(
                "gke",
                "clusterAutoscaling.resourceLimits",
                [
                    {"resourceType": "cpu", "maximum": 64.0},
                    {"resourceType": "memory", "maximum": 256.0},
                ],
            ),
        ),
    ),
    Case(
        "nap-no-memory-limit",
        "mlgov-gke-autoprovisioning-limits",
        (
            s(
                "gke",
                "clusterAutoscaling.resourceLimits",
                [
                    {"resourceType": "cpu", "maximum": 64.0},
                    {"resourceType": "nvidia-l4", "maximum": 2.0},
                ],
            ),
        ),
    ),
    Case("autopilot", None, (d("gke", "clusterAutoscaling"), s("gke", "enableAutopilot", True))),
    Case(
        "default-pool-gpu",
        "mlgov-gke-no-gpu-default-pool",
        (
            s("gke", "removeDefaultNodePool", False),
            s("gke", "nodeConfig", {"machineType": "n1-standard-4", "guestAccelerators": _T4}),
        ),
    ),
    Case(
        "default-pool-cpu",
        None,
        (
            s("gke", "removeDefaultNodePool", False),
            s("gke", "nodeConfig", {"machineType": "e2-standard-4"}),
        ),
    ),
    Case(
        "cost-allocation-off",
        "mlgov-gke-cost-allocation",
        (s("gke", "costManagementConfig.enabled", False),),
    ),
    # Cloud SQL
    Case(
        "sql-public-no-networks",
        "mlgov-sql-no-public-ip",
        (s("metadata-db", "settings.ipConfiguration.ipv4Enabled", True),),
    ),
    Case(
        "sql-public-default",
        "mlgov-sql-no-public-ip",
        (d("metadata-db", "settings.ipConfiguration"),),
    ),
    Case(
        "sql-public-open",
        "mlgov-sql-no-public-ip",
        (
            s("metadata-db", "settings.ipConfiguration.ipv4Enabled", True),
            s(
                "metadata-db",
                "settings.ipConfiguration.authorizedNetworks",
                [{"value": "0.0.0.0/0"}],
            ),
        ),
    ),
    Case(
        "sql-public-restricted",
        None,
        (
            s("metadata-db", "settings.ipConfiguration.ipv4Enabled", True),
            s(
                "metadata-db",
                "settings.ipConfiguration.authorizedNetworks",
                [{"name": "office", "value": "203.0.113.0/24"}],
            ),
        ),
    ),
    Case(
        "sql-tier",
        "mlgov-sql-tier-allowed",
        (s("metadata-db", "settings.tier", "db-custom-16-61440"),),
    ),
    Case(
        "sql-no-protection",
        "mlgov-sql-prod-deletion-protection",
        (s("metadata-db", "deletionProtection", False),),
    ),
    Case(
        "sql-no-gcp-protection",
        "mlgov-sql-prod-deletion-protection",
        (s("metadata-db", "settings.deletionProtectionEnabled", False),),
    ),
    Case(
        "sql-no-protection-dev",
        None,
        (
            s("metadata-db", "deletionProtection", False),
            s("metadata-db", "settings.deletionProtectionEnabled", False),
        ),
        cfg(environment="dev"),
    ),
    Case(
        "sql-no-backups",
        "mlgov-sql-prod-backups",
        (s("metadata-db", "settings.backupConfiguration.enabled", False),),
    ),
    Case(
        "sql-no-backups-staging",
        None,
        (s("metadata-db", "settings.backupConfiguration.enabled", False),),
        cfg(environment="staging"),
    ),
    # BigQuery
    Case(
        "dataset-no-expiration",
        "mlgov-bigquery-dataset-expiration",
        (d("features", "defaultTableExpirationMs"),),
    ),
    Case(
        "dataset-zero-expiration",
        "mlgov-bigquery-dataset-expiration",
        (s("features", "defaultTableExpirationMs", "0"),),
    ),
    Case(
        "dataset-partition-expiration",
        None,
        (
            d("features", "defaultTableExpirationMs"),
            s("features", "defaultPartitionExpirationMs", 2592000000.0),
        ),
    ),
    Case(
        "billing-export-expires",
        "mlgov-bigquery-billing-export-retained",
        (s("billing-export", "defaultTableExpirationMs", "86400000"),),
    ),
    Case(
        "billing-export-destroyable",
        "mlgov-bigquery-billing-export-retained",
        (s("billing-export", "deleteContentsOnDestroy", True),),
    ),
    Case(
        "billing-export-custom-id",
        "mlgov-bigquery-billing-export-retained",
        (s("features", "deleteContentsOnDestroy", True),),
        cfg(billing_export_dataset="features"),
    ),
    Case(
        "table-unpartitioned",
        "mlgov-bigquery-table-partitioned",
        (d("events", "timePartitioning"),),
    ),
    Case(
        "view-unpartitioned",
        None,
        (
            d("events", "timePartitioning"),
            s("events", "view", {"query": "select 1", "useLegacySql": False}),
        ),
    ),
    # budgets and billing
    Case("no-budget", "mlgov-budget-required", (("drop", "budget"),), resource=""),
    Case("budget-no-thresholds", "mlgov-budget-required", (s("budget", "thresholdRules", []),)),
    Case("budget-no-topic", "mlgov-budget-required", (d("budget", "allUpdatesRule.pubsubTopic"),)),
    Case(
        "budget-topic-unwired",
        "mlgov-budget-topic-wired",
        (s("budget-fn", "eventTrigger.pubsubTopic", f"projects/{PROJECT}/topics/other"),),
        resource="budget",
    ),
    Case("budget-no-functions", None, (("drop", "budget-fn"),)),
    Case(
        "billing-disable-prod-project",
        "mlgov-billing-disable-not-in-prod",
        (s("budget-fn", ENV, _policy(allow_billing_disable=True)),),
    ),
    Case(
        "billing-disable-prod-stack",
        "mlgov-billing-disable-not-in-prod",
        (s("budget-fn", ENV, _policy(allow_billing_disable=True, environment="dev")),),
    ),
    Case(
        "billing-disable-dev",
        None,
        (s("budget-fn", ENV, _policy(allow_billing_disable=True, environment="dev")),),
        cfg(environment="dev"),
    ),
    Case(
        "billing-policy-not-json",
        "mlgov-billing-disable-not-in-prod",
        (s("budget-fn", ENV, "{not json"),),
    ),
    # functions, scheduler, IAM, storage
    Case(
        "function-default-sa",
        "mlgov-functions-service-account",
        (
            s(
                "budget-fn",
                "serviceConfig.serviceAccountEmail",
                "123456789012-compute@developer.gserviceaccount.com",
            ),
        ),
    ),
    Case(
        "function-no-sa",
        "mlgov-functions-service-account",
        (d("budget-fn", "serviceConfig.serviceAccountEmail"),),
    ),
    Case(
        "function-no-retry",
        "mlgov-functions-event-retry",
        (s("budget-fn", "eventTrigger.retryPolicy", "RETRY_POLICY_DO_NOT_RETRY"),),
    ),
    Case("scheduler-no-oidc", "mlgov-scheduler-oidc", (d("reap-idle", "httpTarget.oidcToken"),)),
    Case(
        "scheduler-oauth-to-function",
        "mlgov-scheduler-oidc",
        (
            s("reap-idle", "httpTarget.oidcToken", None),
            s(
                "reap-idle",
                "httpTarget.oauthToken",
                {"serviceAccountEmail": "sched@acme.iam.gserviceaccount.com"},
            ),
        ),
    ),
    Case(
        "scheduler-oidc-to-google-api",
        None,
        (
            d("nb-alice-stop", "httpTarget.oauthToken"),
            s(
                "nb-alice-stop",
                "httpTarget.oidcToken",
                {"serviceAccountEmail": "a@b.iam.gserviceaccount.com"},
            ),
        ),
    ),
    Case(
        "function-public", "mlgov-iam-no-public-members", (s("reap-invoker", "member", "allUsers"),)
    ),
    Case(
        "run-public", "mlgov-iam-no-public-members", (s("reap-run-invoker", "member", "allUsers"),)
    ),
    Case(
        "bucket-public",
        "mlgov-iam-no-public-members",
        (s("source-reader", "member", "allAuthenticatedUsers"),),
    ),
    Case(
        "bucket-binding-public",
        "mlgov-iam-no-public-members",
        (s("source-binding", "members", ["allUsers"]),),
    ),
    Case(
        "dataset-member-public",
        "mlgov-iam-no-public-members",
        (s("features-reader", "member", "allUsers"),),
    ),
    Case(
        "dataset-access-public",
        "mlgov-iam-no-public-members",
        (s("features-owners", "specialGroup", "allAuthenticatedUsers"),),
    ),
    Case(
        "dataset-inline-public",
        "mlgov-iam-no-public-members",
        (s("features", "accesses", [{"role": "READER", "specialGroup": "allAuthenticatedUsers"}]),),
    ),
    Case(
        "topic-public",
        "mlgov-iam-no-public-members",
        (s("budget-publisher", "member", "allUsers"),),
    ),
    Case(
        "sa-editor",
        "mlgov-iam-no-primitive-roles",
        (s("gov-role-binding", "role", "roles/editor"),),
    ),
    Case(
        "sa-owner-binding",
        "mlgov-iam-no-primitive-roles",
        (s("log-writers", "role", "roles/owner"),),
    ),
    Case(
        "group-viewer",
        None,
        (
            s("gov-role-binding", "role", "roles/viewer"),
            s("gov-role-binding", "member", "group:ml@acme.example"),
        ),
    ),
    Case(
        "bucket-pap-inherited",
        "mlgov-storage-no-public-access",
        (s("source", "publicAccessPrevention", "inherited"),),
    ),
    Case(
        "bucket-acls",
        "mlgov-storage-no-public-access",
        (s("source", "uniformBucketLevelAccess", False),),
    ),
)
