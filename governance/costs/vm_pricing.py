"""What Compute Engine VMs cost beyond the machine: their disks, local SSDs and external IPs.

One VM shape (`VmSpec`) from a `gcp.compute.Instance` or from an instance template (a managed
instance group prices `count` VMs of its template), charged by `price_vm`:

- the machine type, built-in and attached GPUs (machine_pricing.py; a GPU that cannot be priced
  is a named unpriced part, the rest is priced);
- each persistent disk all month (a stopped VM keeps paying for it): its `size`, else the image's
  size when the image is in the plan, else at least 10 GiB, the smallest Persistent Disk
  (https://cloud.google.com/compute/docs/disks: 10 GiB to 64 TiB), with a line saying the
  image's size is unknown; and its provisioned IOPS (`provisionedIops` of the boot disk's
  `initializeParams` or of a template's disk, else Compute Engine's default: disk_pricing.py);
- local SSD scratch disks (375 GiB each unless sized) all month, like persistent disks: a stopped
  VM keeps its local SSDs, and pays for them, unless `scheduling.onInstanceStopAction.
  discardLocalSsd` is true (then for the hours it runs; mlgov's own stop keeps them too);
- each external IP on a network interface (`accessConfigs`) for the hours the VM runs, at the
  standard or spot in-use price, unless it names a static address of the plan (priced there);
- the license of a premium boot image (RHEL, SLES, Windows Server, ...: premium_images.py) as a
  named unpriced part: the catalog has no license prices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from governance.costs.bill import Quote
from governance.costs.context import PlanContext, is_spot, ref_name
from governance.costs.disk_pricing import Performance, charge_disk, charge_performance, performance
from governance.costs.disk_sizes import MIN_GB, disk_kind, image_size
from governance.costs.errors import CatalogError
from governance.costs.inputs import number, text
from governance.costs.machine_pricing import attached_gpus, charge_machine
from governance.costs.machines import Shape, machine_shape
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.premium_images import premium_license
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_list, as_mapping, as_str, dig

LOCAL_SSD_GIB = 375.0  # one local SSD disk (https://cloud.google.com/compute/docs/disks/local-ssd)
DEFAULT_DISK_TYPE = "pd-standard"  # instances.insert and instance templates: the default type


@dataclass(frozen=True, slots=True)
class VmDisk:
    """One persistent disk of a VM: type, GiB (None: unknown) and why that size."""

    label: str
    kind: str
    gib: float | None
    why: str
    perf: Performance
    """Provisioned IOPS and throughput (disk_pricing.performance)."""


@dataclass(frozen=True, slots=True)
class VmSpec:
    """What one VM is made of, for pricing."""

    shape: Shape
    gpus: Sequence[tuple[str, int]]
    spot: bool
    disks: Sequence[VmDisk]
    local_ssd_gib: float
    external_ips: int
    region: str
    discard_local_ssd: bool = False
    """Stopping the VM discards its local SSDs (so they bill only while it runs)."""
    license: str = ""
    """Why the boot image bills a license the catalog cannot price ("" when it bills none)."""


def _disk(
    ctx: PlanContext, label: str, kind: str, size: object, image: object,
    params: Mapping[str, Any], where: str,
) -> VmDisk:  # fmt: skip
    """One disk's size (its own, its image's or the smallest there is) and its performance.

    `params` holds the disk's `provisionedIops`/`provisionedThroughput`; `where` is its key path.
    """
    given = number(size, -1.0) if size is not None else -1.0
    image_res = ctx.referenced(v.COMPUTE_IMAGE, image) if image else None
    known = image_size(ctx, image_res.inputs) if image_res is not None else None
    if given >= 0:
        if known is not None and known.gib is not None and known.gib > given:
            gib, why = known.gib, f"image {ref_name(image)} is {known.gib:g} GiB"
        else:
            gib, why = given, "size"
    elif known is not None and known.gib is not None:
        gib, why = known.gib, f"the size of image {ref_name(image)}"
    else:
        # Say why the size is unknown: no image at all, or an image mlgov cannot size.
        source = f"image {ref_name(image) or '?'}'s size is unknown here" if image else "no image"
        if kind in MIN_GB:
            gib, why = (
                MIN_GB[kind],
                f"no size and {source}: "
                f"at least {MIN_GB[kind]:g} GiB, the smallest Persistent Disk",
            )
        else:
            gib, why = None, f"no size and {source}"
    perf = performance(kind, params.get("provisionedIops"), params.get("provisionedThroughput"),
                       gib, given > 0 or bool(image), where)  # fmt: skip
    return VmDisk(label, kind, gib, why, perf)


def _external_ips(ctx: PlanContext, inputs: Mapping[str, Any]) -> int:
    """Access configs whose IP is not a static address of the plan (that one bills itself)."""
    count = 0
    for nic in as_list(inputs.get("networkInterfaces")):
        for access in as_list(dig(nic, "accessConfigs")):
            nat = as_mapping(access).get("natIp")
            static = nat and any(
                ctx.referenced(t, nat) is not None
                for t in (v.COMPUTE_ADDRESS, v.COMPUTE_GLOBAL_ADDRESS)
            )
            count += 0 if static else 1
    return count


def instance_spec(ctx: PlanContext, inputs: Mapping[str, Any], region: str) -> VmSpec:
    """A `gcp.compute.Instance`'s shape, boot disk, scratch disks and external IPs."""
    shape = machine_shape(text(inputs.get("machineType"), "", "machineType"), ctx.catalog)
    gpus = attached_gpus(inputs.get("guestAccelerators"), "count", "guestAccelerators")
    boot = as_mapping(dig(inputs, "bootDisk", "initializeParams"))
    kind = disk_kind(text(boot.get("type"), DEFAULT_DISK_TYPE, "bootDisk.initializeParams.type"))
    disks = [_disk(ctx, "boot disk", kind, boot.get("size"), boot.get("image"), boot,
                   "bootDisk.initializeParams.")]  # fmt: skip
    ssd = sum(
        number(d.get("size"), LOCAL_SSD_GIB) or LOCAL_SSD_GIB
        for d in map(as_mapping, as_list(inputs.get("scratchDisks")))
    )
    return VmSpec(shape, gpus, is_spot(inputs), disks, ssd, _external_ips(ctx, inputs), region,
                  _discards(inputs), premium_license(boot.get("image")))  # fmt: skip


