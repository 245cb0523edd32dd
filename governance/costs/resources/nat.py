"""Cloud NAT gateways: an hourly charge per VM using the gateway (capped at 32 VMs) plus data.

VMs per gateway and GiB processed are usage assumptions; the baseline is the same.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.usage_models import usage_model

# Above 32 VMs a gateway bills a flat hourly maximum (catalog key nat.gateway_max).
# Source: https://cloud.google.com/nat/pricing
MAX_BILLED_VMS = 32


class Declared(BaseModel):
    """A Cloud NAT gateway's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    assigned_vms: int | None = Field(default=None, ge=0, description="VMs using the gateway.")
    monthly_data_processed_gb: float | None = Field(
        default=None, ge=0, description="GiB the gateway processes a month."
    )


@usage_model(place=100)
class NatUsage(BaseModel):
    """How much each Cloud NAT gateway is used."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    nat_vm_count: int = Field(
        default=2, ge=0, description="VMs (incl. GKE nodes) that use each Cloud NAT gateway."
    )
    nat_gb_per_month: float = Field(
        default=50.0, ge=0, description="GiB processed by each Cloud NAT gateway per month."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Gateway uptime and data processing; the baseline is the same."""
    q = Quote()
    u = ctx.knobs(NatUsage)
    d = ctx.usage_of(res, Declared)
    vms = u.nat_vm_count if d.assigned_vms is None else d.assigned_vms
    data = (
        u.nat_gb_per_month if d.monthly_data_processed_gb is None else (d.monthly_data_processed_gb)
    )
    cat = ctx.catalog
    region = ctx.region(res.inputs, "region")  # the catalog's "global" answers where none
    for b in (q.governed, q.baseline):
        if vms > MAX_BILLED_VMS:
            b.charge("gateway", cat.price("nat.gateway_max", region), HOURS_PER_MONTH,
                     f"730 h ({vms} VMs > 32)")  # fmt: skip
        else:
            b.charge(
                "gateway", cat.price("nat.gateway_vm", region), vms * HOURS_PER_MONTH,
                f"{vms} VMs x 730 h",
            )  # fmt: skip
        b.charge("data", cat.price("nat.data", region), data, f"{data:g} GiB")
    return q
