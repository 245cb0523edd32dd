"""Static IP addresses (`gcp.compute.Address`, `gcp.compute.GlobalAddress`): in use or reserved.

Google bills external IPv4 addresses by the hour: a static address reserved but not in use at
`network.ip.unused`, one in use by a standard VM at `network.ip.vm`, by a Spot or preemptible VM
at `network.ip.spot_vm` (sources and dates in the catalog). "In use" means a VM or instance
template of the plan names it in `networkInterfaces[].accessConfigs[].natIp` (by address, name
or self link; context.py). Internal addresses and ranges reserved for peering or Private Service
Connect have no charge. External addresses used by forwarding rules are not told apart (the plan
does not say which rule uses which address): they price as reserved, the higher rate, and the
line says so. The baseline is the same.
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import AddressUse, PlanContext, ref_name
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_str

# Purposes of internal ranges and reservations that are not an external IP.
_INTERNAL_PURPOSES = frozenset(
    {"VPC_PEERING", "PRIVATE_SERVICE_CONNECT", "IPSEC_INTERCONNECT", "SHARED_LOADBALANCER_VIP"}
)


def _user(res: Resource, ctx: PlanContext) -> AddressUse | None:
    """The VM using this address, matched by its address, GCP name or Pulumi name."""
    keys = {k for k in (as_str(res.inputs.get("address")), res.gcp_name, res.name) if k}
    for ip, use in ctx.address_users.items():
        if ip in keys or ref_name(ip) in keys:
            return use
    return None


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """$0 for internal ranges; else the in-use or reserved hourly price for 730 h."""
    q = Quote()
    kind = as_str(res.inputs.get("addressType")) or "EXTERNAL"
    purpose = as_str(res.inputs.get("purpose")) or ""
    if kind == "INTERNAL" or purpose in _INTERNAL_PURPOSES:
        what = "internal (VPC peering) range" if purpose == "VPC_PEERING" else "internal address"
        q.governed.note(f"{what}: no charge")
        return q
    region = "global" if res.type == v.COMPUTE_GLOBAL_ADDRESS else ctx.region(res.inputs, "region")
    use = _user(res, ctx)
    if use is None:
        key, detail = "network.ip.unused", "730 h reserved, not used by a VM in the plan"
    elif use.spot:
        key, detail = "network.ip.spot_vm", f"730 h in use by spot VM {use.user}"
    else:
        key, detail = "network.ip.vm", f"730 h in use by VM {use.user}"
    price = ctx.catalog.price(key, ctx.usage.default_region if region == "global" else region)
    for b in (q.governed, q.baseline):
        b.charge("static IP", price, HOURS_PER_MONTH, detail)
    return q
