"""Cloud TPU generations: accelerator types, runtime (software) versions, zones, GKE machine types.

One row per generation in `TPU_GENERATIONS`, each fact with its source. A TPU VM's runtime version
must belong to its accelerator's generation (`v2-alpha-tpuv5-lite` on a v5e, not on a v5p); TPU v4
exists only in us-central2-b. Zones are judged only where the zone table was read whole: everywhere
for v4, in North America (us-*, northamerica-*) for the other generations; elsewhere a listed zone
is accepted and an unlisted one is not judged. Runtime versions not in the table (TensorFlow
builds such as `tpu-vm-tf-2.18.0-pjrt`, which Google names per TensorFlow version, not per
generation) are not judged. The rules live in acceptance/tpus.py; settings validation calls the
`*_problem` functions directly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from mlgov_policies.compat import sources as s


@dataclass(frozen=True, kw_only=True)
class TpuGeneration:
    """One Cloud TPU generation and what the APIs accept for it."""

    name: str
    """Generation as Google's docs write it: `v5e`."""
    accelerator_prefix: str
    """`acceleratorType` is `<prefix>-<size>`: `v5litepod-8`."""
    config_type: str
    """TPU API v2 `AcceleratorConfig.type` enum: `V5LITE_POD`."""
    runtimes: tuple[str, ...]
    """Runtime (software) versions documented for this generation."""
    runtime_source: str
    zones: tuple[str, ...] = ()
    """Zones Google's TPU regions-and-zones page lists for the generation."""
    zones_judged_in: tuple[str, ...] = ()
    """Zone-name prefixes where `zones` is the whole list, so an unlisted zone there is refused
    (`""`: everywhere); a zone matching none of them is not judged."""
    zone_source: str = ""
    gke_machine_prefix: str = ""
    """GKE TPU node machine types start with this (`ct5lp-`); empty: none known."""
    topology_dims: int = 0
    """2 (AxB) or 3 (AxBxC) chips per side in a topology; 0: not encoded."""
    source: str

    def judges(self, zone: str) -> bool:
        """Whether `zones` is the whole list where `zone` lies (so unlisted there means refused)."""
        return any(zone.startswith(prefix) for prefix in self.zones_judged_in)


# The regions-and-zones page's "North America" (earlier "US") section, read whole.
_NORTH_AMERICA: Final = ("us-", "northamerica-")

