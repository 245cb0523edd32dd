"""Cloud VPN tunnels: an hourly charge per tunnel (`network.vpn.tunnel`, Billing Catalog export).

Gateways (Classic, HA and external peer gateways) have no charge of their own (registry.py);
each tunnel is billed by the hour in its region. Traffic through a tunnel is billed as data
transfer (between regions, or to the internet), which mlgov does not estimate for VPN. The
baseline is the same.
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH


def tunnel(res: Resource, ctx: PlanContext) -> Quote:
    """One tunnel for 730 hours."""
    q = Quote()
    price = ctx.catalog.price("network.vpn.tunnel", ctx.region(res.inputs, "region"))
    for b in (q.governed, q.baseline):
        b.charge("tunnel", price, HOURS_PER_MONTH, f"{HOURS_PER_MONTH:g} h")
        b.note("traffic through the tunnel is billed as data transfer (not estimated)")
    return q
