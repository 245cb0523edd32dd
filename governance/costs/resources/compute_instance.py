"""Standalone Compute Engine VMs (GPU training VMs): machine, GPUs and boot disk.

mlgov makes these spot (`scheduling.provisioningModel: SPOT`) with a `maxRunDuration`: billed
hours are the usage assumption capped at runs x max run, prorated by `mlgov-expires-on`. The
baseline runs on-demand for 730 h. Local SSD scratch disks have no price yet: an error.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.disk_pricing import charge_disk
from governance.costs.errors import CostError
from governance.costs.expiry import expiry_factor
from governance.costs.inputs import number, text
from governance.costs.machine_pricing import attached_gpus, charge_machine
from governance.costs.machines import machine_shape
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from mlgov_policies.props import as_bool, as_list, as_mapping, dig

# Compute Engine's boot disk defaults (instances.insert: initializeParams.diskType pd-standard,
# size of the image, 10 GB for the public images mlgov uses).
DEFAULT_BOOT_TYPE = "pd-standard"
DEFAULT_BOOT_GB = 10.0


class ComputeInstanceUsage(BaseModel):
    """How long standalone VMs run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu_vm_hours_per_month: float = Field(
        default=HOURS_PER_MONTH,
        ge=0,
        le=HOURS_PER_MONTH,
        description="Hours a standalone VM runs per month when nothing stops it (hours).",
    )
    gpu_vm_runs_per_month: int = Field(
        default=22,
        ge=0,
        description="Job starts per month for VMs with maxRunDuration; each run is capped by it.",
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Governed: spot, maxRunDuration and expiry; baseline: on-demand, 730 h."""
    q = Quote()
    bill, base = q.governed, q.baseline
    inputs = res.inputs
    region = ctx.region(inputs, "zone")
    shape = machine_shape(text(inputs.get("machineType"), "", "machineType"))
    gpus = attached_gpus(inputs.get("guestAccelerators"), "count", "guestAccelerators")
    sched = as_mapping(inputs.get("scheduling"))
    spot = sched.get("provisioningModel") == "SPOT" or as_bool(sched.get("preemptible")) is True
    u = ctx.usage
    hours = u.gpu_vm_hours_per_month
    max_run_h = number(dig(sched, "maxRunDuration", "seconds")) / 3600
    if max_run_h > 0:
        hours = min(hours, u.gpu_vm_runs_per_month * max_run_h)
        bill.note(
            f"maxRunDuration {max_run_h:g} h x {u.gpu_vm_runs_per_month} runs/month, "
            f"capped at {u.gpu_vm_hours_per_month:g} h -> {hours:g} h"
        )
    hours *= expiry_factor(bill, res.labels, ctx.as_of)
    base.note("on-demand, 730 h, no maxRunDuration, no expiry")
    if as_list(inputs.get("scratchDisks")):
        raise CostError(f"compute instance {res.name!r}: local SSD scratch disks are not priced")
    boot = as_mapping(dig(inputs, "bootDisk", "initializeParams"))
    disk_type = text(boot.get("type"), DEFAULT_BOOT_TYPE, "bootDisk.initializeParams.type")
    disk_gb = number(boot.get("size"), DEFAULT_BOOT_GB)
    for b, h, usage, commit in ((bill, hours, "spot" if spot else "ondemand", u.commitment),
                                (base, HOURS_PER_MONTH, "ondemand", "none")):  # fmt: skip
        charge_machine(b, ctx.catalog, shape, region, usage, h, extra_gpus=gpus, commitment=commit)
        charge_disk(b, ctx.catalog, disk_type, disk_gb, region)
    return q
