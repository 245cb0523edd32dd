"""Stopping a workload: a Compute VM, a Workbench instance or a TPU VM, each through its own API.

Stop, not delete: the disks (and Workbench state) survive and the owner can start it again.
Each kind reaches one port; everything else is the same, so it lives in `StopWorkload`.

Local SSDs: a plain Compute stop discards their data, and instances.stop requires callers to
choose for a VM that has them: its `discardLocalSsd` query parameter "is required if the
instance has any attached Local SSD disks. If false, Local SSD data will be preserved"
(compute v1 discovery doc, instances.stop; `gcloud compute instances stop --discard-local-ssd`:
"Preserving the Local SSD disk data incurs costs and is subject to limitations"). mlgov
preserves it: a cost cap must not destroy data, and the VM's compute charges stop either way.
The report line says so, and that the Local SSDs keep billing while the VM is stopped.

A stop refused with a conflict (HTTP 409: the Notebooks API answers "unable to queue the
operation" for an instance still being created, hashicorp/terraform-provider-google#17593) is
not "changed concurrently, nothing to do": the resource still runs, or is about to. It is a
failure of this run, so the alert is redelivered (or the scheduled run retried) and stops it.

A stop is done only once its operation is: every API here answers a stop with an operation
that can still end in an error (the VM then keeps running). The stop is requested, and once
every action of the run has been started, its operation is waited for (govern/operations.py,
within the run's time). An operation that ends in an error is a failure; one still running when
the wait runs out is a failure too, "not confirmed": the budget alert is then redelivered (the
expiry and idle-GPU reapers answer non-2xx and Cloud Scheduler retries), and that delivery finds
the workload stopped (nothing to do) or running (the stop failed late: it stops it again).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from govern.actions.base import Action, Call, Confirm, Done
from govern.clock import OutOfTime
from govern.models import Workload
from govern.ports import Conflict, Gone, OperationFailed, Ports, Unavailable


def local_ssd_note(w: Workload) -> str:
    """What a stop does to the VM's Local SSDs, for its report line ("" if it has none)."""
    if w.local_ssds <= 0:
        return ""
    return (
        f"; its {w.local_ssds} Local SSD disk(s) are preserved (discardLocalSsd=false): their "
        "data survives the stop, and they are still billed while the VM is stopped"
    )


def compute_stopper(ports: Ports, w: Workload) -> Callable[[str, str, str], str]:
    """ports.compute.stop for `w`, preserving Local SSD data if it has any."""
    return functools.partial(ports.compute.stop, keep_local_ssd=w.local_ssds > 0)


@dataclass(frozen=True)
class StopWorkload(Action):
    """Stop `workload`: request the stop, then confirm it once its operation is done."""

    workload: Workload

    def stopper(self, ports: Ports) -> Callable[[str, str, str], str]:
        """The port method that stops this kind: (project, zone, name) -> operation status."""
        raise NotImplementedError

    def waiter(self, ports: Ports) -> Callable[[str], str]:
        """The port method that waits for this kind's stop operation (its name) to be done."""
        raise NotImplementedError

    def run(self, ports: Ports, call: Call) -> Done | Confirm:
        """One stop request; its operation is confirmed once every action has started."""
        w = self.workload
        try:
            status = call(w.project, self.stopper(ports), w.project, w.zone, w.name)
        except Conflict as err:
            return "failed", (
                f"{self.reason}: stop refused for now, the resource is busy ({err}); the next "
                "delivery or run stops it"
            )
        except OperationFailed as err:
            return "failed", f"{self.reason}: NOT stopped, its stop failed ({err})"
        operation = status.split(" ", 1)[0]
        requested = f"{self.reason}: stop requested (operation {status})"

        def confirm(later: Call) -> Done:
            try:
                later(w.project, self.waiter(ports), operation)
            except OperationFailed as err:
                return "failed", f"{self.reason}: NOT stopped, its operation failed ({err})"
            except (OutOfTime, Unavailable, Gone) as err:
                # Give-up: never "done". The caller retries (the alert is redelivered, the
                # scheduled run answers non-2xx) and finds the workload stopped or running.
                return "failed", (
                    f"{requested}, not confirmed ({err}); the next delivery or run checks it"
                    f"{self.side_effects()}"
                )
            return (
                "done",
                f"{self.reason}: stopped (operation {operation} done){self.side_effects()}",
            )

        return Confirm(requested, confirm)


@dataclass(frozen=True)
class StopInstance(StopWorkload):
    """Stop a Compute Engine VM (persistent disks are kept; Local SSD data is preserved)."""

    # instances.stop: https://cloud.google.com/compute/docs/reference/rest/v1/instances/stop
    # zoneOperations.get: https://cloud.google.com/compute/docs/reference/rest/v1/zoneOperations/get
    permissions: ClassVar[tuple[str, ...]] = (
        "compute.instances.stop",
        "compute.zoneOperations.get",
    )

    def stopper(self, ports: Ports) -> Callable[[str, str, str], str]:
        """ports.compute.stop (keeping Local SSD data)."""
        return compute_stopper(ports, self.workload)

    def waiter(self, ports: Ports) -> Callable[[str], str]:
        """ports.compute.wait_operation at the VM's zone."""
        return functools.partial(
            ports.compute.wait_operation, self.workload.project, self.workload.zone
        )

    def side_effects(self) -> str:
        """What becomes of the VM's Local SSDs."""
        return local_ssd_note(self.workload)


@dataclass(frozen=True)
class StopNotebook(StopWorkload):
    """Stop a Vertex AI Workbench instance through the Notebooks v2 API."""

    # projects.locations.instances.stop:
    # https://cloud.google.com/vertex-ai/docs/workbench/reference/rest/v2/projects.locations.instances/stop
    # and projects.locations.operations.get (notebooks.operations.get):
    # https://cloud.google.com/vertex-ai/docs/workbench/reference/rest/v2/projects.locations.operations/get
    permissions: ClassVar[tuple[str, ...]] = (
        "notebooks.instances.stop",
        "notebooks.operations.get",
    )

    def stopper(self, ports: Ports) -> Callable[[str, str, str], str]:
        """ports.notebooks.stop."""
        return ports.notebooks.stop

    def waiter(self, ports: Ports) -> Callable[[str], str]:
        """ports.notebooks.wait_operation."""
        return ports.notebooks.wait_operation


@dataclass(frozen=True)
class StopTpuNode(StopWorkload):
    """Stop a Cloud TPU VM through the TPU v2 API."""

    # projects.locations.nodes.stop: https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.nodes/stop
    # and projects.locations.operations.get (tpu.operations.get):
    # https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.operations/get
    permissions: ClassVar[tuple[str, ...]] = ("tpu.nodes.stop", "tpu.operations.get")

    def stopper(self, ports: Ports) -> Callable[[str, str, str], str]:
        """ports.tpus.stop."""
        return ports.tpus.stop

    def waiter(self, ports: Ports) -> Callable[[str], str]:
        """ports.tpus.wait_operation."""
        return ports.tpus.wait_operation
