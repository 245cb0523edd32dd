"""Withdrawing a TPU queued resource that still waits for capacity (govern/queued.py decides).

`queuedResources.delete` without `force`: a waiting request has no nodes, and `force` would
delete running ones ("all running nodes belonging to this queued resource will be deleted
first", tpu v2 discovery document). The delete answers a long-running operation, confirmed
like a stop's: done only once it finished without an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from govern.actions.base import Action, Call, Confirm, Done
from govern.clock import OutOfTime
from govern.models import QueuedResource
from govern.ports import OperationFailed, Ports, Unavailable


@dataclass(frozen=True)
class WithdrawQueuedResource(Action):
    """Delete a TPU queued resource that waits for capacity, before capacity starts it."""

    resource: QueuedResource
    verb: ClassVar[str] = "withdraw"
    # https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.queuedResources/delete
    # and its operation (tpu.operations.get).
    permissions: ClassVar[tuple[str, ...]] = ("tpu.queuedResources.delete", "tpu.operations.get")

    def run(self, ports: Ports, call: Call) -> Done | Confirm:
        """Request the delete; its operation is confirmed once every action has started."""
        r = self.resource
        try:
            operation = call(r.project, ports.tpus.delete_queued_resource, r.path)
        except OperationFailed as err:
            return "failed", f"{self.reason}: NOT withdrawn ({err})"
        requested = f"{self.reason}: withdrawal requested (operation {operation})"

        def confirm(later: Call) -> Done:
            try:
                later(r.project, ports.tpus.wait_operation, operation)
            except OperationFailed as err:
                return "failed", f"{self.reason}: NOT withdrawn, its operation failed ({err})"
            except (OutOfTime, Unavailable) as err:
                return "failed", f"{requested}, not confirmed ({err}); the next delivery checks it"
            return "done", f"{self.reason}: withdrawn (operation {operation} done)"

        return Confirm(requested, confirm)
