"""Standalone persistent disks (`gcp.compute.Disk`): provisioned GiB, billed while they exist.

The per-GiB arithmetic is shared with boot and data disks (disk_pricing.py); the baseline is
the same.
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.disk_pricing import charge_disk
from governance.costs.inputs import number, text
from governance.costs.model import Resource

# Compute Engine's disk defaults (disks.insert: type pd-standard; 10 GB for the public images).
DEFAULT_TYPE = "pd-standard"
DEFAULT_GB = 10.0


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Provisioned GiB x disk price; the baseline is the same."""
    q = Quote()
    region = ctx.region(res.inputs, "zone", "region")
    disk_type = text(res.inputs.get("type"), DEFAULT_TYPE, "type")
    size = number(res.inputs.get("size"), DEFAULT_GB)
    for b in (q.governed, q.baseline):
        charge_disk(b, ctx.catalog, disk_type, size, region)
    return q
