"""`training_pools`, `tpu_vms`, `gpu_vms`: spot training capacity (component: training.py).

`problems` checks that pools have a cluster and the right accelerator shape, that everything runs
on spot in the stack's zones, and that GPU VMs stop within the environment's maximum run time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Literal, Protocol

from pydantic import Field

from governance.settings.accepted import (
    Flag,
    GpuType,
    ImageRef,
    MachineType,
    TpuRuntime,
    TpuType,
)
from governance.settings.base import IsoDate, Model, Problem, Zone, matching

if TYPE_CHECKING:
    from governance.settings.base import Environment
    from governance.settings.gke import GkeSettings
    from governance.settings.limits import Limits


class TrainingPoolSettings(Model):
    """A GKE node pool for training: GPUs or TPUs, spot, scaling from zero."""

    kind: Literal["gpu", "tpu"] = "gpu"
    machine_type: MachineType = "n1-standard-8"
    accelerator: GpuType | None = None
    accelerator_count: Annotated[int, Field(ge=1, le=16)] = 1
    tpu_topology: (
        Annotated[str, matching(r"[0-9]+x[0-9]+(x[0-9]+)?", "a TPU topology such as 2x4")] | None
    ) = None
    max_nodes: Annotated[int, Field(ge=1, le=1000)] = 4
    zones: tuple[Zone, ...] = ()
    spot: Flag = True
    disk_gb: Annotated[int, Field(ge=10, le=65536)] = 100
    # Labels the pool mlgov-exempt: the budget cap never scales it down.
    exempt: Flag = False


class TpuVmSettings(Model):
    """A standalone Cloud TPU VM (spot)."""

    accelerator_type: TpuType = "v5litepod-8"
    runtime_version: TpuRuntime = "v2-alpha-tpuv5-lite"
    zone: Zone | None = None
    spot: Flag = True
    expires_on: IsoDate | None = None
    exempt: Flag = False


class VmGpuSettings(Model):
    """The GPUs of a standalone VM, named as Compute Engine names them (`nvidia-l4`)."""

    type: GpuType
    count: Annotated[int, Field(ge=1, le=8)] = 1


class GpuVmSettings(Model):
    """A standalone GPU VM for a training job: spot, stopped after `max_run_hours`."""

    machine_type: MachineType = "g2-standard-8"
    gpu: VmGpuSettings = VmGpuSettings(type="nvidia-l4")
    zone: Zone | None = None
    max_run_hours: Annotated[int, Field(ge=1, le=720)] = 8
    image: ImageRef = (
        "projects/deeplearning-platform-release/global/images/family/common-cu123-debian-11"
    )
    disk_gb: Annotated[int, Field(ge=50, le=65536)] = 200
    expires_on: IsoDate | None = None
    exempt: Flag = False


class _TrainingStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def environment(self) -> Environment: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def zones(self) -> tuple[str, ...]: ...

    @property
    def gke(self) -> GkeSettings | None: ...

    @property
    def training_pools(self) -> Mapping[str, TrainingPoolSettings]: ...

    @property
    def tpu_vms(self) -> Mapping[str, TpuVmSettings]: ...

    @property
    def gpu_vms(self) -> Mapping[str, GpuVmSettings]: ...


def problems(s: _TrainingStack) -> Iterator[Problem]:
    """Pools, TPU VMs and GPU VMs against the cluster, the stack's zones and the limits."""
    if s.training_pools and s.gke is None:
        yield "gke", "training_pools need a GKE cluster; add a `gke:` section"
    for name, pool in s.training_pools.items():
        path = f"training_pools.{name}"
        for i, zone in enumerate(pool.zones):
            if zone not in s.zones:
                yield f"{path}.zones.{i}", f"zone {zone!r} is not one of the stack's zones"
        if pool.kind == "gpu" and pool.accelerator is None:
            yield f"{path}.accelerator", "a gpu pool needs an accelerator, e.g. nvidia-tesla-t4"
        if pool.kind == "tpu" and not pool.machine_type.startswith("ct"):
            yield (
                f"{path}.machine_type",
                "a tpu pool needs a TPU machine type, e.g. ct5lp-hightpu-4t",
            )
        if not pool.spot:
            yield (
                f"{path}.spot",
                "training pools run on spot capacity (60-91% cheaper); set spot: true",
            )
    for name, tpu in s.tpu_vms.items():
        if tpu.zone is not None and tpu.zone not in s.zones:
            yield f"tpu_vms.{name}.zone", f"zone {tpu.zone!r} is not one of the stack's zones"
        if not tpu.spot:
            yield f"tpu_vms.{name}.spot", "TPU VMs run on spot capacity; set spot: true"
    for name, vm in s.gpu_vms.items():
        if vm.zone is not None and vm.zone not in s.zones:
            yield f"gpu_vms.{name}.zone", f"zone {vm.zone!r} is not one of the stack's zones"
        if vm.max_run_hours > s.limits.max_gpu_vm_run_hours:
            yield (
                f"gpu_vms.{name}.max_run_hours",
                f"{vm.max_run_hours} is above the {s.environment} maximum of "
                f"{s.limits.max_gpu_vm_run_hours}; lower it or raise limits.max_gpu_vm_run_hours",
            )
