"""IAM rules: nothing is granted to the public, and service accounts get no primitive roles.

Covers every resource that grants a role: IAM member, binding and policy resources of the
services mlgov uses, BigQuery dataset access entries and datasets' inline `accesses`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, as_str, dig
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
_PUBLIC_MEMBERS_LOWER = frozenset(member.lower() for member in PUBLIC_MEMBERS)
# Basic (primitive) roles: https://cloud.google.com/iam/docs/roles-overview#basic
PRIMITIVE_ROLES = frozenset({"roles/owner", "roles/editor", "roles/viewer"})


def _members(type_: str, props: Mapping[str, Any]) -> Iterator[tuple[str, str | None, str]]:
    """(where, role, member) for every known member a resource grants."""
    if type_ in IAM_MEMBER_TYPES:
        member = as_str(dig(props, "member"))
        if member:
            yield "member", as_str(dig(props, "role")), member
    elif type_ in IAM_BINDING_TYPES:
        for member in as_list(dig(props, "members")):
            if as_str(member):
                yield "members", as_str(dig(props, "role")), member
    elif type_ in IAM_POLICY_TYPES:
        raw = as_str(dig(props, "policyData"))
        try:
            data: object = json.loads(raw) if raw else {}
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python recurses
            return
        for binding in as_list(dig(data, "bindings")):
            for member in as_list(dig(binding, "members")):
                if as_str(member):
                    yield "policyData", as_str(dig(binding, "role")), member
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
    for where, role, member in _members(type_, props):
        if member.lower() in _PUBLIC_MEMBERS_LOWER:
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
    for where, role, member in _members(type_, props):
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
