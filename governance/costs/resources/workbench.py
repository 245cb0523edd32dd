"""Vertex AI Workbench instances: a VM billed while running, plus Workbench's management fee.

Running hours come from idle shutdown (`gceSetup.metadata["idle-timeout-seconds"]`): active
hours plus one idle timeout per session, capped by an office-hours schedule (context) and
prorated by `mlgov-expires-on`. Disks are billed all month; the external IP the instance gets
unless `gceSetup.disablePublicIp` is true, for the hours it runs (`network.ip.vm`). The
management fee is charged per vCPU, GiB of memory and GPU hour where the catalog prices it (the
memory fee has no documented figure in the shipped catalog: the explanation says it is not
charged). The baseline runs 730 h.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Bill, Quote
from governance.costs.context import PlanContext
from governance.costs.disk_pricing import charge_disk
from governance.costs.expiry import expiry_factor
from governance.costs.inputs import number, text
from governance.costs.machine_pricing import attached_gpus, charge_machine
from governance.costs.machines import machine_shape
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.usage_models import usage_model
from mlgov_policies.props import as_bool, as_list, as_mapping, dig

# Workbench's defaults when gceSetup leaves them out (gcp.workbench.Instance API reference:
# machine type n1-standard-4, boot disk 150 GB and data disk 100 GB, both PD_BALANCED).
DEFAULT_MACHINE = "n1-standard-4"
DEFAULT_DISK = "pd-balanced"
DEFAULT_BOOT_GB = 150.0
DEFAULT_DATA_GB = 100.0
# Workbench's management fee keys (source and date of each figure: the catalog entry).
MGMT_VCPU = "workbench.mgmt.vcpu"
MGMT_RAM = "workbench.mgmt.ram"


class Declared(BaseModel):
    """A notebook's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_active_hours: float | None = Field(
        default=None, ge=0, le=HOURS_PER_MONTH,
        description="Hours someone actively works in the notebook a month.",
    )  # fmt: skip


