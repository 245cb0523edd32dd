"""Compute Engine resource policies: free, except the snapshots a snapshot schedule takes.

An instance schedule, a placement policy or a disk consistency group costs nothing itself. A
snapshot schedule (`snapshotSchedulePolicy`) makes Compute Engine take snapshots of every disk
attached to it and keep them for `retentionPolicy.maxRetentionDays`: those snapshots bill
stored GiB at the standard snapshot price of their storage location
(`snapshotProperties.storageLocations`, else the Cloud Storage multi-region nearest the policy's
region, Compute Engine's default for a snapshot that names none; images.py). How much they hold
depends on the disks attached and how much they change: usage (`storage_gib`, the GiB the
schedule's snapshots hold), else a "depends on usage" line, never $0 without a word.
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource
from governance.costs.regions import region_of
from governance.costs.resources.images import Declared, nearest_multi_region
from mlgov_policies.props import as_list, as_mapping, as_str, dig

# snapshotSchedulePolicy is the one kind that makes billed resources (the other kinds:
# instanceSchedulePolicy, groupPlacementPolicy, diskConsistencyGroupPolicy, workloadPolicy)
FREE_KINDS = "instance schedules, placement and consistency policies have no charge"


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """$0 for a policy; a snapshot schedule's snapshots at their storage location's price."""
    schedule = as_mapping(res.inputs.get("snapshotSchedulePolicy"))
    if not schedule:
        return Quote.free(FREE_KINDS)
    q = Quote()
    region = ctx.region(res.inputs, "region")
    locations = [
        s for x in as_list(dig(schedule, "snapshotProperties", "storageLocations"))
        if (s := as_str(x))
    ]  # fmt: skip
    where = region_of(locations[0]) if locations else nearest_multi_region(region)
    price = ctx.catalog.price("disk.snapshot", where)
    declared = ctx.usage_of(res, Declared).storage_gib
    days = dig(schedule, "retentionPolicy", "maxRetentionDays")
    kept = f", each kept {days} days (retentionPolicy.maxRetentionDays)" if days else ""
    for b in (q.governed, q.baseline):
        b.note(f"snapshot schedule: it snapshots the disks attached to it{kept}")
        if declared is None:
            b.depends_on_usage("snapshots", price, "storage_gib")
        else:
            b.charge("snapshots", price, declared, f"{declared:g} GiB (usage file storage_gib)")
    return q
