"""Standalone persistent disks (`gcp.compute.Disk`, `gcp.compute.RegionDisk`): GiB and performance.

The size follows Compute Engine's rules (disk_sizes.py): `size`, at least the image's or
snapshot's it is created from, else that source's size, else the type's documented default; a
size nobody can know (a public image outside the plan, a Hyperdisk type without a documented
default) leaves the capacity as a named unpriced part. Regional disks replicate to two zones and
bill at the catalog's `disk.regional.*` prices. pd-extreme and Hyperdisk Extreme also bill
provisioned IOPS, Compute Engine's documented default where `provisionedIops` is not set, and a
value Compute Engine refuses is a mandatory finding (disk_pricing.py). The baseline is the same.
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.disk_pricing import charge_performance, disk_key, performance
from governance.costs.disk_sizes import DEFAULT_DISK_TYPE, disk_kind, disk_size, sets_size
from governance.costs.errors import CatalogError
from governance.costs.inputs import text
from governance.costs.model import Resource
from mlgov_policies import vocabulary as v


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Provisioned GiB x disk price, plus provisioned IOPS; the baseline is the same."""
    q = Quote()
    regional = res.type == v.COMPUTE_REGION_DISK
    region = ctx.region(res.inputs, "zone", "region")
    kind = disk_kind(text(res.inputs.get("type"), DEFAULT_DISK_TYPE, "type"))
    size = disk_size(ctx, res.inputs)
    perf = performance(kind, res.inputs.get("provisionedIops"),
                       res.inputs.get("provisionedThroughput"), size.gib,
                       sets_size(res.inputs))  # fmt: skip
    for b in (q.governed, q.baseline):
        if size.gib is None:
            b.unpriced_part("capacity", size.why)
        else:
            try:
                price = ctx.catalog.price(disk_key(kind, regional), region)
            except CatalogError as err:
                b.unpriced_part("capacity", str(err))
            else:
                b.charge("disk", price, size.gib, f"{size.gib:g} GiB ({size.why})")
        charge_performance(b, ctx.catalog, kind, perf, region)
    return q
