"""Service accounts for the components: an account and the predefined roles it is granted."""

from __future__ import annotations

from collections.abc import Iterable

import pulumi
import pulumi_gcp as gcp


def member(email: pulumi.Output[str]) -> pulumi.Output[str]:
    """The IAM member string of a service account (`serviceAccount:EMAIL`)."""
    return email.apply(lambda e: f"serviceAccount:{e}")


def account_with_roles(
    stem: str,
    *,
    account_id: str,
    project: pulumi.Input[str],
    display_name: str,
    roles: Iterable[str],
    opts: pulumi.ResourceOptions,
) -> gcp.serviceaccount.Account:
    """Account `<stem>-sa`, plus one project binding `<stem>-<role's last word>` per role."""
    account = gcp.serviceaccount.Account(
        f"{stem}-sa",
        account_id=account_id,
        project=project,
        display_name=display_name,
        opts=opts,
    )
    for role in roles:
        gcp.projects.IAMMember(
            f"{stem}-{role.split('.')[-1].lower()}",
            project=project,
            role=role,
            member=member(account.email),
            opts=opts,
        )
    return account
