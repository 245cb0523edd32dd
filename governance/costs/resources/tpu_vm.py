"""Cloud TPU VMs (`gcp.tpu.V2Vm`): TPU chips (host included) for the hours the slice is READY.

The slice size comes from `acceleratorType` (v5litepod-8) or `acceleratorConfig` (type and
topology); spot scheduling uses spot chip prices; `mlgov-expires-on` prorates the hours. The
baseline runs on-demand for 730 h.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.expiry import expiry_factor
from governance.costs.inputs import text
from governance.costs.machine_pricing import charge_machine
from governance.costs.machines import Shape, tpu_chips, tpu_from_config
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.usage_models import usage_model
from mlgov_policies.props import as_bool, as_mapping


@usage_model(place=40)
class TpuVmUsage(BaseModel):
    """How long TPU slices exist."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tpu_vm_hours_per_month: float = Field(
        default=HOURS_PER_MONTH,
        ge=0,
        le=HOURS_PER_MONTH,
        description="Hours a TPU VM is READY per month (hours); lower it if slices are deleted.",
    )


class Declared(BaseModel):
    """A TPU VM's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_hours: float | None = Field(
        default=None, ge=0, le=HOURS_PER_MONTH, description="Hours the slice is READY a month."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Governed: spot and expiry; baseline: on-demand, 730 h."""
    q = Quote()
    bill, base = q.governed, q.baseline
    inputs = res.inputs
    region = ctx.region(inputs, "zone")
    if accelerator := inputs.get("acceleratorType"):
        gen, chips = tpu_chips(text(accelerator, "", "acceleratorType"))
    else:
        cfg = as_mapping(inputs.get("acceleratorConfig"))
        gen, chips = tpu_from_config(
            text(cfg.get("type"), "", "acceleratorConfig.type"),
            text(cfg.get("topology"), "", "acceleratorConfig.topology"),
        )
    sched = as_mapping(inputs.get("schedulingConfig"))
    spot = as_bool(sched.get("spot")) is True or as_bool(sched.get("preemptible")) is True
    declared = ctx.usage_of(res, Declared).monthly_hours
    hours = ctx.knobs(TpuVmUsage).tpu_vm_hours_per_month if declared is None else declared
    source = "tpu_vm_hours_per_month" if declared is None else "usage file monthly_hours"
    bill.note(f"READY {hours:g} h/month ({source})")
    hours *= expiry_factor(bill, res.labels, ctx.as_of)
    base.note("on-demand, 730 h, no expiry")
    shape = Shape("tpu", tpu=gen, tpu_chips=chips)
    charge_machine(bill, ctx.catalog, shape, region, "spot" if spot else "ondemand", hours,
                   commitment=ctx.usage.commitment)  # fmt: skip
    charge_machine(base, ctx.catalog, shape, region, "ondemand", HOURS_PER_MONTH)
    return q
