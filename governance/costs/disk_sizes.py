"""How big a disk, image or snapshot is when its inputs do not say: Compute Engine's rules.

- A disk with no `size` is created at its type's default size: "500GB for pd-standard disks,
  100GB for pd-balanced disks, 100GB for pd-ssd disks, and 1000GB for pd-extreme disks"
  (`gcloud compute disks create --size`, Google Cloud SDK, read 2026-11-25); a Hyperdisk
  Extreme volume's "default size is 1 TiB" (https://cloud.google.com/compute/docs/disks/hd-types/
  hyperdisk-extreme, "Size and performance limits", read 2026-11-26), a Hyperdisk Throughput
  volume's "default size is 2 TiB" (.../hd-types/hyperdisk-throughput, "Size and performance
  limits", read 2026-11-26); other types have no documented default here, so their size is
  unknown, never guessed.
- A disk created from an image or snapshot is at least that source's size (Compute Engine
  refuses a smaller one), and is that size when `size` is not given; when that size is unknown
  (a source outside the plan), a pd-standard, pd-balanced or pd-ssd disk is at least 10 GiB,
  the smallest one there is, and the line says why.
- An image is its `diskSizeGb`, else the size of the disk, image or snapshot it is made from; a
  snapshot is (at most) its source disk's size.

Sources are found in the plan by name or self link (context.py); a source outside the plan
(a public image such as `debian-cloud/debian-12`) has an unknown size, and the caller says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from governance.costs.context import PlanContext, ref_name
from governance.costs.inputs import number
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_mapping, as_str

DEFAULT_DISK_TYPE = "pd-standard"  # disks.insert and gcloud: the default type
DEFAULT_SIZE_GB = {
    "pd-standard": 500.0,
    "pd-balanced": 100.0,
    "pd-ssd": 100.0,
    "pd-extreme": 1000.0,
    "hyperdisk-extreme": 1024.0,  # 1 TiB
    "hyperdisk-throughput": 2048.0,  # 2 TiB
}
# The smallest Persistent Disk of these types (https://cloud.google.com/compute/docs/disks:
# 10 GiB to 64 TiB): a lower bound for a disk made from an image whose size nobody knows.
MIN_GB = {"pd-standard": 10.0, "pd-balanced": 10.0, "pd-ssd": 10.0}
_DEPTH = 8  # sources of sources; a cycle in a broken plan stops here


@dataclass(frozen=True, slots=True)
class Size:
    """A size in GiB (None: unknown) and the rule or source that gives it."""

    gib: float | None
    why: str


def disk_kind(disk_type: str) -> str:
    """`pd-ssd` from `pd-ssd`, `PD_SSD` or a disk-type URL (zones/z/diskTypes/pd-ssd)."""
    return disk_type.rsplit("/", 1)[-1].strip().lower().replace("_", "-")


def _source(inputs: Mapping[str, Any]) -> tuple[str, str, object] | None:
    """(type token, input key, reference) of what a disk or image is made from."""
    for key, type_ in (("image", v.COMPUTE_IMAGE), ("sourceImage", v.COMPUTE_IMAGE),
                       ("snapshot", v.COMPUTE_SNAPSHOT), ("sourceSnapshot", v.COMPUTE_SNAPSHOT),
                       ("sourceDisk", v.COMPUTE_DISK)):  # fmt: skip
        ref = inputs.get(key)
        if ref:
            return type_, key, ref
    return None


def sets_size(inputs: Mapping[str, Any], size_key: str = "size") -> bool:
    """Whether the inputs give the disk a size: `size_key`, or a source it takes its size from."""
    return number(inputs.get(size_key), -1.0) > 0 or _source(inputs) is not None


def source_size(ctx: PlanContext, inputs: Mapping[str, Any], depth: int = 0) -> Size | None:
    """The size of what a disk or image is made from (None: it is made from nothing)."""
    found = _source(inputs)
    if found is None:
        return None
    type_, key, ref = found
    name = ref_name(ref) or str(as_str(ref) or "?")
    res = ctx.referenced(type_, ref)
    if res is None and type_ == v.COMPUTE_DISK:
        res = ctx.referenced(v.COMPUTE_REGION_DISK, ref)
    if res is None or depth >= _DEPTH:
        return Size(None, f"{key} {name} is not in the plan, so its size is unknown")
    if type_ == v.COMPUTE_IMAGE:
        size = image_size(ctx, res.inputs, depth + 1)
    elif type_ == v.COMPUTE_SNAPSHOT:
        size = snapshot_size(ctx, res.inputs, depth + 1)
    else:
        size = disk_size(ctx, res.inputs, depth + 1)
    if size.gib is None:
        return Size(None, f"{key} {name}: {size.why}")
    return Size(size.gib, f"{key} {name} is {size.gib:g} GiB ({size.why})")


def disk_size(ctx: PlanContext, inputs: Mapping[str, Any], depth: int = 0) -> Size:
    """A disk's provisioned size: `size`, at least its source's; else the source's or default."""
    kind = disk_kind(as_str(inputs.get("type")) or DEFAULT_DISK_TYPE)
    given = number(inputs.get("size"), -1.0)
    source = source_size(ctx, inputs, depth)
    if given > 0:
        if source is not None and source.gib is not None and source.gib > given:
            return Size(source.gib, f"size {given:g} is below {source.why}: at least that")
        return Size(given, "size")
    if source is not None:
        if source.gib is None and kind in MIN_GB:
            return Size(MIN_GB[kind], f"at least {MIN_GB[kind]:g} GiB, the smallest {kind} disk: "
                        f"{source.why}")  # fmt: skip
        return source
    if kind in DEFAULT_SIZE_GB:
        return Size(DEFAULT_SIZE_GB[kind], f"no size: {kind}'s default")
    return Size(None, f"no size, and no documented default size for {kind}")


def image_size(ctx: PlanContext, inputs: Mapping[str, Any], depth: int = 0) -> Size:
    """An image's size: `diskSizeGb`, else its source's."""
    given = number(inputs.get("diskSizeGb"), -1.0)
    if given > 0:
        return Size(given, "diskSizeGb")
    source = source_size(ctx, inputs, depth)
    if source is not None:
        return source
    if as_mapping(inputs.get("rawDisk")):
        return Size(None, "made from a raw disk file whose size the inputs do not say")
    return Size(None, "no diskSizeGb and no source in the plan")


def snapshot_size(ctx: PlanContext, inputs: Mapping[str, Any], depth: int = 0) -> Size:
    """A snapshot's size: at most its source disk's (snapshots hold the disk's used blocks)."""
    source = source_size(ctx, inputs, depth)
    if source is None:
        return Size(None, "no sourceDisk")
    return source
