"""Checking again a VM an earlier stop left STOPPING: it is stopped, still stopping, or running.

A stop that was not confirmed (its operation still running when the run's wait ended) is
reported failed and the caller comes back: Pub/Sub redelivers the alert, Cloud Scheduler
retries the reaper. The VM may then be STOPPING, which is not running, so it used to be left
alone as "not running", and the redelivery was answered 2xx with nothing confirmed. Now the
VM is read (instances.get) until it leaves STOPPING, within the run's wait: stopped is
"done" (confirmed), gone is "already gone", running again (the stop did not take) is stopped
again, and still STOPPING when the wait ends is "failed", not confirmed, so the caller comes
back once more.

Compute VMs only: their status is what the cap reads; Workbench and TPU VMs are confirmed by
their stop's long-running operation, which the next delivery does not have.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from govern.actions.base import Call, Confirm, Done
from govern.actions.stop import StopInstance
from govern.clock import OutOfTime
from govern.ports import VM_GONE, Ports

STOPPED = frozenset({"TERMINATED", "STOPPED", "SUSPENDED"})
"""Compute statuses that bill no VM time (compute v1 Instance.status)."""


@dataclass(frozen=True)
class ConfirmStop(StopInstance):
    """A VM left STOPPING: confirm it stopped; stop it again if it runs (when `restop`).

    `restop` False (the idle-GPU reaper): a VM running again is not stopped blind; its stop
    failed, and the next run judges it by its use again.
    """

    restop: bool = True
    verb: ClassVar[str] = "confirm_stop"
    # instances.get: https://cloud.google.com/compute/docs/reference/rest/v1/instances/get;
    # a VM running again is stopped (instances.stop, its zoneOperations.get).
    permissions: ClassVar[tuple[str, ...]] = (
        "compute.instances.get",
        *StopInstance.permissions,
    )

    def run(self, ports: Ports, call: Call) -> Done | Confirm:
        """Nothing to request: the VM is read in the confirmation phase, after every stop.

        Reading it here would hold a worker for up to the wait's cap while other VMs' stops
        wait to be requested; in the confirmation phase the waits run side by side.
        """
        w = self.workload

        def confirm(later: Call) -> Done:
            try:
                status = later(w.project, ports.compute.wait_stopped, w.project, w.zone, w.name)
            except OutOfTime as err:
                return "failed", (
                    f"{self.reason}: still {w.state}, not confirmed stopped ({err}); the next "
                    "delivery or run checks it again"
                )
            if status == VM_GONE:
                return "skipped", "already gone"
            if status in STOPPED:
                return "done", f"{self.reason}: confirmed stopped (was {w.state}, now {status})"
            # Back to RUNNING (or starting): the earlier stop did not take.
            if not self.restop:
                return "failed", (
                    f"{self.reason}: {status} again, the earlier stop did not take; the next "
                    "run judges it again"
                )
            again = StopInstance(
                self.target,
                f"{self.reason}; it is {status} again, the earlier stop did not take",
                workload=dataclasses.replace(w, state=status),
            )
            outcome = again.run(ports, later)
            return outcome.wait(later) if isinstance(outcome, Confirm) else outcome

        return Confirm(f"{self.reason}: to be read again", confirm)
