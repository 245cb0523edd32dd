"""The literal registry of mlgov policies: names, meaning, enforcement and covered types.

One entry per rule; rules.py holds the checks. evaluate.py runs this registry offline, pack.py
turns it into CrossGuard policies, and README's policy table is written from it. Types that no
rule checks are listed in UNCHECKED_TYPES with the reason, and `uncovered_types` lets a test prove
every type the program creates is either covered or deliberately unchecked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mlgov_policies import rules as r
from mlgov_policies.config import PolicyConfig

Enforcement = Literal["mandatory", "advisory"]


@dataclass(frozen=True, kw_only=True)
class RuleInfo:
    """What a rule checks and why, for humans and for the CrossGuard pack."""

    name: str
    why: str
    remediation: str
    enforcement: Enforcement
    types: frozenset[str]
    config_keys: tuple[str, ...] = ()
    """PolicyConfig fields the rule reads (they become its CrossGuard config schema)."""

    @property
    def description(self) -> str:
        """One-line description (the check's docstring)."""
        raise NotImplementedError

    def as_dict(self) -> dict[str, object]:
        """JSON-ready metadata."""
        return {
            "name": self.name,
            "kind": "stack" if isinstance(self, StackRule) else "resource",
            "description": self.description,
            "why": self.why,
            "remediation": self.remediation,
            "enforcement": self.enforcement,
            "types": sorted(self.types),
            "config_keys": list(self.config_keys),
        }


@dataclass(frozen=True, kw_only=True)
class ResourceRule(RuleInfo):
    """A rule over one resource's inputs."""

    check: r.ResourceCheck

    @property
    def description(self) -> str:  # noqa: D102
        return _first_line(self.check.__doc__)


@dataclass(frozen=True, kw_only=True)
class StackRule(RuleInfo):
    """A rule over all resources of the stack."""

    check: r.StackCheck

    @property
    def description(self) -> str:  # noqa: D102
        return _first_line(self.check.__doc__)


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().splitlines()[0] if doc else ""


_GPU_TYPES = frozenset({r.NODE_POOL, r.TPU_VM, r.COMPUTE_INSTANCE})
_ALL_IAM = r.IAM_MEMBER_TYPES | r.IAM_BINDING_TYPES | r.IAM_POLICY_TYPES

_RESOURCE_RULES = (
    ResourceRule(
        name="mlgov-labels-required",
        check=r.required_labels,
        types=frozenset(r.LABEL_FIELDS),
        enforcement="mandatory",
        config_keys=("required_labels",),
        why="Billing reports, budgets and the cleanup functions attribute spend by these labels; "
        "an unlabelled resource is spend nobody owns.",
        remediation="Pass labels from governance.labels.Labels (team, env, cost-center, workload, "
        "managed-by) into the resource's label field.",
    ),
    ResourceRule(
        name="mlgov-labels-valid",
        check=r.valid_labels,
        types=frozenset(r.LABEL_FIELDS),
        enforcement="mandatory",
        why="GCP rejects invalid labels at apply time, after a preview looked fine.",
        remediation="Lowercase keys and values, keys start with a letter, only [a-z0-9_-], "
        "at most 63 characters, at most 64 labels.",
    ),
    ResourceRule(
        name="mlgov-workbench-idle-shutdown",
        check=r.workbench_idle_shutdown,
        types=frozenset({r.WORKBENCH}),
        enforcement="mandatory",
        config_keys=("max_idle_minutes",),
        why="An idle notebook with a GPU costs as much as a busy one, all night and weekend.",
        remediation="Set gceSetup.metadata['idle-timeout-seconds'] (as a string) to at most "
        "max_idle_minutes * 60 (settings: notebooks.<name>.idle_minutes).",
    ),
    ResourceRule(
        name="mlgov-workbench-guest-attributes",
        check=r.workbench_guest_attributes,
        types=frozenset({r.WORKBENCH}),
        enforcement="mandatory",
        why="Workbench idle detection reads guest attributes; without them idle shutdown never "
        "fires.",
        remediation="Set gceSetup.metadata['enable-guest-attributes'] = 'TRUE'.",
    ),
    ResourceRule(
        name="mlgov-workbench-no-public-ip",
        check=r.workbench_no_public_ip,
        types=frozenset({r.WORKBENCH}),
        enforcement="mandatory",
        why="A public notebook VM is an internet-facing Jupyter server with project credentials; "
        "external IPs are also billed.",
        remediation="Set gceSetup.disablePublicIp = true and reach the notebook through the "
        "Workbench proxy (Cloud NAT gives it egress).",
    ),
    ResourceRule(
        name="mlgov-workbench-machine-type-allowed",
        check=r.workbench_machine_type,
        types=frozenset({r.WORKBENCH}),
        enforcement="mandatory",
        config_keys=("notebook_machine_types",),
        why="Machine size drives notebook cost; each environment fixes what a person may start.",
        remediation="Pick a machine type from the environment's notebook_machine_types, or add "
        "the type to the stack settings after review.",
    ),
    ResourceRule(
        name="mlgov-workbench-gpu-allowed",
        check=r.workbench_gpu,
        types=frozenset({r.WORKBENCH}),
        enforcement="mandatory",
        config_keys=("notebook_gpu_types",),
        why="A100/H100 notebooks cost 10-40x a T4 and are rarely needed interactively.",
        remediation="Use a GPU from notebook_gpu_types (default NVIDIA_TESLA_T4, NVIDIA_L4), or "
        "run large jobs on a spot training pool instead.",
    ),
    ResourceRule(
        name="mlgov-training-spot",
        check=r.training_spot,
        types=_GPU_TYPES,
        enforcement="mandatory",
        why="Spot GPUs/TPUs are 60-91% cheaper; training jobs checkpoint and tolerate preemption.",
        remediation="Node pools: nodeConfig.spot = true. TPU VMs: schedulingConfig.spot = true. "
        "GPU VMs: scheduling.provisioningModel = 'SPOT' (preemptible = true, "
        "automaticRestart = false).",
    ),
    ResourceRule(
        name="mlgov-training-scale-from-zero",
        check=r.training_scale_from_zero,
        types=frozenset({r.NODE_POOL}),
        enforcement="mandatory",
        why="A GPU/TPU pool that keeps one node bills that accelerator 24x7 with no work on it.",
        remediation="Set autoscaling.totalMinNodeCount (or minNodeCount) = 0 with a max, and "
        "initialNodeCount = 0; drop a fixed nodeCount.",
    ),
    ResourceRule(
        name="mlgov-training-max-run-duration",
        check=r.training_max_run_duration,
        types=frozenset({r.COMPUTE_INSTANCE}),
        enforcement="mandatory",
        why="Standalone GPU VMs are the classic forgotten resource; a run-time cap bounds the "
        "damage.",
        remediation="Set scheduling.maxRunDuration.seconds (e.g. 28800) with "
        "instanceTerminationAction = 'STOP'.",
    ),
    ResourceRule(
        name="mlgov-gke-autoprovisioning-limits",
        check=r.gke_autoprovisioning_limits,
        types=frozenset({r.CLUSTER}),
        enforcement="mandatory",
        why="Node auto-provisioning creates right-sized pools on demand; its CPU, memory and "
        "accelerator limits are the cluster's spending ceiling.",
        remediation="Set clusterAutoscaling.enabled = true with resourceLimits for cpu, memory "
        "and each accelerator type (nvidia-*/tpu-*), each with a maximum.",
    ),
    ResourceRule(
        name="mlgov-gke-no-gpu-default-pool",
        check=r.gke_default_pool_no_gpu,
        types=frozenset({r.CLUSTER}),
        enforcement="mandatory",
        why="The default pool is on-demand and never scales to zero; GPUs there bill around the "
        "clock.",
        remediation="Set removeDefaultNodePool = true and put GPUs in a separate spot node pool.",
    ),
    ResourceRule(
        name="mlgov-gke-cost-allocation",
        check=r.gke_cost_allocation,
        types=frozenset({r.CLUSTER}),
        enforcement="advisory",
        why="Without GKE cost allocation, the cluster bill cannot be split by namespace or "
        "workload label.",
        remediation="Set costManagementConfig.enabled = true.",
    ),
    ResourceRule(
        name="mlgov-sql-no-public-ip",
        check=r.sql_no_public_ip,
        types=frozenset({r.SQL_INSTANCE}),
        enforcement="mandatory",
        why="A metadata database with a public address (and worse, 0.0.0.0/0) is exposed to "
        "password guessing from the internet; GCP enables public IPv4 unless told not to.",
        remediation="Set settings.ipConfiguration.ipv4Enabled = false with privateNetwork; if a "
        "public IP is unavoidable, list specific authorizedNetworks (never 0.0.0.0/0).",
    ),
    ResourceRule(
        name="mlgov-sql-tier-allowed",
        check=r.sql_tier,
        types=frozenset({r.SQL_INSTANCE}),
        enforcement="mandatory",
        config_keys=("sql_tiers",),
        why="Cloud SQL bills per provisioned vCPU and memory, idle or not; tiers are sized per "
        "environment.",
        remediation="Use a tier from the environment's sql_tiers.",
    ),
    ResourceRule(
        name="mlgov-sql-prod-deletion-protection",
        check=r.sql_prod_deletion_protection,
        types=frozenset({r.SQL_INSTANCE}),
        enforcement="mandatory",
        config_keys=("environment",),
        why="Losing the prod metadata store loses pipeline lineage; both Pulumi and GCP must "
        "refuse to delete it.",
        remediation="In prod set deletionProtection = true and "
        "settings.deletionProtectionEnabled = true.",
    ),
    ResourceRule(
        name="mlgov-sql-prod-backups",
        check=r.sql_prod_backups,
        types=frozenset({r.SQL_INSTANCE}),
        enforcement="mandatory",
        config_keys=("environment",),
        why="Prod metadata without backups cannot be restored after a bad migration.",
        remediation="In prod set settings.backupConfiguration.enabled = true.",
    ),
    ResourceRule(
        name="mlgov-bigquery-dataset-expiration",
        check=r.bigquery_dataset_expiration,
        types=frozenset({r.DATASET}),
        enforcement="mandatory",
        config_keys=("billing_export_dataset",),
        why="Scratch and feature tables pile up storage cost forever unless they expire.",
        remediation="Set defaultTableExpirationMs or defaultPartitionExpirationMs on the dataset.",
    ),
    ResourceRule(
        name="mlgov-bigquery-billing-export-retained",
        check=r.bigquery_billing_export_retained,
        types=frozenset({r.DATASET}),
        enforcement="mandatory",
        config_keys=("billing_export_dataset",),
        why="Billing export history cannot be re-exported for past months; expiring or deleting "
        "it loses the cost record for good.",
        remediation="Leave both expirations unset and deleteContentsOnDestroy false on the "
        "billing export dataset (protect it with retainOnDelete).",
    ),
    ResourceRule(
        name="mlgov-bigquery-table-partitioned",
        check=r.bigquery_table_partitioned,
        types=frozenset({r.TABLE}),
        enforcement="mandatory",
        why="Queries on unpartitioned tables scan (and bill) every byte; partitions also make "
        "expiration work.",
        remediation="Set timePartitioning.type (DAY, HOUR, MONTH or YEAR) and, for large tables, "
        "requirePartitionFilter = true.",
    ),
    ResourceRule(
        name="mlgov-billing-disable-not-in-prod",
        check=r.billing_disable_not_in_prod,
        types=frozenset({r.FUNCTION}),
        enforcement="mandatory",
        config_keys=("environment",),
        why="Unlinking billing stops every service in the project and may delete resources: "
        "never acceptable for production.",
        remediation="Set allow_billing_disable: false for prod projects; use stop_at to stop "
        "workloads instead.",
    ),
    ResourceRule(
        name="mlgov-functions-service-account",
        check=r.functions_service_account,
        types=frozenset({r.FUNCTION}),
        enforcement="mandatory",
        why="The default compute service account is Editor on the project; a function that can "
        "stop VMs must not also be able to change everything else.",
        remediation="Set serviceConfig.serviceAccountEmail (and eventTrigger.serviceAccountEmail) "
        "to a dedicated account with a custom role.",
    ),
    ResourceRule(
        name="mlgov-functions-event-retry",
        check=r.functions_event_retry,
        types=frozenset({r.FUNCTION}),
        enforcement="advisory",
        why="Functions created with the v2 API do not retry events; one transient error drops a "
        "budget alert.",
        remediation="Set eventTrigger.retryPolicy = 'RETRY_POLICY_RETRY' (handlers are "
        "idempotent).",
    ),
    ResourceRule(
        name="mlgov-scheduler-oidc",
        check=r.scheduler_oidc,
        types=frozenset({r.SCHEDULER_JOB}),
        enforcement="mandatory",
        why="Without an OIDC token the function or Cloud Run endpoint must accept anonymous "
        "calls, and anyone can trigger the cleanup.",
        remediation="Set httpTarget.oidcToken {serviceAccountEmail, audience}; keep oauthToken "
        "only for *.googleapis.com URIs.",
    ),
    ResourceRule(
        name="mlgov-iam-no-public-members",
        check=r.iam_no_public_members,
        types=_ALL_IAM | {r.DATASET_ACCESS, r.DATASET},
        enforcement="mandatory",
        why="allUsers/allAuthenticatedUsers make functions callable, buckets readable and "
        "datasets queryable by anyone (and queries on your bill).",
        remediation="Grant roles to specific service accounts or groups instead.",
    ),
    ResourceRule(
        name="mlgov-iam-no-primitive-roles",
        check=r.iam_no_primitive_roles,
        types=_ALL_IAM,
        enforcement="mandatory",
        why="Owner/Editor/Viewer grant thousands of permissions; governance accounts need a "
        "handful.",
        remediation="Use a custom role with exactly the permissions the function's actions need.",
    ),
    ResourceRule(
        name="mlgov-storage-no-public-access",
        check=r.storage_no_public_access,
        types=frozenset({r.BUCKET}),
        enforcement="mandatory",
        why="Public buckets leak function source and data, and egress is billed to you.",
        remediation="Set publicAccessPrevention = 'enforced' and uniformBucketLevelAccess = true.",
    ),
)

_STACK_RULES = (
    StackRule(
        name="mlgov-location-in-region",
        check=r.location_in_region,
        types=frozenset(r.LOCATION_FIELDS),
        enforcement="mandatory",
        config_keys=("region", "allowed_bigquery_locations"),
        why="Cross-region traffic is billed, quotas and prices differ per region, and the "
        "automation only watches the stack's zones.",
        remediation="Put the resource in the stack's region (zones <region>-a/b/...); BigQuery "
        "may also use the configured allowed_bigquery_locations.",
    ),
    StackRule(
        name="mlgov-budget-required",
        check=r.budget_required,
        types=frozenset({r.BUDGET}),
        enforcement="mandatory",
        why="A budget with thresholds is the only signal that spend is running away; without a "
        "topic nothing can act on it.",
        remediation="Create a ProjectBudget with thresholdRules and allUpdatesRule.pubsubTopic.",
    ),
    StackRule(
        name="mlgov-budget-topic-wired",
        check=r.budget_topic_wired,
        types=frozenset({r.BUDGET, r.FUNCTION}),
        enforcement="mandatory",
        why="A budget that publishes to a topic no function listens on never stops anything.",
        remediation="Set the budget function's eventTrigger.pubsubTopic to the budget's "
        "allUpdatesRule.pubsubTopic.",
    ),
)

RESOURCE_RULES: Mapping[str, ResourceRule] = {rule.name: rule for rule in _RESOURCE_RULES}
STACK_RULES: Mapping[str, StackRule] = {rule.name: rule for rule in _STACK_RULES}
ALL_RULES: Mapping[str, RuleInfo] = {**RESOURCE_RULES, **STACK_RULES}

# Types the program creates that no rule checks, and why that is deliberate.
UNCHECKED_TYPES: Mapping[str, str] = {
    "gcp:compute/network:Network": "global, no labels, no cost of its own",
    "gcp:servicenetworking/connection:Connection": "global peering, no labels, no cost of its "
    "own; the reserved range is a checked GlobalAddress",
    "gcp:serviceaccount/account:Account": "identity only, no labels or cost; what it may do is "
    "checked on the IAM member resources",
    "gcp:projects/iAMCustomRole:IAMCustomRole": "its permission list is derived from the "
    "function actions and pinned by the program's tests; a role grants nothing until bound",
    "gcp:sql/database:Database": "lives inside a checked DatabaseInstance; no labels or cost",
    "gcp:sql/user:User": "lives inside a checked DatabaseInstance; password is a secret",
    "random:index/randomPassword:RandomPassword": "not a cloud resource",
    "gcp:storage/bucketObject:BucketObject": "the function archive inside a checked bucket; "
    "objects have no labels",
}

# Component, provider and stack tokens are not cloud resources.
_NON_RESOURCE_PREFIXES = ("mlgov:", "pulumi:")


def covered_types() -> frozenset[str]:
    """Every type at least one rule looks at."""
    return frozenset(t for rule in ALL_RULES.values() for t in rule.types)


def uncovered_types(types: Iterable[str]) -> set[str]:
    """Types among `types` that no rule checks and UNCHECKED_TYPES does not explain."""
    covered = covered_types()
    return {
        t
        for t in types
        if t not in covered
        and t not in UNCHECKED_TYPES
        and not t.startswith(_NON_RESOURCE_PREFIXES)
    }


def rules_for_type(type_: str) -> tuple[ResourceRule, ...]:
    """Resource rules that apply to `type_`, in registry order."""
    return _BY_TYPE.get(type_, ())


def _index() -> dict[str, tuple[ResourceRule, ...]]:
    by_type: dict[str, list[ResourceRule]] = {}
    for rule in RESOURCE_RULES.values():
        for type_ in rule.types:
            by_type.setdefault(type_, []).append(rule)
    return {t: tuple(rs) for t, rs in by_type.items()}


_BY_TYPE = _index()


def crossguard_config(config: PolicyConfig) -> dict[str, dict[str, Any]]:
    """A `--policy-pack-config` document that gives each policy the keys it reads from `config`.

    CrossGuard configures each policy separately; this spreads one PolicyConfig over them.
    `region: None` is left out (the region rule then infers it from the resources).
    """
    values = config.as_dict()
    document: dict[str, dict[str, Any]] = {}
    for rule in ALL_RULES.values():
        keys = {k: values[k] for k in rule.config_keys if values[k] is not None}
        if keys:
            document[rule.name] = keys
    return document
