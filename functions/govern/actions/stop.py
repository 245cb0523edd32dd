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
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from govern.actions.base import Action, Call, Done
from govern.models import Workload
from govern.ports import Conflict, Ports


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
    """Request a stop of `workload` without waiting for the operation to finish."""

    workload: Workload

    def stopper(self, ports: Ports) -> Callable[[str, str, str], str]:
        """The port method that stops this kind: (project, zone, name) -> operation status."""
        raise NotImplementedError

    def run(self, ports: Ports, call: Call) -> Done:
        """One stop request; the report carries the operation it started."""
        w = self.workload
        try:
            status = call(w.project, self.stopper(ports), w.project, w.zone, w.name)
        except Conflict as err:
            return "failed", (
                f"{self.reason}: stop refused for now, the resource is busy ({err}); the next "
                "delivery or run stops it"
            )
        return "done", f"{self.reason}: stop requested ({status}){self.side_effects()}"


@dataclass(frozen=True)
class StopInstance(StopWorkload):
    """Stop a Compute Engine VM (persistent disks are kept; Local SSD data is preserved)."""

    # instances.stop: https://cloud.google.com/compute/docs/reference/rest/v1/instances/stop
    permissions: ClassVar[tuple[str, ...]] = ("compute.instances.stop",)

    def stopper(self, ports: Ports) -> Callable[[str, str, str], str]:
        """ports.compute.stop (keeping Local SSD data)."""
        return compute_stopper(ports, self.workload)

    def side_effects(self) -> str:
        """What becomes of the VM's Local SSDs."""
        return local_ssd_note(self.workload)


@dataclass(frozen=True)
class StopNotebook(StopWorkload):
    """Stop a Vertex AI Workbench instance through the Notebooks v2 API."""

    # projects.locations.instances.stop:
    # https://cloud.google.com/vertex-ai/docs/workbench/reference/rest/v2/projects.locations.instances/stop
    permissions: ClassVar[tuple[str, ...]] = ("notebooks.instances.stop",)

    def stopper(self, ports: Ports) -> Callable[[str, str, str], str]:
        """ports.notebooks.stop."""
        return ports.notebooks.stop


@dataclass(frozen=True)
class StopTpuNode(StopWorkload):
    """Stop a Cloud TPU VM through the TPU v2 API."""

    # projects.locations.nodes.stop: https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.nodes/stop
    permissions: ClassVar[tuple[str, ...]] = ("tpu.nodes.stop",)

    def stopper(self, ports: Ports) -> Callable[[str, str, str], str]:
        """ports.tpus.stop."""
        return ports.tpus.stop
