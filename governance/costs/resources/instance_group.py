"""Managed instance groups (zonal and regional): `targetSize` VMs of their instance template.

Instance templates cost nothing themselves (registry.py says so); a group runs its template's VM
`targetSize` times, or once per per-instance config of the plan when there are more (a stateful
group creates the instance a config names; a usage file's `instances` wins, e.g. for a group an
autoscaler sizes), all month, with the template's disks, local SSD and external IPs
(vm_pricing.py). The template is found in the plan from `versions[0].instanceTemplate` (or the
older `instanceTemplate`); a template outside the plan cannot be priced. A group with more than
one version is priced as its first version's template. The baseline runs the same VMs on-demand.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext, ref_name
from governance.costs.egress import InternetEgress, charge_internet_egress
from governance.costs.errors import CostError
from governance.costs.inputs import number, text
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.regions import region_of
from governance.costs.vm_pricing import price_vm, template_spec
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_list, as_mapping


class _OwnDeclared(BaseModel):
    """The usage keys of its own (egress keys come from InternetEgress)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instances: float | None = Field(
        default=None, ge=0, description="Average VMs running (wins over targetSize)."
    )
    monthly_hours: float | None = Field(
        default=None, ge=0, le=HOURS_PER_MONTH, description="Hours each VM runs a month."
    )


# pydantic lays out fields from the LAST base to the first: own keys, then egress by destination.
class Declared(InternetEgress, _OwnDeclared):
    """A managed instance group's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Template VM x target size, all month; the baseline is the same on-demand."""
    q = Quote()
    inputs = res.inputs
    versions = [as_mapping(x) for x in as_list(inputs.get("versions"))]
    ref = versions[0].get("instanceTemplate") if versions else inputs.get("instanceTemplate")
    template = ctx.referenced(v.COMPUTE_INSTANCE_TEMPLATE, ref) or ctx.referenced(
        v.COMPUTE_REGION_INSTANCE_TEMPLATE, ref
    )
    if template is None:
        raise CostError(
            f"managed instance group {res.name!r}: its instance template "
            f"{ref_name(ref) or '(none given)'!r} is not in the plan, so its VMs are unknown"
        )
    # an unknown zone or region (inherited from a provider that sets none) is never a guess
    location = text(inputs.get("zone"), "", "zone") or text(inputs.get("region"), "", "region")
    region = region_of(location) if location else ctx.usage.default_region
    spec = template_spec(ctx, template.inputs, region)
    declared = ctx.usage_of(res, Declared)
    if declared.instances is not None:
        count, why = declared.instances, "usage file instances"
    elif (configs := ctx.instance_configs.get(res.gcp_name, 0)) > number(inputs.get("targetSize")):
        count, why = float(configs), f"{configs} per-instance config(s) above targetSize"
    elif (size := number(inputs.get("targetSize"), -1.0)) >= 0 and "targetSize" in inputs:
        count, why = size, "targetSize"
    else:
        count, why = 0.0, "no targetSize (an autoscaler sizes the group): declare `instances`"
    hours = HOURS_PER_MONTH if declared.monthly_hours is None else declared.monthly_hours
    q.governed.note(f"{count:g} VM(s) of template {template.name} ({why}) x {hours:g} h")
    if len(versions) > 1:
        q.governed.note("several versions: every VM priced as the first version's template")
    type_key = f"gce.type.{spec.shape.name}"
    if count == 0 and declared.instances is None and ctx.catalog.has(type_key):
        # the machine's own price per VM-hour, as a usage line: disks and GPUs come on top
        q.governed.depends_on_usage(
            "VMs", ctx.catalog.price(type_key, region), "instances", "per VM-hour (machine only)"
        )
    price_vm(q, ctx, spec, count, hours, ctx.usage.commitment)
    for b in (q.governed, q.baseline):
        charge_internet_egress(b, ctx.catalog, region, declared)
    return q
