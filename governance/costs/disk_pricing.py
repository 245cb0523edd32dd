"""What persistent disks cost: provisioned GiB per month, plus provisioned performance.

Used by every model with a boot or data disk (Workbench, VMs, node pools, instance templates)
and by the standalone disk models. A stopped VM still pays for its disks, which is why expiry and
idle shutdown never prorate this charge. pd-extreme and Hyperdisk Extreme also bill every
provisioned IOPS per month (catalog `disk.<type>.iops`); without `provisionedIops` that part is
named as unpriced (Compute Engine applies a default this estimate does not know), never guessed.
"""

from __future__ import annotations

from governance.costs.bill import Bill
from governance.costs.catalog import Catalog
from governance.costs.errors import CatalogError

# Disk types that bill provisioned IOPS on top of capacity (catalog keys disk.<type>.iops).
IOPS_BILLED = frozenset({"pd-extreme", "hyperdisk-extreme"})
# Hyperdisk types that bill provisioned throughput; the catalog has no price for it yet.
THROUGHPUT_BILLED = frozenset({"hyperdisk-balanced", "hyperdisk-throughput", "hyperdisk-ml"})


def disk_key(disk_type: str, regional: bool = False) -> str:
    """The catalog key of a disk type as the API spells it (PD_SSD, pd-ssd, a type URL)."""
    kind = disk_type.rsplit("/", 1)[-1].strip().lower().replace("_", "-")
    return f"disk.regional.{kind}" if regional else f"disk.{kind}"


def charge_disk(
    bill: Bill, catalog: Catalog, disk_type: str, size_gb: float, region: str, units: float = 1.0
) -> None:
    """Charge `units` disks of `size_gb` GiB; `disk_type` as the API spells it (PD_SSD, pd-ssd)."""
    price = catalog.price(disk_key(disk_type), region)
    many = f"{units:g} x " if units != 1 else ""
    bill.charge("disk", price, size_gb * units, f"{many}{size_gb:g} GiB (billed while it exists)")


def charge_performance(
    bill: Bill,
    catalog: Catalog,
    kind: str,
    iops: float | None,
    throughput: float | None,
    region: str,
    units: float = 1.0,
) -> None:
    """Charge provisioned IOPS where the type bills them; name what cannot be priced."""
    many = f"{units:g} x " if units != 1 else ""
    if kind in IOPS_BILLED:
        if iops is None:
            bill.unpriced_part(
                "provisioned IOPS",
                f"{kind} bills every provisioned IOPS and provisionedIops is "
                "not set (Compute Engine applies a default this estimate does not know)",
            )
        else:
            try:
                price = catalog.price(f"disk.{kind}.iops", region)
            except CatalogError as err:
                bill.unpriced_part("provisioned IOPS", str(err))
            else:
                bill.charge("provisioned IOPS", price, iops * units, f"{many}{iops:g} IOPS")
    if kind in THROUGHPUT_BILLED and throughput is not None:
        bill.unpriced_part(
            "provisioned throughput", f"the price catalog has no {kind} throughput price"
        )
