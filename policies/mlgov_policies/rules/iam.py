"""IAM rules: nothing granted to the public, no primitive roles, no default service account.

Covers every resource that grants a role: IAM member, binding and policy resources of the
services mlgov uses, BigQuery dataset access entries and datasets' inline `accesses`; and what
VMs, TPU VMs, node pools and notebooks run as (never the default Compute service account). Who
may publish to the budget topic is billing.py's rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, as_list, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule

# One member per resource (`member`).
IAM_MEMBER_TYPES = frozenset(
    {
        v.FUNCTION_V2_IAM_MEMBER,
        v.FUNCTION_V1_IAM_MEMBER,
        v.CLOUD_RUN_SERVICE_IAM_MEMBER,
        v.CLOUD_RUN_JOB_IAM_MEMBER,
        v.STORAGE_BUCKET_IAM_MEMBER,
        v.BQ_DATASET_IAM_MEMBER,
        v.PUBSUB_TOPIC_IAM_MEMBER,
        v.PUBSUB_SUBSCRIPTION_IAM_MEMBER,
        v.PROJECT_IAM_MEMBER,
        v.SERVICE_ACCOUNT_IAM_MEMBER,
    }
)
# A member list per resource (`members`).
IAM_BINDING_TYPES = frozenset(
    {
        v.FUNCTION_V2_IAM_BINDING,
        v.FUNCTION_V1_IAM_BINDING,
        v.CLOUD_RUN_SERVICE_IAM_BINDING,
        v.CLOUD_RUN_JOB_IAM_BINDING,
        v.STORAGE_BUCKET_IAM_BINDING,
        v.BQ_DATASET_IAM_BINDING,
        v.PUBSUB_TOPIC_IAM_BINDING,
        v.PUBSUB_SUBSCRIPTION_IAM_BINDING,
        v.PROJECT_IAM_BINDING,
        v.SERVICE_ACCOUNT_IAM_BINDING,
    }
)
# A whole policy as JSON (`policyData`).
IAM_POLICY_TYPES = frozenset(
    {
        v.FUNCTION_V2_IAM_POLICY,
        v.CLOUD_RUN_SERVICE_IAM_POLICY,
        v.STORAGE_BUCKET_IAM_POLICY,
        v.BQ_DATASET_IAM_POLICY,
        v.PUBSUB_TOPIC_IAM_POLICY,
        v.PROJECT_IAM_POLICY,
    }
)
_ALL_IAM = IAM_MEMBER_TYPES | IAM_BINDING_TYPES | IAM_POLICY_TYPES

# Principals that mean "anyone": https://cloud.google.com/iam/docs/principal-identifiers
PUBLIC_MEMBERS = frozenset({"allUsers", "allAuthenticatedUsers"})
PUBLIC_MEMBERS_LOWER = frozenset(member.lower() for member in PUBLIC_MEMBERS)
# Basic (primitive) roles: https://cloud.google.com/iam/docs/roles-overview#basic
PRIMITIVE_ROLES = frozenset({"roles/owner", "roles/editor", "roles/viewer"})


# Grants on a folder or an organization (every project below inherits them): the same three
# shapes, checked by mlgov-iam-scope-least-privilege (rules/scope_grants.py).
SCOPE_MEMBER_TYPES = frozenset({v.FOLDER_IAM_MEMBER, v.ORG_IAM_MEMBER})
SCOPE_BINDING_TYPES = frozenset({v.FOLDER_IAM_BINDING, v.ORG_IAM_BINDING})
SCOPE_POLICY_TYPES = frozenset({v.FOLDER_IAM_POLICY, v.ORG_IAM_POLICY})
SCOPE_GRANT_TYPES = SCOPE_MEMBER_TYPES | SCOPE_BINDING_TYPES | SCOPE_POLICY_TYPES


def scope_members(type_: str, props: Mapping[str, Any]) -> Iterator[tuple[str, str | None, str]]:
    """(where, role, member) for every known member a folder or organization grant gives."""
    if type_ in SCOPE_MEMBER_TYPES:
        yield from _grants("member", props)
    elif type_ in SCOPE_BINDING_TYPES:
        yield from _grants("binding", props)
    elif type_ in SCOPE_POLICY_TYPES:
        yield from _grants("policy", props)


def _grants(shape: str, props: Mapping[str, Any]) -> Iterator[tuple[str, str | None, str]]:
    """The members of an IAM member (`member`), binding (`members`) or policy (`policyData`)."""
    if shape == "member":
        member = as_str(dig(props, "member"))
        if member:
            yield "member", as_str(dig(props, "role")), member
    elif shape == "binding":
        for member in as_list(dig(props, "members")):
            if as_str(member):
                yield "members", as_str(dig(props, "role")), member
    else:
        raw = as_str(dig(props, "policyData"))
        try:
            data: object = json.loads(raw) if raw else {}
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python recurses
            return
        for binding in as_list(dig(data, "bindings")):
            for member in as_list(dig(binding, "members")):
                if as_str(member):
                    yield "policyData", as_str(dig(binding, "role")), member


def members(type_: str, props: Mapping[str, Any]) -> Iterator[tuple[str, str | None, str]]:
    """(where, role, member) for every known member a resource grants."""
    if type_ in IAM_MEMBER_TYPES:
        yield from _grants("member", props)
    elif type_ in IAM_BINDING_TYPES:
        yield from _grants("binding", props)
    elif type_ in IAM_POLICY_TYPES:
        yield from _grants("policy", props)
    elif type_ == v.BQ_DATASET_ACCESS:
        for key in ("iamMember", "specialGroup"):
            member = as_str(dig(props, key))
            if member:
                yield key, as_str(dig(props, "role")), member
    elif type_ == v.BQ_DATASET:
        for index, access in enumerate(as_list(dig(props, "accesses"))):
            for key in ("iamMember", "specialGroup"):
                member = as_str(dig(access, key))
                if member:
                    yield f"accesses[{index}].{key}", as_str(dig(access, "role")), member


def no_public_members(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Nothing is granted to allUsers or allAuthenticatedUsers."""
    del config
    for where, role, member in members(type_, props):
        if member.lower() in PUBLIC_MEMBERS_LOWER:
            yield f"{where} grants {role or 'a role'} to '{member}': anyone can use it"