@usage_model(place=10)
class WorkbenchUsage(BaseModel):
    """How much people work in their notebooks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    notebook_active_hours_per_month: float = Field(
        default=88.0,
        ge=0,
        le=HOURS_PER_MONTH,
        description="Hours a person actively works in one notebook per month (22 days x 4 h).",
    )
    notebook_sessions_per_month: int = Field(
        default=22,
        ge=0,
        description="Work sessions per notebook per month; each ends with one idle timeout.",
    )
    notebook_active_hours: dict[str, float] = Field(
        default_factory=dict,
        description="Per-notebook override of active hours/month, keyed by resource or GCP name.",
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Governed: idle shutdown, schedule and expiry bound the hours; baseline: always on."""
    q = Quote()
    bill, base = q.governed, q.baseline
    gce = as_mapping(res.inputs.get("gceSetup"))
    region = ctx.region(res.inputs, "location")
    machine = text(gce.get("machineType"), DEFAULT_MACHINE, "gceSetup.machineType")
    shape = machine_shape(machine, ctx.catalog)
    gpus = attached_gpus(
        gce.get("acceleratorConfigs"), "coreCount", "gceSetup.acceleratorConfigs", enum=True
    )
    idle_s = number(dig(gce, "metadata", "idle-timeout-seconds"), -1.0)
    u = ctx.knobs(WorkbenchUsage)
    window = ctx.office_hours.get(res.gcp_name)
    if idle_s > 0:
        active = res.override(u.notebook_active_hours, u.notebook_active_hours_per_month)
        declared = ctx.usage_of(res, Declared).monthly_active_hours
        active = active if declared is None else declared
        hours = active + u.notebook_sessions_per_month * idle_s / 3600
        bill.note(
            f"running {active:g} active h + {u.notebook_sessions_per_month} sessions x "
            f"{idle_s / 3600:g} h idle timeout = {hours:g} h"
        )
    else:
        hours = HOURS_PER_MONTH
        bill.note("no idle-timeout-seconds: runs until someone stops it (730 h)")
    if window is not None:
        hours = min(hours, window)
        bill.note(f"office-hours schedule allows {window:.1f} h/month")
    hours = min(hours, HOURS_PER_MONTH) * expiry_factor(bill, res.labels, ctx.as_of)
    base.note("always on: 730 h, no idle shutdown, no schedule, no expiry")
    cat = ctx.catalog
    boot = as_mapping(gce.get("bootDisk"))
    disks = [
        (text(boot.get("diskType"), DEFAULT_DISK, "gceSetup.bootDisk.diskType"),
         number(boot.get("diskSizeGb"), DEFAULT_BOOT_GB)),
        *((text(d.get("diskType"), DEFAULT_DISK, f"{path}.diskType"),
           number(d.get("diskSizeGb"), DEFAULT_DATA_GB))
          for path, d in _data_disks(gce.get("dataDisks"))),
    ]  # fmt: skip
    # the management fee is per GPU, built into the machine type (G2's L4) or attached
    fee_gpus: list[tuple[str, float]] = (
        [(shape.gpu, shape.gpu_count)] if shape.gpu else [(m, float(n)) for m, n in gpus]
    )
    for b, h, commit in ((bill, hours, ctx.usage.commitment), (base, HOURS_PER_MONTH, "none")):
        charge_machine(b, cat, shape, region, "ondemand", h, extra_gpus=gpus, commitment=commit)
        _management_fee(b, ctx, shape.vcpus, shape.memory_gib, fee_gpus, region, h)
        for disk_type, size_gb in disks:
            charge_disk(b, cat, disk_type, size_gb, region)
        if as_bool(gce.get("disablePublicIp")) is not True:
            # the Workbench API gives the VM an external IP unless disablePublicIp is true
            b.charge("external IP", cat.price("network.ip.vm", region), h,
                     f"{h:g} h in use (gceSetup.disablePublicIp is not true)")  # fmt: skip
    return q


def _data_disks(value: object) -> list[tuple[str, Mapping[str, Any]]]:
    """(key path, disk) of `gceSetup.dataDisks`.

    pulumi-gcp makes it one object (Terraform's block of at most one disk); the Workbench API's
    list (`dataDisks[]`) is read too. Reading only the list priced a real program's disk at $0.
    """
    if (one := as_mapping(value)) or isinstance(value, dict):
        return [("gceSetup.dataDisks", one)]
    return [(f"gceSetup.dataDisks[{i}]", as_mapping(d)) for i, d in enumerate(as_list(value))]


def _management_fee(
    b: Bill, ctx: PlanContext, vcpus: float, gib: float, gpus: Sequence[tuple[str, float]],
    region: str, h: float,
) -> None:  # fmt: skip
    """Workbench's management fee per vCPU, GiB of memory and GPU hour (never committed)."""
    cat = ctx.catalog
    b.charge("Workbench fee", cat.price(MGMT_VCPU, region), vcpus * h, f"{vcpus:g} vCPU x {h:g} h")
    if cat.has(MGMT_RAM):
        b.charge("Workbench memory fee", cat.price(MGMT_RAM, region), gib * h,
                 f"{gib:g} GiB x {h:g} h")  # fmt: skip
    else:
        b.note(f"Workbench memory fee: no documented price ({MGMT_RAM}); not charged")
    for model, count in gpus:
        key = f"workbench.mgmt.gpu.{model}"
        if not cat.has(key):
            # the GPU itself is already named unpriced (machine_pricing.py) or priced; its fee
            # has no documented figure: named, the rest of the notebook priced
            b.unpriced_part(f"Workbench GPU fee {count:g} x {model}", f"no catalog price {key}")
            continue
        b.charge("Workbench GPU fee", cat.price(key, region), count * h,
                 f"{count:g} x {model} x {h:g} h")  # fmt: skip
