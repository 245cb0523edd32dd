"""Stopping a workload: a Compute VM, a Workbench instance or a TPU VM, each through its own API.

Stop, not delete: the disks (and Workbench state) survive and the owner can start it again.
Each kind reaches one port; everything else is the same, so it lives in `StopWorkload`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from govern.actions.base import Action, Call, Done
from govern.models import Workload
from govern.ports import Ports


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
        status = call(w.project, self.stopper(ports), w.project, w.zone, w.name)
        return "done", f"{self.reason}: stop requested ({status})"


@dataclass(frozen=True)
class StopInstance(StopWorkload):
    """Stop a Compute Engine VM (discards local SSD data; persistent disks are kept)."""

    # instances.stop: https://cloud.google.com/compute/docs/reference/rest/v1/instances/stop
    permissions: ClassVar[tuple[str, ...]] = ("compute.instances.stop",)

    def stopper(self, ports: Ports) -> Callable[[str, str, str], str]:
        """ports.compute.stop."""
        return ports.compute.stop


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