NO_PUBLIC_MEMBERS = ResourceRule(
    name="mlgov-iam-no-public-members",
    check=no_public_members,
    types=_ALL_IAM | {v.BQ_DATASET_ACCESS, v.BQ_DATASET},
    enforcement="mandatory",
    why="allUsers/allAuthenticatedUsers make functions callable, buckets readable and "
    "datasets queryable by anyone (and queries on your bill).",
    remediation="Grant roles to specific service accounts or groups instead.",
)


def no_primitive_roles(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Service accounts get narrow roles, never Owner, Editor or Viewer on the project."""
    del config
    for where, role, member in members(type_, props):
        if role in PRIMITIVE_ROLES and member.startswith("serviceAccount:"):
            yield f"{where} grants primitive role {role} to '{member}'"


NO_PRIMITIVE_ROLES = ResourceRule(
    name="mlgov-iam-no-primitive-roles",
    check=no_primitive_roles,
    types=_ALL_IAM,
    enforcement="mandatory",
    why="Owner/Editor/Viewer grant thousands of permissions; governance accounts need a handful.",
    remediation="Use a custom role with exactly the permissions the function's actions need.",
)


# `<project number>-compute@developer.gserviceaccount.com`: the Compute Engine default service
# account, which has the Editor role on the project unless an organization policy stops that.
DEFAULT_COMPUTE_ACCOUNT = re.compile(
    r"(serviceAccount:)?\d+-compute@developer\.gserviceaccount\.com"
)
# GKE's nodeConfig.serviceAccount also takes "default" for the same account.
_DEFAULT_ALIAS = "default"
_VM_TYPES = frozenset(
    {v.COMPUTE_INSTANCE, v.COMPUTE_INSTANCE_TEMPLATE, v.COMPUTE_REGION_INSTANCE_TEMPLATE}
)


def _run_as(type_: str, props: Mapping[str, Any]) -> Iterator[tuple[str, object, bool]]:
    """(where, account, absent means the default account) for what a workload runs as."""
    if type_ == v.TPU_VM:
        # tpu.v2 Node.serviceAccount: "If None is specified, the default compute service
        # account will be used."
        yield "serviceAccount.email", dig(props, "serviceAccount", "email"), True
    elif type_ == v.GKE_NODE_POOL:
        # container.v1 NodeConfig.serviceAccount: "if no Service Account is specified, the
        # 'default' service account is used."
        yield "nodeConfig.serviceAccount", dig(props, "nodeConfig", "serviceAccount"), True
    elif type_ == v.GKE_CLUSTER:
        if as_bool(dig(props, "removeDefaultNodePool")) is not True and not as_bool(
            dig(props, "enableAutopilot")
        ):
            yield "nodeConfig.serviceAccount", dig(props, "nodeConfig", "serviceAccount"), True
        nap = as_bool(dig(props, "clusterAutoscaling", "enabled")) is True
        if nap or as_bool(dig(props, "enableAutopilot")) is True:
            path = ("clusterAutoscaling", "autoProvisioningDefaults", "serviceAccount")
            yield ".".join(path), dig(props, *path), True
    elif type_ == v.WORKBENCH_INSTANCE:
        accounts = dig(props, "gceSetup", "serviceAccounts")
        if is_unknown(accounts):
            return
        listed = as_list(accounts)
        # With none given, Workbench picks the VM's account itself (the project's default
        # Compute account): name a dedicated one.
        yield "gceSetup.serviceAccounts[0].email", dig(listed[0], "email") if listed else None, True
    elif type_ in _VM_TYPES:
        # Compute Engine attaches no account at all when none is given (compute.v1): only the
        # default account itself is flagged.
        yield "serviceAccount.email", dig(props, "serviceAccount", "email"), False


def dedicated_service_account(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """VMs, TPU VMs, node pools and notebooks run as a dedicated service account."""
    del config
    for where, account, absent_is_default in _run_as(type_, props):
        if is_unknown(account):
            continue
        email = as_str(account)
        if not email:
            if absent_is_default:
                yield (
                    f"{where} is not set: GCP runs it as the default Compute service account "
                    "(<number>-compute@developer.gserviceaccount.com)"
                )
        elif email == _DEFAULT_ALIAS or DEFAULT_COMPUTE_ACCOUNT.fullmatch(email):
            yield f"{where} is the default Compute service account ({email!r})"


DEDICATED_SERVICE_ACCOUNT = ResourceRule(
    name="mlgov-iam-dedicated-service-account",
    check=dedicated_service_account,
    types=frozenset({v.TPU_VM, v.GKE_NODE_POOL, v.GKE_CLUSTER, v.WORKBENCH_INSTANCE}) | _VM_TYPES,
    enforcement="mandatory",
    why="The default Compute service account holds the Editor role on the project: code on the "
    "VM (a notebook, a training job, a compromised dependency) could change or delete anything, "
    "the budget cap included.",
    remediation="Run each workload as its own service account with only the roles it needs "
    "(mlgov's components create one per kind: notebooks, GKE nodes, training VMs, TPU VMs).",
    source="tpu.v2 Node.serviceAccount, container.v1 NodeConfig.serviceAccount (discovery "
    "documents); https://cloud.google.com/compute/docs/access/service-accounts#default_service_account",
)