def _discards(inputs: Mapping[str, Any]) -> bool:
    return dig(inputs, "scheduling", "onInstanceStopAction", "discardLocalSsd") is True


def template_spec(ctx: PlanContext, inputs: Mapping[str, Any], region: str) -> VmSpec:
    """An instance template's VM: its `disks` (persistent and SCRATCH) and the rest."""
    shape = machine_shape(text(inputs.get("machineType"), "", "machineType"), ctx.catalog)
    gpus = attached_gpus(inputs.get("guestAccelerators"), "count", "guestAccelerators")
    disks: list[VmDisk] = []
    ssd = 0.0
    license = ""
    for i, d in enumerate(map(as_mapping, as_list(inputs.get("disks")))):
        kind = disk_kind(text(d.get("diskType"), DEFAULT_DISK_TYPE, f"disks[{i}].diskType"))
        if (as_str(d.get("type")) or "").upper() == "SCRATCH" or kind == "local-ssd":
            ssd += number(d.get("diskSizeGb"), LOCAL_SSD_GIB) or LOCAL_SSD_GIB
            continue
        if d.get("source"):
            continue  # an existing disk, priced as its own resource
        label = "boot disk" if d.get("boot") is True or (i == 0 and "boot" not in d) else "disk"
        if label == "boot disk":
            license = premium_license(d.get("sourceImage"))
        disks.append(_disk(ctx, f"{label} {i}", kind, d.get("diskSizeGb"), d.get("sourceImage"),
                           d, f"disks[{i}]."))  # fmt: skip
    return VmSpec(shape, gpus, is_spot(inputs), disks, ssd, _external_ips(ctx, inputs), region,
                  _discards(inputs), license)  # fmt: skip


def price_vm(
    q: Quote,
    ctx: PlanContext,
    spec: VmSpec,
    count: float,
    hours: float,
    commitment: str,
) -> None:
    """Governed: `count` VMs for `hours`; baseline: the same VMs on-demand for 730 h."""
    if count <= 0:
        q.governed.note("no VMs: $0")
        q.baseline.note("no VMs: $0")
        return
    many = f"{count:g} x " if count != 1 else ""
    for b, h, usage, commit in (
        (q.governed, hours, "spot" if spec.spot else "ondemand", commitment),
        (q.baseline, HOURS_PER_MONTH, "ondemand", "none"),
    ):
        charge_machine(
            b, ctx.catalog, spec.shape, spec.region, usage, h, count, spec.gpus, commitment=commit
        )
        for disk in spec.disks:
            with b.part(disk.label):
                if disk.gib is None:
                    b.unpriced_part("capacity", disk.why)
                else:
                    try:
                        charge_disk(b, ctx.catalog, disk.kind, disk.gib, spec.region, count)
                    except CatalogError as err:
                        b.unpriced_part("capacity", str(err))
                    else:
                        if disk.why != "size":
                            b.note(f"{disk.gib:g} GiB: {disk.why}")
                charge_performance(b, ctx.catalog, disk.kind, disk.perf, spec.region, count)
        if spec.local_ssd_gib:
            price = ctx.catalog.price("disk.local-ssd", spec.region, usage)
            if spec.discard_local_ssd:
                share, why = h / HOURS_PER_MONTH, f" x {h:g}/730 h (discarded when stopped)"
            else:
                share, why = 1.0, " (kept, and billed, while the VM is stopped)"
            b.charge("local SSD", price, count * spec.local_ssd_gib * share,
                     f"{many}{spec.local_ssd_gib:g} GiB{why}")  # fmt: skip
        if spec.license:
            b.unpriced_part("image license", spec.license)
        if spec.external_ips:
            key = "network.ip.spot_vm" if usage == "spot" else "network.ip.vm"
            price = ctx.catalog.price(key, spec.region)
            b.charge(
                "external IP",
                price,
                count * spec.external_ips * h,
                f"{many}{spec.external_ips} IP(s) x {h:g} h in use",
            )
