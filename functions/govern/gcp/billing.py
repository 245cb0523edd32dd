# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Project billing info (billing_v1.CloudBillingClient): read it, unlink it.

A thin adapter: it translates the port's calls and the client's errors, nothing more.
"""

from __future__ import annotations

from typing import Any

from govern.gcp.clients import build_client, call_options, translated


class BillingAdapter:
    """ports.Billing over billing_v1.CloudBillingClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def billing_enabled(self, project: str) -> bool:
        """projects.getBillingInfo -> billingEnabled."""
        # Not enabled is a failure, not "no billing": the unlink would be skipped unseen.
        with translated(f"billing getBillingInfo {project}", disabled_means_none=False):
            info = self._client.get_project_billing_info(
                name=f"projects/{project}", **call_options()
            )
        return bool(info.billing_enabled and info.billing_account_name)

    def unlink(self, project: str) -> None:
        """projects.updateBillingInfo with an empty billing account (the wire body is `{}`)."""
        # An empty ProjectBillingInfo: proto3 drops the empty account name, so the body is `{}`.
        request = {
            "name": f"projects/{project}",
            "project_billing_info": {"billing_account_name": ""},
        }
        with translated(f"billing updateBillingInfo {project}", disabled_means_none=False):
            self._client.update_project_billing_info(request=request, **call_options())


def create(endpoint: str | None = None) -> BillingAdapter:
    """Cloud Billing adapter."""
    return BillingAdapter(
        build_client("google.cloud.billing_v1", "cloud_billing", "CloudBillingClient", endpoint)
    )
