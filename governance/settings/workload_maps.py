"""The four workload maps a stack's settings hold, as the settings checks read them.

Several checks (offered.py, acceptance.py, locations.py) each read a stack's notebooks, training
pools, TPU VMs and GPU VMs. Each declares what it reads as a Protocol (root.py's `Settings` is
one) so that it does not import root.py, which imports every check; this one says the four maps
once and those Protocols extend it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from governance.settings.notebooks import NotebookSettings
    from governance.settings.training import GpuVmSettings, TpuVmSettings, TrainingPoolSettings


class WorkloadMaps(Protocol):
    """A stack's workloads by name, as `Settings` holds them."""

    @property
    def notebooks(self) -> Mapping[str, NotebookSettings]:
        """Workbench instances (settings `notebooks`)."""
        ...

    @property
    def training_pools(self) -> Mapping[str, TrainingPoolSettings]:
        """GKE training node pools (settings `training_pools`)."""
        ...

    @property
    def tpu_vms(self) -> Mapping[str, TpuVmSettings]:
        """TPU VMs (settings `tpu_vms`)."""
        ...

    @property
    def gpu_vms(self) -> Mapping[str, GpuVmSettings]:
        """Compute Engine GPU VMs (settings `gpu_vms`)."""
        ...
