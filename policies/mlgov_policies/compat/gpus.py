"""Which NVIDIA GPU attaches to which Compute Engine machine type, and how many: one table.

`GPUS` names each GPU model in every API that takes one (Compute Engine and GKE use the
accelerator-type name `nvidia-tesla-t4`; Workbench instances use the enum `NVIDIA_TESLA_T4`).
`GPU_PLATFORMS` says where each GPU goes: N1 machine types take a chosen count of T4/P4/V100/P100
within vCPU and memory maxima; accelerator-optimized types (A2, A3, A4, A4X, G2, G4) come with a
fixed GPU model and count, so an explicit accelerator on them must match what is built in. Every
row cites its source. `gpu_problem` answers one pairing, for the policy rules
(acceptance/gpus.py) and for settings validation; lookups are built once, at import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from mlgov_policies.compat import sources as s


@dataclass(frozen=True, kw_only=True)
class Gpu:
    """One GPU model and its name in each API."""

    compute: str
    """Compute Engine / GKE accelerator type, e.g. `nvidia-tesla-t4`."""
    workbench: str | None
    """Workbench (Notebooks API v2) `AcceleratorConfig.type` enum, None where it has none."""
    label: str
    source: str


@dataclass(frozen=True, kw_only=True)
class GpuPlatform:
    """Where one GPU model attaches: a machine family (N1) or one accelerator-optimized type."""

    gpu: str
    """Compute accelerator type name (a `Gpu.compute`)."""
    family: str
    """Machine family prefix: `n1`, `g2`, `a2`, ..."""
    machine_type: str | None
    """The one machine type with this GPU built in; None: any type of the family (N1)."""
    counts: tuple[int, ...]
    """Allowed GPU counts; a built-in GPU has exactly one."""
    max_vcpus: tuple[int, ...] = ()
    """N1 only: most vCPUs the VM may have with `counts[i]` GPUs."""
    max_memory_gb: tuple[int, ...] = ()
    """N1 only: most memory (GB) the VM may have with `counts[i]` GPUs."""
    source: str

    @property
    def bundled(self) -> bool:
        """True when the machine type comes with this GPU model and count built in."""
        return self.machine_type is not None


GPUS: Final[tuple[Gpu, ...]] = (
    Gpu(compute="nvidia-tesla-t4", workbench="NVIDIA_TESLA_T4", label="NVIDIA T4",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-tesla-t4-vws", workbench="NVIDIA_TESLA_T4_VWS",
        label="NVIDIA T4 Virtual Workstation", source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-tesla-p4", workbench="NVIDIA_TESLA_P4", label="NVIDIA P4",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-tesla-p4-vws", workbench="NVIDIA_TESLA_P4_VWS",
        label="NVIDIA P4 Virtual Workstation", source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-tesla-v100", workbench="NVIDIA_TESLA_V100", label="NVIDIA V100",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-tesla-p100", workbench="NVIDIA_TESLA_P100", label="NVIDIA P100",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-tesla-p100-vws", workbench="NVIDIA_TESLA_P100_VWS",
        label="NVIDIA P100 Virtual Workstation", source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-l4", workbench="NVIDIA_L4", label="NVIDIA L4",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-tesla-a100", workbench="NVIDIA_TESLA_A100", label="NVIDIA A100 40GB",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-a100-80gb", workbench="NVIDIA_A100_80GB", label="NVIDIA A100 80GB",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-h100-80gb", workbench="NVIDIA_H100_80GB", label="NVIDIA H100 80GB",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-h100-mega-80gb", workbench="NVIDIA_H100_MEGA_80GB",
        label="NVIDIA H100 80GB Mega", source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-h200-141gb", workbench="NVIDIA_H200_141GB", label="NVIDIA H200 141GB",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-b200", workbench="NVIDIA_B200", label="NVIDIA B200",
        source=s.GPU_MACHINE_TYPES),
    Gpu(compute="nvidia-gb200", workbench=None, label="NVIDIA GB200 Superchip",
        source=s.GPU_MACHINE_TYPES),
    # Workbench also lists NVIDIA_RTX6000; no source here says which Compute type it names, so it
    # is left out (rules skip it) rather than guessed to be nvidia-rtx-pro-6000.
    Gpu(compute="nvidia-rtx-pro-6000", workbench=None, label="NVIDIA RTX PRO 6000",
        source=s.ACCELERATOR_OPTIMIZED_SECONDARY),
)  # fmt: skip


def _n1(
    gpu: str, counts: tuple[int, ...], vcpus: tuple[int, ...], memory: tuple[int, ...]
) -> GpuPlatform:
    return GpuPlatform(
        gpu=gpu,
        family="n1",
        machine_type=None,
        counts=counts,
        max_vcpus=vcpus,
        max_memory_gb=memory,
        source=s.GPU_N1_LIMITS,
    )


def _built_in(machine_type: str, gpu: str, count: int, source: str) -> GpuPlatform:
    return GpuPlatform(
        gpu=gpu,
        family=machine_type.split("-", 1)[0],
        machine_type=machine_type,
        counts=(count,),
        source=source,
    )


_AO = s.ACCELERATOR_OPTIMIZED
_AO2 = s.ACCELERATOR_OPTIMIZED_SECONDARY

GPU_PLATFORMS: Final[tuple[GpuPlatform, ...]] = (
    # N1: GPUs you attach; the count decides how large the VM may be. P100 x4 allows 96 vCPUs and
    # 624 GB in most zones (64 vCPUs / 208 GB in us-east1-c, europe-west1-b and -d): the table
    # keeps the larger maxima so no valid VM is refused.
    _n1("nvidia-tesla-t4", (1, 2, 4), (48, 48, 96), (312, 312, 624)),
    _n1("nvidia-tesla-t4-vws", (1, 2, 4), (48, 48, 96), (312, 312, 624)),
    _n1("nvidia-tesla-p4", (1, 2, 4), (24, 48, 96), (156, 312, 624)),
    _n1("nvidia-tesla-p4-vws", (1, 2, 4), (24, 48, 96), (156, 312, 624)),
    _n1("nvidia-tesla-v100", (1, 2, 4, 8), (12, 24, 48, 96), (78, 156, 312, 624)),
    _n1("nvidia-tesla-p100", (1, 2, 4), (16, 32, 96), (104, 208, 624)),
    _n1("nvidia-tesla-p100-vws", (1, 2, 4), (16, 32, 96), (104, 208, 624)),
    # G2: NVIDIA L4 built in; note g2-standard-24 carries two and g2-standard-32 one.
    _built_in("g2-standard-4", "nvidia-l4", 1, _AO),
    _built_in("g2-standard-8", "nvidia-l4", 1, _AO),
    _built_in("g2-standard-12", "nvidia-l4", 1, _AO),
    _built_in("g2-standard-16", "nvidia-l4", 1, _AO),
    _built_in("g2-standard-24", "nvidia-l4", 2, _AO),
    _built_in("g2-standard-32", "nvidia-l4", 1, _AO),
    _built_in("g2-standard-48", "nvidia-l4", 4, _AO),
    _built_in("g2-standard-96", "nvidia-l4", 8, _AO),
    # A2 Standard (A100 40GB) and A2 Ultra (A100 80GB).
    _built_in("a2-highgpu-1g", "nvidia-tesla-a100", 1, _AO),
    _built_in("a2-highgpu-2g", "nvidia-tesla-a100", 2, _AO),
    _built_in("a2-highgpu-4g", "nvidia-tesla-a100", 4, _AO),
    _built_in("a2-highgpu-8g", "nvidia-tesla-a100", 8, _AO),
    _built_in("a2-megagpu-16g", "nvidia-tesla-a100", 16, _AO),
    _built_in("a2-ultragpu-1g", "nvidia-a100-80gb", 1, _AO),
    _built_in("a2-ultragpu-2g", "nvidia-a100-80gb", 2, _AO),
    _built_in("a2-ultragpu-4g", "nvidia-a100-80gb", 4, _AO),
    _built_in("a2-ultragpu-8g", "nvidia-a100-80gb", 8, _AO),
    # A3 High / Mega / Edge / Ultra. a3-highgpu-1g/2g/4g are not in cluster-toolkit's map: they
    # are confirmed by skypilot's catalog (_ACC_INSTANCE_TYPE_DICTS), hence the secondary note.
    _built_in("a3-highgpu-1g", "nvidia-h100-80gb", 1, _AO2),
    _built_in("a3-highgpu-2g", "nvidia-h100-80gb", 2, _AO2),
    _built_in("a3-highgpu-4g", "nvidia-h100-80gb", 4, _AO2),
    _built_in("a3-highgpu-8g", "nvidia-h100-80gb", 8, _AO),
    _built_in("a3-megagpu-8g", "nvidia-h100-mega-80gb", 8, _AO),
    _built_in("a3-edgegpu-8g", "nvidia-h100-80gb", 8, _AO2),
    _built_in("a3-ultragpu-8g", "nvidia-h200-141gb", 8, _AO),
    # A4 / A4X (Blackwell) and G4 (RTX PRO 6000): series on Google's page, counts secondary.
    _built_in("a4-highgpu-8g", "nvidia-b200", 8, _AO2),
    _built_in("a4x-highgpu-4g", "nvidia-gb200", 4, _AO2),
    _built_in("g4-standard-48", "nvidia-rtx-pro-6000", 1, _AO2),
    _built_in("g4-standard-96", "nvidia-rtx-pro-6000", 2, _AO2),
    _built_in("g4-standard-192", "nvidia-rtx-pro-6000", 4, _AO2),
    _built_in("g4-standard-384", "nvidia-rtx-pro-6000", 8, _AO2),
)

# Machine families that take no GPU at all: general-purpose families other than N1 (only N1 takes
# attached GPUs) and the compute-, memory- and storage-optimized ones. A family missing from here
# and from GPU_PLATFORMS is unknown (maybe a new accelerator family) and is not judged.
NO_GPU_FAMILIES: Final = frozenset(
    {
        "e2", "n2", "n2d", "n4", "n4a", "n4d", "c2", "c2d", "c3", "c3d", "c4", "c4a", "c4d",
        "t2a", "t2d", "m1", "m2", "m3", "m4", "x4", "h3", "h4d", "z3", "f1", "g1",
    }
)  # fmt: skip
NO_GPU_FAMILIES_SOURCE: Final = s.GPU_MACHINE_TYPES

# --- lookups, built once -------------------------------------------------------------------------
_BY_COMPUTE: Final[Mapping[str, Gpu]] = {gpu.compute: gpu for gpu in GPUS}
_BY_WORKBENCH: Final[Mapping[str, Gpu]] = {gpu.workbench: gpu for gpu in GPUS if gpu.workbench}
_BUILT_IN: Final[Mapping[str, GpuPlatform]] = {
    row.machine_type: row for row in GPU_PLATFORMS if row.machine_type is not None
}
_ATTACHABLE: Final[Mapping[tuple[str, str], GpuPlatform]] = {
    (row.family, row.gpu): row for row in GPU_PLATFORMS if row.machine_type is None
}


def _natural(name: str) -> tuple[str, int]:
    # g2-standard-4 before g2-standard-12: compare the trailing size as a number.
    head, _, tail = name.rpartition("-")
    digits = "".join(ch for ch in tail if ch.isdigit())
    return head, int(digits) if digits else 0


_FAMILIES_OF_GPU: Final[Mapping[str, tuple[str, ...]]] = {
    model.compute: tuple(
        sorted(
            {
                row.machine_type or f"{row.family}-*"
                for row in GPU_PLATFORMS
                if row.gpu == model.compute
            },
            key=_natural,
        )
    )
    for model in GPUS
}
_ACCELERATOR_FAMILIES: Final = frozenset(row.family for row in GPU_PLATFORMS if row.bundled)

# N1 predefined shapes: memory per vCPU (GB), from the general-purpose machine family page.
_N1_MEMORY_PER_VCPU: Final[Mapping[str, float]] = {"standard": 3.75, "highmem": 6.5, "highcpu": 0.9}
_N1_PREDEFINED = re.compile(r"n1-(standard|highmem|highcpu)-(\d+)")
# N1 custom types: `custom-<vcpus>-<memory MB>` (N1 is the default custom family), `n1-custom-...`.
_N1_CUSTOM = re.compile(r"(?:n1-)?custom-(\d+)-(\d+)(?:-ext)?")


def gpu(name: str) -> Gpu | None:
    """The GPU a Compute/GKE type name or a Workbench enum names (a URL's last part counts)."""
    short = name.rsplit("/", 1)[-1].strip()
    return _BY_COMPUTE.get(short.lower()) or _BY_WORKBENCH.get(short.upper())


def machine_family(machine_type: str) -> str:
    """`n1` for `n1-standard-8`, `n1` for N1 custom types, `g2` for `g2-standard-8`."""
    short = machine_type.rsplit("/", 1)[-1].strip().lower()
    if _N1_CUSTOM.fullmatch(short):
        return "n1"
    return short.split("-", 1)[0]


def has_built_in_gpus(machine_type: str) -> bool:
    """True for accelerator-optimized machine types (A2, A3, A4, A4X, G2, G4): GPUs built in.

    Judged by family, so a size this table does not list (a new `a3-...`) still counts.
    """
    return machine_family(machine_type) in _ACCELERATOR_FAMILIES


def built_in_gpu(machine_type: str) -> GpuPlatform | None:
    """The GPU model and count an accelerator-optimized machine type comes with, if any."""
    return _BUILT_IN.get(machine_type.rsplit("/", 1)[-1].strip().lower())


def _n1_shape(machine_type: str) -> tuple[int, float] | None:
    """(vCPUs, memory GB) of an N1 predefined or custom machine type, None when not parseable."""
    predefined = _N1_PREDEFINED.fullmatch(machine_type)
    if predefined:
        vcpus = int(predefined.group(2))
        return vcpus, vcpus * _N1_MEMORY_PER_VCPU[predefined.group(1)]
    custom = _N1_CUSTOM.fullmatch(machine_type)
    if custom:
        return int(custom.group(1)), int(custom.group(2)) / 1024
    return None


def _where(model: Gpu) -> str:
    return ", ".join(_FAMILIES_OF_GPU.get(model.compute, ())) or "no known machine type"


def gpu_problem(machine_type: str, accelerator: str, count: float | None = None) -> str | None:
    """Why Compute Engine would refuse `count` GPUs of `accelerator` on `machine_type`, or None.

    `accelerator` may be a Compute/GKE name (`nvidia-l4`), a URL ending in one, or a Workbench
    enum (`NVIDIA_L4`). Unknown GPU names and unknown machine families return None: only facts in
    the table are judged. A count of 0 attaches nothing and is fine; None judges the model only.

    Returns:
        One sentence naming the pair, what the table allows and the row's source; None when the
        pairing is accepted or cannot be judged.
    """
    model = gpu(accelerator)
    machine = machine_type.rsplit("/", 1)[-1].strip().lower()
    if model is None or not machine or count == 0:
        return None
    shown = model.compute if count is None else f"{count:g} x {model.compute}"
    family = machine_family(machine)
    built_in = _BUILT_IN.get(machine)
    if built_in is not None:
        if built_in.gpu != model.compute or count not in (None, built_in.counts[0]):
            return (
                f"{machine} comes with {built_in.counts[0]} x {built_in.gpu} built in; an explicit "
                f"accelerator must match it, got {shown} (source: {s.short(built_in.source)})"
            )
        return None
    if family in _ACCELERATOR_FAMILIES:
        return None  # an accelerator-optimized type this table does not list: not judged
    attachable = _ATTACHABLE.get((family, model.compute))
    if attachable is None:
        if family == "n1" or family in NO_GPU_FAMILIES:
            return (
                f"{model.label} ({model.compute}) cannot attach to {machine}: it runs only on "
                f"{_where(model)} (source: {s.short(model.source)})"
            )
        return None  # unknown family: not judged
    if count is None:
        return None
    if count not in attachable.counts:
        return (
            f"{shown} on {machine}: N1 takes {model.compute} in counts "
            f"{list(attachable.counts)} (source: {s.short(attachable.source)})"
        )
    shape = _n1_shape(machine)
    if shape is None:
        return None
    index = attachable.counts.index(int(count))
    vcpus, memory = shape
    max_vcpus, max_memory = attachable.max_vcpus[index], attachable.max_memory_gb[index]
    if vcpus > max_vcpus or memory > max_memory:
        return (
            f"{shown} on {machine} ({vcpus} vCPUs, {memory:g} GB): with {count:g} "
            f"{model.compute} an N1 VM has at most {max_vcpus} vCPUs and {max_memory} GB "
            f"(source: {s.short(attachable.source)})"
        )
    return None