TPU_GENERATIONS: Final[tuple[TpuGeneration, ...]] = (
    TpuGeneration(
        name="v2", accelerator_prefix="v2", config_type="V2",
        runtimes=("tpu-ubuntu2204-base", "tpu-vm-base"), runtime_source=s.TPU_RUNTIMES,
        # v2-8: us-central1-b/-c (-f in an earlier revision); v2-32 and larger: us-central1-a.
        zones=("us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f",
               "europe-west4-a", "asia-east1-c"),
        zones_judged_in=_NORTH_AMERICA, zone_source=s.TPU_ZONES_REVISIONS,
        topology_dims=2, source=s.TPU_TYPES,
    ),
    TpuGeneration(
        name="v3", accelerator_prefix="v3", config_type="V3",
        runtimes=("tpu-ubuntu2204-base", "tpu-vm-base"), runtime_source=s.TPU_RUNTIMES,
        zones=("us-central1-a", "us-central1-b", "us-central1-f", "europe-west4-a"),
        zones_judged_in=_NORTH_AMERICA, zone_source=s.TPU_ZONES_REVISIONS,
        topology_dims=2, source=s.TPU_TYPES,
    ),
    TpuGeneration(
        name="v4", accelerator_prefix="v4", config_type="V4",
        runtimes=("tpu-ubuntu2204-base", "tpu-vm-v4-base"), runtime_source=s.TPU_RUNTIMES,
        zones=("us-central2-b",), zones_judged_in=("",), zone_source=s.TPU_ZONES,
        gke_machine_prefix="ct4p-", topology_dims=3, source=s.TPU_TYPES,
    ),
    TpuGeneration(
        name="v5e", accelerator_prefix="v5litepod", config_type="V5LITE_POD",
        runtimes=("v2-alpha-tpuv5-lite",), runtime_source=s.TPU_RUNTIMES,
        # us-east5-a/-b/-c are single-tenant in the current revision; us-west4-b was in an
        # earlier one; europe-west4-b from the Europe section of an earlier revision.
        zones=("us-central1-a", "us-south1-a", "us-west1-c", "us-west4-a", "us-west4-b",
               "us-east5-a", "us-east5-b", "us-east5-c", "europe-west4-b"),
        zones_judged_in=_NORTH_AMERICA, zone_source=s.TPU_ZONES_REVISIONS,
        gke_machine_prefix="ct5lp-", topology_dims=2, source=s.TPU_TYPES,
    ),
    TpuGeneration(
        name="v5p", accelerator_prefix="v5p", config_type="V5P",
        runtimes=("v2-alpha-tpuv5",), runtime_source=s.TPU_RUNTIMES,
        # us-east5-b/-c and us-south1-a single-tenant; us-east1-d in an earlier revision. The
        # Europe section's v5p zones were not readable in the stored page: not encoded.
        zones=("us-central1-a", "us-east5-a", "us-east5-b", "us-east5-c", "us-south1-a",
               "us-east1-d"),
        zones_judged_in=_NORTH_AMERICA, zone_source=s.TPU_ZONES_REVISIONS,
        gke_machine_prefix="ct5p-", topology_dims=3, source=s.TPU_TYPES,
    ),
    TpuGeneration(
        name="v6e", accelerator_prefix="v6e", config_type="V6E",
        runtimes=("v2-alpha-tpuv6e",), runtime_source=s.TPU_RUNTIMES,
        # us-central1-ai1 and us-south1-ai1b are AI zones; us-east5-c, us-east4-a/-b and
        # us-west1-c single-tenant.
        zones=("us-central1-b", "us-east1-d", "us-east5-a", "us-east5-b", "us-east5-c",
               "us-east4-a", "us-east4-b", "us-west1-c", "us-central1-ai1", "us-south1-ai1b",
               "europe-west4-a"),
        zones_judged_in=_NORTH_AMERICA, zone_source=s.TPU_ZONES_REVISIONS,
        gke_machine_prefix="ct6e-", topology_dims=2, source=s.TPU_TYPES,
    ),
)  # fmt: skip

# Runtimes whose generation comes from an earlier revision of the runtimes page (see sources).
LEGACY_RUNTIMES: Final = frozenset({"tpu-vm-base", "tpu-vm-v4-base"})

DEFAULT_ACCELERATOR_TYPE: Final = "v2-8"
"""What pulumi-gcp's V2Vm creates when neither acceleratorType nor acceleratorConfig is set."""
DEFAULT_ACCELERATOR_SOURCE: Final = s.PULUMI_TPU_DEFAULT
_GKE: Final = s.short(s.GKE_TPUS)

# --- lookups, built once -------------------------------------------------------------------------
_BY_PREFIX: Final[Mapping[str, TpuGeneration]] = {g.accelerator_prefix: g for g in TPU_GENERATIONS}
_BY_CONFIG: Final[Mapping[str, TpuGeneration]] = {g.config_type: g for g in TPU_GENERATIONS}
_RUNTIME_GENERATIONS: Final[Mapping[str, tuple[str, ...]]] = {
    runtime: tuple(g.name for g in TPU_GENERATIONS if runtime in g.runtimes)
    for g in TPU_GENERATIONS
    for runtime in g.runtimes
}
_ACCELERATOR_TYPE = re.compile(r"(v\d+[a-z]*)-(\d+)")
_GKE_MACHINE = re.compile(r"(ct\d+[a-z]*)-[a-z]+-(\d+)t")
_BY_GKE_PREFIX: Final[Mapping[str, TpuGeneration]] = {
    g.gke_machine_prefix.rstrip("-"): g for g in TPU_GENERATIONS if g.gke_machine_prefix
}


def generation(accelerator: str) -> TpuGeneration | None:
    """The generation of an `acceleratorType` (`v5litepod-8`) or config type enum (`V5LITE_POD`)."""
    text = accelerator.strip()
    if text.upper() in _BY_CONFIG:
        return _BY_CONFIG[text.upper()]
    match = _ACCELERATOR_TYPE.fullmatch(text.lower())
    return _BY_PREFIX.get(match.group(1)) if match else None


