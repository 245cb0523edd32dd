"""Disk snapshots, custom images and machine images: stored GiB a month.

A snapshot holds its source disk's used blocks, compressed, so its size is at most the disk's
(disk_sizes.py: the source disk in the plan); a usage file's `storage_gib` gives the real figure.
Standard snapshots bill `disk.snapshot` in their storage location: `storageLocations` (a region,
or a multi-region such as `us`), else the Cloud Storage multi-region nearest the source disk,
where Compute Engine stores a snapshot that names no location (the API's NEAREST_MULTI_REGION
policy, https://cloud.google.com/compute/docs/disks/snapshot-settings; a project can change its
default, which the plan does not show). Archive snapshots (`snapshotType: ARCHIVE`) bill
`disk.snapshot.archive` (priced per region only). An image bills `disk.image` for its size
(`diskSizeGb`, else its source's). A machine image is billed like a standard snapshot of its
source VM's disks, at the regional price of the VM's region (Pulumi's MachineImage takes no
storage location; where Google stores one that names none was not established here, and a
multi-region costs more); its size is usage (`storage_gib`). A size
nobody declared or can derive is a "depends on usage" line, never $0. Sources and dates: the
catalog entries. The baseline is the same.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext, ref_location
from governance.costs.disk_sizes import Size, image_size, snapshot_size
from governance.costs.model import Resource
from governance.costs.regions import region_of
from mlgov_policies.props import as_list, as_str

# The Cloud Storage multi-region nearest a region, by its continent prefix (us, eu, asia).
_NEAREST_MULTI = (
    ("us", ("us-", "northamerica-", "southamerica-")),
    ("eu", ("europe-", "me-", "africa-")),
    ("asia", ("asia-", "australia-")),
)


def nearest_multi_region(region: str) -> str:
    """The multi-region (us, eu, asia) nearest `region`; `region` itself when none matches."""
    return next((m for m, prefixes in _NEAREST_MULTI if region.startswith(prefixes)), region)


class Declared(BaseModel):
    """A snapshot's or image's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    storage_gib: float | None = Field(default=None, ge=0, description="GiB stored.")


def _stored(q: Quote, ctx: PlanContext, res: Resource, key: str, where: str, size: Size) -> None:
    declared = ctx.usage_of(res, Declared).storage_gib
    price = ctx.catalog.price(key, where)
    for b in (q.governed, q.baseline):
        if declared is not None:
            b.charge("storage", price, declared, f"{declared:g} GiB (usage file storage_gib)")
        elif size.gib is not None:
            b.charge("storage", price, size.gib, f"{size.gib:g} GiB ({size.why})")
        else:
            b.note(f"size unknown: {size.why}")
            b.depends_on_usage("storage", price, "storage_gib")


def snapshot(res: Resource, ctx: PlanContext) -> Quote:
    """Stored GiB at the standard or archive snapshot price of its storage location."""
    q = Quote()
    locations = [s for x in as_list(res.inputs.get("storageLocations")) if (s := as_str(x))]
    archive = (as_str(res.inputs.get("snapshotType")) or "").upper() == "ARCHIVE"
    disk_region = ctx.region(res.inputs, "zone")
    if source := ref_location(res.inputs.get("sourceDisk")):
        disk_region = region_of(source)
    if locations:
        where = region_of(locations[0])
    else:
        where = disk_region if archive else nearest_multi_region(disk_region)
    size = snapshot_size(ctx, res.inputs)
    if size.gib is not None:
        size = Size(size.gib, f"at most {size.why}: snapshots hold used blocks, compressed")
    _stored(q, ctx, res, "disk.snapshot.archive" if archive else "disk.snapshot", where, size)
    return q


def machine_image(res: Resource, ctx: PlanContext) -> Quote:
    """Declared GiB at the standard snapshot price of the source VM's region."""
    q = Quote()
    vm_zone = ref_location(res.inputs.get("sourceInstance"))
    where = region_of(vm_zone) if vm_zone else ctx.usage.default_region
    size = Size(None, "a machine image's size is its source VM's disks' used blocks")
    q.governed.note(f"priced at the {where} snapshot rate; a multi-region location costs more")
    _stored(q, ctx, res, "disk.snapshot", where, size)
    return q


def image(res: Resource, ctx: PlanContext) -> Quote:
    """Stored GiB at the image storage price."""
    q = Quote()
    locations = [s for x in as_list(res.inputs.get("storageLocations")) if (s := as_str(x))]
    where = region_of(locations[0]) if locations else ctx.usage.default_region
    _stored(q, ctx, res, "disk.image", where, image_size(ctx, res.inputs))
    return q
