"""What persistent disks cost: provisioned GiB per month, billed while the disk exists.

Used by every model with a boot or data disk (Workbench, VMs, node pools) and by the standalone
`gcp:compute/disk:Disk` model. A stopped VM still pays for its disks, which is why expiry and
idle shutdown never prorate this charge.
"""

from __future__ import annotations

from governance.costs.bill import Bill
from governance.costs.catalog import Catalog


def charge_disk(
    bill: Bill, catalog: Catalog, disk_type: str, size_gb: float, region: str, units: float = 1.0
) -> None:
    """Charge `units` disks of `size_gb` GiB; `disk_type` as the API spells it (PD_SSD, pd-ssd)."""
    kind = disk_type.lower().replace("_", "-")
    price = catalog.price(f"disk.{kind}", region)
    many = f"{units:g} x " if units != 1 else ""
    bill.charge("disk", price, size_gb * units, f"{many}{size_gb:g} GiB (billed while it exists)")
