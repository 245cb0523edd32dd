"""IAM rule: grants on a folder or an organization are least privilege.

A grant there reaches every project below it, so: no basic role (Owner, Editor, Viewer) to
anyone, nothing to the public, and a role that can unlink billing
(`resourcemanager.projects.deleteBillingAssignment`) only on a scope whose `MLGOV_POLICY` entry
allows billing unlink, never in prod. A stack rule: which organization custom roles unlink is
read from the stack's `gcp:organizations/iAMCustomRole` resources, where unlink is allowed from
the governance functions' policy. Project-level grants are iam.py's rules.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, as_mapping, as_str, dig, is_unknown
from mlgov_policies.rule import StackResource, StackRule
from mlgov_policies.rules import iam

UNLINK_PERMISSION = "resourcemanager.projects.deleteBillingAssignment"
# Predefined roles that carry it (Cloud Billing access control: Project Billing Manager).
# Owner carries it too; it is a basic role, refused here on its own.
UNLINK_ROLES = frozenset({"roles/billing.projectManager"})


def _parent(type_: str, props: Mapping[str, Any]) -> str | None:
    """`folders/123` or `organizations/456` of a grant; None while unknown."""
    if type_ in {v.FOLDER_IAM_MEMBER, v.FOLDER_IAM_BINDING, v.FOLDER_IAM_POLICY}:
        folder = dig(props, "folder")
        if is_unknown(folder) or not as_str(folder):
            return None
        text = str(folder)
        return text if text.startswith("folders/") else f"folders/{text}"
    org = dig(props, "orgId")
    if is_unknown(org) or not as_str(org):
        return None
    return f"organizations/{str(org).removeprefix('organizations/')}"


def _unlink_roles(resources: Sequence[StackResource]) -> set[str]:
    """The stack's organization custom roles that can unlink billing, by their grant name."""
    found = set(UNLINK_ROLES)
    for r in resources:
        if r.type != v.ORG_CUSTOM_ROLE:
            continue
        if UNLINK_PERMISSION in as_list(dig(r.props, "permissions")):
            org, role = as_str(dig(r.props, "orgId")), as_str(dig(r.props, "roleId"))
            if org and role:
                found.add(f"organizations/{org}/roles/{role}")
    return found


def _unlink_allowed(resources: Sequence[StackResource], config: PolicyConfig) -> set[str]:
    """Scopes whose functions' policy allows billing unlink (none at all in a prod stack)."""
    if config.environment == "prod":
        return set()
    allowed: set[str] = set()
    for r in resources:
        if r.type != v.FUNCTION_V2:
            continue
        raw = dig(r.props, "serviceConfig", "environmentVariables", "MLGOV_POLICY")
        if not isinstance(raw, str):
            continue
        try:
            policy: object = json.loads(raw)
        except (ValueError, RecursionError):  # billing.py reports an unreadable policy
            continue
        for key, scope in as_mapping(dig(policy, "scopes")).items():
            if dig(scope, "allow_billing_disable") is True and dig(scope, "environment") != "prod":
                allowed.add(str(key))
    return allowed


def scope_least_privilege(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """Folder and organization grants: no basic roles, no public members, unlink only if allowed."""
    unlinking = _unlink_roles(resources)
    allowed = _unlink_allowed(resources, config)
    for index, r in enumerate(resources):
        if r.type not in iam.SCOPE_GRANT_TYPES:
            continue
        parent = _parent(r.type, r.props)
        where_text = parent or "a folder or organization"
        for where, role, member in iam.scope_members(r.type, r.props):
            if member.lower() in iam.PUBLIC_MEMBERS_LOWER:
                yield (
                    index,
                    f"{where} grants {role or 'a role'} on {where_text} to '{member}': anyone, "
                    "in every project below",
                )
            elif role in iam.PRIMITIVE_ROLES:
                yield (
                    index,
                    f"{where} grants basic role {role} on {where_text} to '{member}': thousands "
                    "of permissions in every project below",
                )
            elif role in unlinking and parent is not None and parent not in allowed:
                yield (
                    index,
                    f"{where} grants {role} on {parent} to '{member}': it can unlink billing "
                    f"({UNLINK_PERMISSION}) in every project below, and no scope of the "
                    "functions' policy allows billing unlink there"
                    + (" (never in prod)" if config.environment == "prod" else ""),
                )


SCOPE_LEAST_PRIVILEGE = StackRule(
    name="mlgov-iam-scope-least-privilege",
    check=scope_least_privilege,
    types=iam.SCOPE_GRANT_TYPES | frozenset({v.ORG_CUSTOM_ROLE, v.FUNCTION_V2}),
    enforcement="mandatory",
    config_keys=("environment",),
    why="A role granted on a folder or an organization holds in every project below it, "
    "thousands of them at organization scale; unlinking billing stops every service of a "
    "project and may delete its resources.",
    remediation="Grant the functions' organization custom roles (mlgov's ScopeGrants does): "
    "the dispatch role and the work role on each scope, the unlink role only on scopes with "
    "allow_billing_disable: true, and never a basic role.",
    source="IAM basic roles https://cloud.google.com/iam/docs/roles-overview#basic; Cloud "
    "Billing access control https://cloud.google.com/billing/docs/how-to/billing-access",
)
