"""Machine, GPU and TPU shapes: how many vCPUs, GiB, GPUs and TPU chips a type name means.

These are facts about Google's machine types, not prices (prices live in the catalog, per
machine type where it has one: `gce.type.<name>`). The shape comes from the name where Google's
naming rules tell it (n1-standard-8, custom-4-30720-ext, g2-standard-16), else from the
catalog's record of the type (`Catalog.machine`: the export lists every type it prices with its
vCPUs, memory, bundled GPUs and local SSD; a3-megagpu-8g and z3-highmem-192-highlssd-metal say
too little in their names). A type neither knows but whose name follows Google's
`<series>-<kind>-<vCPUs>[-suffix...]` pattern gets a `generic` shape (family and, where the
kind counts them, vCPUs; its price must come from the catalog's per-type entry). Any other name
is a `CatalogError` naming it, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from governance.costs.catalog import Catalog, MachineFacts, default_catalog
from governance.costs.errors import CatalogError, Refused


@dataclass(frozen=True, slots=True)
class Shape:
    """What one machine type is made of."""

    family: str  # price family: gce.<family>.vcpu / .ram
    vcpus: float = 0.0
    memory_gib: float = 0.0
    gpu: str = ""  # built-in GPU model (accelerator-optimized families)
    gpu_count: float = 0  # a fraction for G4's shared GPUs (g4-standard-6: 1/8)
    fixed_key: str = ""  # shared-core machine with its own SKU (f1-micro, g1-small)
    tpu: str = ""  # TPU generation for GKE TPU machine types (chip-priced)
    tpu_chips: int = 0
    custom: bool = False
    extended: bool = False  # a custom shape named -ext: memory beyond the family's per-vCPU cap
    name: str = ""  # the machine type as the API spells it (n1-standard-8), "" for TPU slices
    generic: bool = False  # priced only by its own catalog entry (gce.type.<name>)
    local_ssd_gib: float = 0.0  # bundled with the type (priced in the type's price)


_RATIOS = {
    "n1": {"standard": 3.75, "highmem": 6.5, "highcpu": 0.9},
    "n2": {"standard": 4.0, "highmem": 8.0, "highcpu": 1.0},
    "n2d": {"standard": 4.0, "highmem": 8.0, "highcpu": 1.0},
    "e2": {"standard": 4.0, "highmem": 8.0, "highcpu": 1.0},
}
# e2 shared-core types bill a fraction of a vCPU (Google's published fractions)
_E2_SHARED = {"e2-micro": (0.25, 1.0), "e2-small": (0.5, 2.0), "e2-medium": (1.0, 4.0)}
_FIXED = {"f1-micro": 0.6, "g1-small": 1.7}
# g2-standard-N: (GiB, L4 count)
_G2 = {4: (16, 1), 8: (32, 1), 12: (48, 1), 16: (64, 1), 24: (96, 2), 32: (128, 1),
       48: (192, 4), 96: (384, 8)}  # fmt: skip
# a2 / a3: name -> (vCPUs, GiB, GPU model, GPU count)
_ACCEL = {
    "a2-highgpu-1g": (12, 85, "nvidia-tesla-a100", 1),
    "a2-highgpu-2g": (24, 170, "nvidia-tesla-a100", 2),
    "a2-highgpu-4g": (48, 340, "nvidia-tesla-a100", 4),
    "a2-highgpu-8g": (96, 680, "nvidia-tesla-a100", 8),
    "a2-megagpu-16g": (96, 1360, "nvidia-tesla-a100", 16),
    "a2-ultragpu-1g": (12, 170, "nvidia-a100-80gb", 1),
    "a2-ultragpu-2g": (24, 340, "nvidia-a100-80gb", 2),
    "a2-ultragpu-4g": (48, 680, "nvidia-a100-80gb", 4),
    "a2-ultragpu-8g": (96, 1360, "nvidia-a100-80gb", 8),
    "a3-highgpu-1g": (26, 234, "nvidia-h100-80gb", 1),
    "a3-highgpu-2g": (52, 468, "nvidia-h100-80gb", 2),
    "a3-highgpu-4g": (104, 936, "nvidia-h100-80gb", 4),
    "a3-highgpu-8g": (208, 1872, "nvidia-h100-80gb", 8),
}
# GKE TPU machine types: prefix -> TPU generation (price per chip includes the host)
_GKE_TPU = {"ct4p-hightpu": "v4", "ct5lp-hightpu": "v5litepod", "ct5p-hightpu": "v5p",
            "ct6e-standard": "v6e"}  # fmt: skip
_PREDEFINED = re.compile(r"(n1|n2|n2d|e2)-(standard|highmem|highcpu)-(\d+)")
_CUSTOM = re.compile(r"(?:(n1|n2|n2d|e2)-)?custom-(\d+)-(\d+)(-ext)?")
_G2_RE = re.compile(r"g2-standard-(\d+)")
_GKE_TPU_RE = re.compile(r"(ct\w+-\w+)-(\d+)t")
# Google's naming pattern for predefined types: <series>-<kind>-<count>[g|t][-suffix...]
# (c4-standard-288-lssd-metal, z3-highmem-192-highlssd-metal; a count ending in g counts GPUs)
_GENERIC = re.compile(r"([a-z]\d+[a-z]*)-([a-z]+)-(\d+)([gt]?)((?:-[a-z]+)*)")
_VCPU_KINDS = frozenset({"standard", "highmem", "highcpu"})  # whose suffix counts vCPUs
# TPU generations whose accelerator-type suffix counts TensorCores (2 per chip), not chips
_CORE_COUNTED = {"v4", "v5p"}
_TPU_ALIASES = {"v5e": "v5litepod", "v5litepod": "v5litepod", "v4": "v4", "v5p": "v5p",
                "v6e": "v6e"}  # fmt: skip
# RFC 1035, as Compute Engine names every resource (machine and accelerator types included)
_RESOURCE_NAME = re.compile(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?")
_TPU_API_TYPES = {"V4": "v4", "V5LITE_POD": "v5litepod", "V5P": "v5p", "V6E": "v6e"}


def _last_segment(name: str) -> str:
    # inputs may hold a full URL (zones/us-central1-a/machineTypes/n1-standard-4)
    return name.rsplit("/", 1)[-1].strip().lower()


def refuse_malformed(name: str, what: str) -> None:
    """`Refused` when Google would refuse `name` as a Compute Engine machine or GPU type name.

    Machine types (`machineTypes.get`) and accelerator types (`acceleratorTypes.get`) are
    Compute Engine resources, named as every one is: lowercase RFC 1035 (`[a-z]([-a-z0-9]*
    [a-z0-9])?`), https://cloud.google.com/compute/docs/naming-resources. `N1-STANDARD-4` or
    ` n1-standard-4` is not one of them, so creating the VM, node pool or notebook fails; pricing
    it as `n1-standard-4` would show a cost for something that cannot exist. A full URL's last
    segment is the name. Empty names are the callers' business (a default applies).
    """
    last = name.rsplit("/", 1)[-1]
    if last and _RESOURCE_NAME.fullmatch(last) is None:
        shown = repr(last) if len(last) <= 60 else f"{last[:56]!r}..."
        raise Refused(
            f"{what} {shown} is not a name Google accepts: Compute Engine names are lowercase "
            "letters, digits and hyphens, starting with a letter (such as n1-standard-4 or "
            "nvidia-tesla-t4), so creating the resource would fail "
            "(https://cloud.google.com/compute/docs/naming-resources)"
        )


def _from_catalog(name: str, facts: MachineFacts) -> Shape:
    """The shape the catalog records for a type (priced by its own entry, gce.type.<name>)."""
    gpu, count = facts.gpus[0] if facts.gpus else ("", 0.0)
    return Shape(
        name.split("-", 1)[0],
        facts.vcpus,
        facts.memory_gib,
        gpu=gpu,
        gpu_count=count,
        name=name,
        generic=True,
        local_ssd_gib=facts.local_ssd_gib,
    )


def machine_shape(machine_type: str, catalog: Catalog | None = None) -> Shape:
    """The shape of a Compute Engine or GKE machine type; `CatalogError` if unknown.

    `catalog` (default: the shipped one) is asked for types whose name does not tell their
    shape. `Refused` for a name Google would refuse (uppercase, spaces: `refuse_malformed`).
    """
    # `is None`, not `or`: a Catalog's truth is its length, which counts every price
    known = catalog if catalog is not None else default_catalog()
    # A shape depends on the name and the catalog only, and a plan (or a walk over the
    # catalog) asks for the same few types again and again: worked out once per catalog.
    # An error is not kept: asking again raises it again.
    cache_key = ("machine_shape", machine_type)
    shape = known.derived.get(cache_key)
    if shape is None:
        shape = known.derived[cache_key] = _shape(machine_type, known)
    return shape


def _shape(machine_type: str, known: Catalog) -> Shape:
    refuse_malformed(machine_type, "machine type")
    name = _last_segment(machine_type)
    if name in _E2_SHARED:
        vcpus, mem = _E2_SHARED[name]
        return Shape("e2", vcpus, mem, name=name)
    if name in _FIXED:
        return Shape("shared", 1.0, _FIXED[name], fixed_key=f"gce.shared.{name}", name=name)
    if m := _PREDEFINED.fullmatch(name):
        family, kind, n = m.group(1), m.group(2), int(m.group(3))
        # the ratio holds for every type but a few (n2-highmem-128 has 864 GiB, not 1,024)
        facts = known.machine(name)
        memory = facts.memory_gib if facts is not None else n * _RATIOS[family][kind]
        return Shape(family, float(n), memory, name=name)
    if m := _CUSTOM.fullmatch(name):
        return Shape(
            m.group(1) or "n1",
            float(m.group(2)),
            int(m.group(3)) / 1024,
            custom=True,
            extended=bool(m.group(4)),
            name=name,
        )
    if (m := _G2_RE.fullmatch(name)) and int(m.group(1)) in _G2:
        n = int(m.group(1))
        mem, gpus = _G2[n]
        return Shape("g2", float(n), float(mem), gpu="nvidia-l4", gpu_count=gpus, name=name)
    if name in _ACCEL:
        vcpus, mem, gpu, count = _ACCEL[name]
        return Shape(name[:2], float(vcpus), float(mem), gpu=gpu, gpu_count=count, name=name)
    if (m := _GKE_TPU_RE.fullmatch(name)) and m.group(1) in _GKE_TPU:
        return Shape("tpu", tpu=_GKE_TPU[m.group(1)], tpu_chips=int(m.group(2)))
    if (facts := known.machine(name)) is not None:
        return _from_catalog(name, facts)
    if m := _GENERIC.fullmatch(name):
        counts_vcpus = m.group(2) in _VCPU_KINDS and not m.group(4)
        vcpus = float(m.group(3)) if counts_vcpus else 0.0
        return Shape(m.group(1), vcpus, name=name, generic=True)
    raise CatalogError(f"unknown machine type {machine_type!r}: no shape known for it")


def gpu_model(accelerator: str) -> str:
    """Catalog GPU name from an API spelling: NVIDIA_TESLA_T4, nvidia-tesla-t4 or a URL."""
    return _last_segment(accelerator).replace("_", "-")


def tpu_chips(accelerator_type: str) -> tuple[str, int]:
    """(generation, chips) for a TPU accelerator type such as "v5litepod-8" or "v4-8"."""
    name = _last_segment(accelerator_type)
    gen, _, size = name.rpartition("-")
    gen = _TPU_ALIASES.get(gen, "")
    if not gen or not size.isdigit():
        raise CatalogError(f"unknown TPU accelerator type {accelerator_type!r}")
    count = int(size)
    return gen, count // 2 if gen in _CORE_COUNTED else count


def tpu_from_config(type_: str, topology: str) -> tuple[str, int]:
    """(generation, chips) from a V2Vm acceleratorConfig {type: V5LITE_POD, topology: 2x4}."""
    gen = _TPU_API_TYPES.get(type_.upper())
    dims = topology.lower().split("x")
    if gen is None or not all(d.isdigit() for d in dims):
        raise CatalogError(f"unknown TPU acceleratorConfig type={type_!r} topology={topology!r}")
    chips = 1
    for d in dims:
        chips *= int(d)
    return gen, chips
