"""The literal index of mlgov's policy rules, and what follows from it.

`RULES` lists every rule once; the rules themselves (check and metadata side by side) live in
`rules/<service>.py` (cost governance), `acceptance/<service>.py` (what the Google APIs would
refuse) and `schema/rules.py` (inputs against the installed pulumi-gcp types). The order is the
order of findings for one resource, of CrossGuard's policies and of the generated pack configs,
so append new rules rather than re-sorting. Types
that no rule checks are listed in UNCHECKED_TYPES with the reason, and `uncovered_types` lets a
test prove every type the program creates is either covered or deliberately unchecked.
evaluate.py runs the rules offline, pack.py turns them into CrossGuard policies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mlgov_policies import acceptance
from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.rule import ResourceRule, Rule, StackRule
from mlgov_policies.rules import (
    artifactregistry,
    bigquery,
    billing,
    cloudlogging,
    compute,
    functions,
    gke,
    iam,
    labels,
    location,
    pubsub,
    scheduler,
    scope_grants,
    sql,
    storage,
    training,
    vertex,
    workbench,
)
from mlgov_policies.schema import rules as schema

RULES: tuple[Rule, ...] = (
    labels.REQUIRED,
    labels.VALID,
    workbench.IDLE_SHUTDOWN,
    workbench.GUEST_ATTRIBUTES,
    workbench.NO_PUBLIC_IP,
    workbench.MACHINE_TYPE_ALLOWED,
    workbench.GPU_ALLOWED,
    training.SPOT,
    training.SCALE_FROM_ZERO,
    training.MAX_RUN_DURATION,
    gke.AUTOPROVISIONING_LIMITS,
    gke.NO_GPU_DEFAULT_POOL,
    gke.COST_ALLOCATION,
    sql.NO_PUBLIC_IP,
    sql.TIER_ALLOWED,
    sql.PROD_DELETION_PROTECTION,
    sql.PROD_BACKUPS,
    bigquery.DATASET_EXPIRATION,
    bigquery.BILLING_EXPORT_RETAINED,
    bigquery.TABLE_PARTITIONED,
    billing.DISABLE_NOT_IN_PROD,
    functions.SERVICE_ACCOUNT,
    functions.EVENT_RETRY,
    scheduler.OIDC,
    iam.NO_PUBLIC_MEMBERS,
    iam.NO_PRIMITIVE_ROLES,
    storage.NO_PUBLIC_ACCESS,
    location.IN_REGION,
    billing.BUDGET_REQUIRED,
    billing.BUDGET_TOPIC_WIRED,
    gke.CONTROL_PLANE_PRIVATE,
    functions.EVENT_INGRESS,
    workbench.ROOT_ACCESS,
    storage.FUNCTION_SOURCE_KEPT,
    storage.LIFECYCLE_REQUIRED,
    storage.ABORT_INCOMPLETE_UPLOADS,
    artifactregistry.CLEANUP_POLICIES,
    bigquery.QUERY_QUOTA,
    cloudlogging.RETENTION_BOUNDED,
    vertex.AUTOSCALING_BOUNDS,
    vertex.MIN_REPLICAS,
    vertex.SERVING_ACCELERATORS,
    bigquery.TABLE_EXPIRATION_IGNORED,
    workbench.GPU_DRIVER,
    labels.EXPIRY_NOT_EXEMPT,
    acceptance.gpus.WORKBENCH_RULE,
    acceptance.gpus.COMPUTE_RULE,
    acceptance.gpus.GKE_RULE,
    acceptance.tpus.RUNTIME_RULE,
    acceptance.tpus.ZONE_RULE,
    acceptance.tpus.TOPOLOGY_RULE,
    acceptance.bigquery.RULE,
    acceptance.scheduling.RULE,
    acceptance.functions.RULE,
    acceptance.scheduler.RULE,
    schema.VALID_INPUTS,
    schema.KNOWN_TYPE,
    gke.AUTOPILOT_NOT_CAPPED,
    iam.DEDICATED_SERVICE_ACCOUNT,
    billing.BUDGET_TOPIC_PUBLISHER,
    acceptance.spend_caps.BODY_RULE,
    acceptance.spend_caps.CURRENCY_RULE,
    billing.SPEND_CAP_PAIRED,
    billing.SPEND_CAP_BLOCKS_AUTOMATION,
    compute.NO_PUBLIC_IP,
    pubsub.WORK_TOPIC_PUBLISHER,
    scope_grants.SCOPE_LEAST_PRIVILEGE,
)

ALL_RULES: Mapping[str, Rule] = {rule.name: rule for rule in RULES}
RESOURCE_RULES: Mapping[str, ResourceRule] = {
    rule.name: rule for rule in RULES if isinstance(rule, ResourceRule)
}
STACK_RULES: Mapping[str, StackRule] = {
    rule.name: rule for rule in RULES if isinstance(rule, StackRule)
}

# Types the program creates that no rule checks, and why that is deliberate.
UNCHECKED_TYPES: Mapping[str, str] = {
    v.COMPUTE_NETWORK: "global, no labels, no cost of its own",
    v.SERVICE_NETWORKING_CONNECTION: "global peering, no labels, no cost of its own; the "
    "reserved range is a checked GlobalAddress",
    v.SERVICE_ACCOUNT: "identity only, no labels or cost; what it may do is checked on the IAM "
    "member resources",
    v.PROJECT_CUSTOM_ROLE: "its permission list is derived from the function actions and pinned "
    "by the program's tests; a role grants nothing until bound",
    v.SQL_DATABASE: "lives inside a checked DatabaseInstance; no labels or cost",
    v.SQL_USER: "lives inside a checked DatabaseInstance; password is a secret",
    v.RANDOM_PASSWORD: "not a cloud resource",
    v.STORAGE_BUCKET_OBJECT: "the function archive inside a checked bucket; objects have no labels",
    v.LOGGING_EXCLUSION: "no labels or location, and it only lowers what is ingested (and billed)",
}

# Component, provider and stack tokens are not cloud resources.
_NON_RESOURCE_PREFIXES = (v.COMPONENT_PREFIX, "pulumi:")


# Schema validation looks at every type of the SDKs; coverage below means a rule about meaning.
_EVERY_TYPE: tuple[Rule, ...] = (schema.VALID_INPUTS, schema.KNOWN_TYPE)


def covered_types() -> frozenset[str]:
    """Every type at least one rule looks at beyond schema validation (which sees them all)."""
    return frozenset(t for rule in RULES if rule not in _EVERY_TYPE for t in rule.types)


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


def _by_type() -> dict[str, tuple[ResourceRule, ...]]:
    by_type: dict[str, list[ResourceRule]] = {}
    for rule in RESOURCE_RULES.values():
        for type_ in rule.types:
            by_type.setdefault(type_, []).append(rule)
    return {t: tuple(rules) for t, rules in by_type.items()}


_BY_TYPE = _by_type()


def rules_for_type(type_: str) -> tuple[ResourceRule, ...]:
    """Resource rules that apply to `type_`, in index order."""
    return _BY_TYPE.get(type_, ())


def crossguard_config(config: PolicyConfig) -> dict[str, dict[str, Any]]:
    """A `--policy-pack-config` document that gives each policy the keys it reads from `config`.

    CrossGuard configures each policy separately; this spreads one PolicyConfig over them.
    `region: None` is left out (the region rule then infers it from the resources).
    """
    values = config.as_dict()
    document: dict[str, dict[str, Any]] = {}
    for rule in RULES:
        keys = {k: values[k] for k in rule.config_keys if values[k] is not None}
        if keys:
            document[rule.name] = keys
    return document
