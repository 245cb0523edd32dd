"""ScopeGrants: what the functions may do in the folders and organizations a stack governs.

It owns the organization custom roles and their grants on each scope's parent: the four
dispatchers may find the scope's projects (`cloudasset.assets.searchAllResources`), the worker
(`on_work_item`) may do its actions there, and only on a scope that allows billing unlink (never
prod: settings/scopes.py) also unlink billing, through a role of its own. No basic role is ever
granted (policies: mlgov-iam-scope-least-privilege). The roles live in the organization because
a project custom role cannot be granted on a folder. Which permissions each function needs is
automation.py's PERMISSIONS; the functions themselves are deployed there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from governance.naming import role_id
from mlgov_policies.vocabulary import component_type


@dataclass(frozen=True)
class Scope:
    """A governed parent (`folders/123`, `organizations/456`) and whether it allows unlink."""

    parent: str
    unlink: bool


@dataclass(frozen=True, kw_only=True)
class ScopeGrantsArgs:
    """What ScopeGrants needs: the organization, the scopes, who gets which permissions."""

    prefix: str
    organization: str  # organizations/<digits>: where the custom roles are created
    scopes: Sequence[Scope]
    dispatchers: Mapping[str, pulumi.Input[str]]  # entry point -> IAM member
    worker: pulumi.Input[str]  # IAM member of on_work_item's account
    dispatch_permissions: Sequence[str]
    work_permissions: Sequence[str]
    unlink_permissions: Sequence[str]


def org_role_name(organization: str, role: str) -> str:
    """`organizations/456/roles/<id>`: the name a grant uses, known before the role exists.

    Written out (rather than the role's `name` output) so the policies can read, at preview
    time, which role each folder or organization grant gives.
    """
    return f"{organization}/roles/{role}"


class ScopeGrants(pulumi.ComponentResource):
    """Organization custom roles for the functions, granted on each governed folder/organization."""

    role_names: dict[str, str]

    def __init__(
        self, name: str, args: ScopeGrantsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("ScopeGrants"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        org_id = args.organization.removeprefix("organizations/")
        wanted = {
            "dispatch": (args.dispatch_permissions, "find the projects of a scope"),
            "work": (args.work_permissions, "act on one project of a scope"),
        }
        if any(s.unlink for s in args.scopes):
            wanted["work_unlink"] = (args.unlink_permissions, "unlink billing in a scope")
        roles: dict[str, gcp.organizations.IAMCustomRole] = {}
        self.role_names = {}
        for key, (permissions, does) in wanted.items():
            rid = role_id(args.prefix, f"fn_{key}")
            roles[key] = gcp.organizations.IAMCustomRole(
                f"{name}-{key.replace('_', '-')}-role",
                org_id=org_id,
                role_id=rid,
                title=f"mlgov functions: {does}",
                description="Only what the functions call (functions/govern/permissions.py).",
                permissions=sorted(permissions),
                stage="GA",
                opts=child,
            )
            self.role_names[key] = org_role_name(args.organization, rid)

        for scope in args.scopes:
            grants: list[tuple[str, str, pulumi.Input[str]]] = [
                ("dispatch", ep.replace("_", "-"), member)
                for ep, member in args.dispatchers.items()
            ]
            grants.append(("work", "on-work-item", args.worker))
            if scope.unlink:
                grants.append(("work_unlink", "on-work-item", args.worker))
            slug = scope.parent.replace("/", "-")
            for key, who, member in grants:
                _grant(
                    f"{name}-{slug}-{key.replace('_', '-')}-{who}",
                    scope.parent,
                    self.role_names[key],
                    member,
                    pulumi.ResourceOptions(parent=self, depends_on=[roles[key]]),
                )
        self.register_outputs({"role_names": self.role_names})


def _grant(
    name: str, parent: str, role: str, member: pulumi.Input[str], opts: pulumi.ResourceOptions
) -> None:
    """One member grant of `role` on a folder or an organization."""
    if parent.startswith("folders/"):
        gcp.folder.IAMMember(name, folder=parent, role=role, member=member, opts=opts)
    else:
        gcp.organizations.IAMMember(
            name,
            org_id=parent.removeprefix("organizations/"),
            role=role,
            member=member,
            opts=opts,
        )
