"""Unlinking a project's billing account: the last resort of the budget cap.

It stops every paid service in the project at once, so decide.py emits it only past
`disable_billing_at` and only where the project opted in (`allow_billing_disable`), and the
budget flow runs it after the stops.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from govern.actions.base import Action, Call, Done
from govern.ports import Ports


@dataclass(frozen=True)
class DisableBilling(Action):
    """Unlink the project's billing account (stops every paid service in it)."""

    verb: ClassVar[str] = "disable_billing"
    # projects.updateBillingInfo with an empty account; the permission the Project Billing
    # Manager role (roles/billing.projectManager) grants for unlinking, see
    # https://cloud.google.com/billing/docs/how-to/billing-access
    permissions: ClassVar[tuple[str, ...]] = ("resourcemanager.projects.deleteBillingAssignment",)

    def run(self, ports: Ports, call: Call) -> Done:
        """projects.updateBillingInfo with no billing account."""
        call(self.project, ports.billing.unlink, self.project)
        return "done", f"{self.reason}: billing unlinked"