def gke_machine(machine_type: str) -> tuple[TpuGeneration, int] | None:
    """(generation, TPU chips per node) of a GKE TPU machine type such as `ct5lp-hightpu-4t`."""
    match = _GKE_MACHINE.fullmatch(machine_type.strip().lower())
    if match is None or match.group(1) not in _BY_GKE_PREFIX:
        return None
    return _BY_GKE_PREFIX[match.group(1)], int(match.group(2))


def tpu_runtime_problem(accelerator: str, runtime_version: str) -> str | None:
    """Why a TPU VM with this accelerator would refuse `runtime_version`, or None.

    Args:
        accelerator: an `acceleratorType` such as `v5litepod-8`, or a config type enum (`V5P`).
        runtime_version: the TPU software version, such as `v2-alpha-tpuv5-lite`.

    Returns:
        One sentence with the generations involved and the source; None when the pair fits or
        either value is not in the table.
    """
    gen = generation(accelerator)
    runtime = runtime_version.strip()
    owners = _RUNTIME_GENERATIONS.get(runtime)
    if gen is None or owners is None or gen.name in owners:
        return None
    expected = ", ".join(gen.runtimes)
    source = s.TPU_RUNTIMES_LEGACY if runtime in LEGACY_RUNTIMES else gen.runtime_source
    return (
        f"runtime version {runtime!r} is for TPU {'/'.join(owners)}, not {accelerator} "
        f"(TPU {gen.name}); use {expected} (source: {s.short(source)})"
    )


def tpu_zone_problem(accelerator: str, zone: str) -> str | None:
    """Why `zone` does not offer the accelerator's TPU generation, or None.

    None also when the zone lies where the table is not known whole (`zones_judged_in`).
    """
    gen = generation(accelerator)
    wanted = zone.strip().lower()
    if gen is None or wanted in gen.zones:
        return None
    if not gen.judges(wanted):
        return None
    listed = [z for z in gen.zones if gen.judges(z)]
    where = " in North America" if gen.zones_judged_in == _NORTH_AMERICA else ""
    return (
        f"TPU {gen.name} ({accelerator}) is offered{where} only in {', '.join(listed)}, not in "
        f"{zone} (source: {s.short(gen.zone_source)})"
    )


def gke_tpu_zone_problem(machine_type: str, zone: str) -> str | None:
    """Why `zone` does not offer the TPU generation of a GKE TPU machine type, or None."""
    machine = gke_machine(machine_type)
    if machine is None:
        return None
    generation_, chips = machine
    return tpu_zone_problem(f"{generation_.accelerator_prefix}-{chips}", zone)


def tpu_topology_problem(machine_type: str, topology: str) -> str | None:
    """Why a GKE TPU node pool's `tpuTopology` cannot fit its machine type, or None.

    Only arithmetic the docs imply is judged: a v5e/v6e topology is AxB and a v4/v5p one AxBxC,
    and a slice is whole nodes, so its chip count is a positive multiple of the chips per node.
    """
    machine = gke_machine(machine_type)
    if machine is None:
        return None
    gen, chips_per_node = machine
    sides = topology.strip().lower().split("x")
    if not all(side.isdigit() and int(side) > 0 for side in sides):
        return f"tpuTopology {topology!r} is not of the form AxB or AxBxC (source: {_GKE})"
    if gen.topology_dims and len(sides) != gen.topology_dims:
        shape = "AxB" if gen.topology_dims == 2 else "AxBxC"
        return (
            f"tpuTopology {topology!r} does not fit {machine_type}: TPU {gen.name} topologies are "
            f"{shape} (source: {_GKE})"
        )
    chips = 1
    for side in sides:
        chips *= int(side)
    if chips % chips_per_node:
        return (
            f"tpuTopology {topology!r} has {chips} chips, not a whole number of {machine_type} "
            f"nodes ({chips_per_node} chips each) (source: {_GKE})"
        )
    return None
