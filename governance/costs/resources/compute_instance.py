"""Standalone Compute Engine VMs (GPU training VMs and any other): machine, disks, SSDs, IPs.

mlgov makes these spot (`scheduling.provisioningModel: SPOT`) with a `maxRunDuration`: billed
hours are the usage assumption capped at runs x max run, prorated by `mlgov-expires-on` (a usage
file's `monthly_hours` replaces the assumption). Disks, local SSD and external IPs are
vm_pricing.py's; internet egress is usage (egress.py). The baseline runs on-demand for 730 h.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.egress import InternetEgress, charge_internet_egress
from governance.costs.expiry import expiry_factor
from governance.costs.inputs import number
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.usage_models import usage_model
from governance.costs.vm_pricing import instance_spec, price_vm
from mlgov_policies.props import as_mapping, dig


@usage_model(place=30)
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


class _OwnDeclared(BaseModel):
    """The usage keys of its own (egress keys come from InternetEgress)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_hours: float | None = Field(
        default=None, ge=0, le=HOURS_PER_MONTH, description="Hours the VM runs a month."
    )


# pydantic lays out fields from the LAST base to the first: own keys, then egress by destination.
class Declared(InternetEgress, _OwnDeclared):
    """A VM's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Governed: spot, maxRunDuration and expiry; baseline: on-demand, 730 h."""
    q = Quote()
    bill, base = q.governed, q.baseline
    inputs = res.inputs
    region = ctx.region(inputs, "zone")
    spec = instance_spec(ctx, inputs, region)
    sched = as_mapping(inputs.get("scheduling"))
    u = ctx.knobs(ComputeInstanceUsage)
    declared = ctx.usage_of(res, Declared)
    hours = u.gpu_vm_hours_per_month
    if declared.monthly_hours is not None:
        hours = declared.monthly_hours
        bill.note(f"runs {hours:g} h/month (usage file monthly_hours)")
    max_run_h = number(dig(sched, "maxRunDuration", "seconds")) / 3600
    if max_run_h > 0:
        capped = min(hours, u.gpu_vm_runs_per_month * max_run_h)
        bill.note(
            f"maxRunDuration {max_run_h:g} h x {u.gpu_vm_runs_per_month} runs/month, "
            f"capped at {hours:g} h -> {capped:g} h"
        )
        hours = capped
    hours *= expiry_factor(bill, res.labels, ctx.as_of)
    base.note("on-demand, 730 h, no maxRunDuration, no expiry")
    price_vm(q, ctx, spec, 1.0, hours, ctx.usage.commitment)
    for b in (bill, base):
        charge_internet_egress(b, ctx.catalog, region, declared)
    return q
