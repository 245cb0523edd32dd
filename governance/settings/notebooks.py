"""`notebooks.<name>`: Vertex AI Workbench instances (component: components/notebooks.py).

`problems` checks each notebook against the stack: its zone, and the environment's idle-timeout
maximum, machine-type and GPU allow-lists (`limits`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Protocol

from pydantic import Field

from governance.settings.accepted import Flag, MachineType
from governance.settings.base import HourMinute, IsoDate, Model, Problem, TimeZone, Zone, matching

if TYPE_CHECKING:
    from governance.settings.base import Environment
    from governance.settings.limits import Limits


class GpuSettings(Model):
    """An accelerator attached to a notebook or VM."""

    type: str
    count: Annotated[int, Field(ge=1, le=8)] = 1


class OfficeHours(Model):
    """Stop (and optionally start) a notebook on a weekly schedule, in a time zone."""

    stop: HourMinute = "19:00"
    start: HourMinute | None = None
    days: Annotated[
        str,
        matching(r"[0-6](-[0-6])?(,[0-6](-[0-6])?)*", "cron days of week such as 1-5 or 0,6"),
    ] = "1-5"
    timezone: TimeZone = "Etc/UTC"


class NotebookSettings(Model):
    """One Workbench instance."""

    owner: Annotated[str, matching(r"[^@\s]+@[^@\s]+\.[^@\s]+", "an email address")] | None = None
    machine_type: MachineType = "e2-standard-4"
    zone: Zone | None = None
    idle_minutes: Annotated[int, Field(ge=10, le=1440)] = 60
    gpu: GpuSettings | None = None
    # Workbench (notebooks v2 BootDisk/DataDisk.diskSizeGb): "up to a maximum of 64000 GB";
    # 150 GB is the boot disk's recommended (and mlgov's smallest) size.
    boot_disk_gb: Annotated[int, Field(ge=150, le=64000)] = 150
    data_disk_gb: Annotated[int, Field(ge=10, le=64000)] = 100
    office_hours: OfficeHours | None = None
    expires_on: IsoDate | None = None
    exempt: Flag = False
    root_access: Flag = False  # root (sudo) for the notebook's users; labelled when true


class _NotebooksStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def environment(self) -> Environment: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def zones(self) -> tuple[str, ...]: ...

    @property
    def notebooks(self) -> Mapping[str, NotebookSettings]: ...


def problems(s: _NotebooksStack) -> Iterator[Problem]:
    """Each notebook against the stack's zones and the environment's limits."""
    lim = s.limits
    for name, nb in s.notebooks.items():
        path = f"notebooks.{name}"
        if nb.zone is not None and nb.zone not in s.zones:
            yield (
                f"{path}.zone",
                f"zone {nb.zone!r} is not one of the stack's zones "
                f"{list(s.zones)}; notebooks must run next to the data",
            )
        if nb.idle_minutes > lim.max_idle_minutes:
            yield (
                f"{path}.idle_minutes",
                f"{nb.idle_minutes} is above the {s.environment} maximum of "
                f"{lim.max_idle_minutes}; lower it or raise limits.max_idle_minutes",
            )
        if nb.machine_type not in lim.notebook_machine_types:
            yield (
                f"{path}.machine_type",
                f"{nb.machine_type!r} is not allowed in {s.environment}; allowed: "
                f"{list(lim.notebook_machine_types)} (or extend limits.notebook_machine_types)",
            )
        if nb.gpu is not None and nb.gpu.type not in lim.notebook_gpu_types:
            yield (
                f"{path}.gpu.type",
                f"{nb.gpu.type!r} is not allowed in {s.environment}; allowed: "
                f"{list(lim.notebook_gpu_types)} (Workbench names, e.g. NVIDIA_TESLA_T4)",
            )
