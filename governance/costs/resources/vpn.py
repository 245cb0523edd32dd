"""Cloud VPN: tunnels by the hour, and the traffic gateways send through them by destination.

Each tunnel is billed by the hour in its region (`network.vpn.tunnel`, Billing Catalog export).
Gateways (Classic, HA and external peer gateways) have no charge of their own; the traffic they
send is. Egress through a tunnel to a peer outside Google Cloud is billed on Cloud Billing's
"Network Vpn Internet Egress" SKUs, which carry the Premium Tier internet egress prices by
destination (worldwide, China, Australia; the export's SKU mapping, build/mapping.csv of
Cyclenerd/google-cloud-pricing-cost-calculator: "SAME AS PremiumInternetEgress"), so a gateway
is priced with egress.py's keys and tiers, declared per gateway in a usage file
(`monthly_egress_gb`, `monthly_egress_china_gb`, `monthly_egress_australia_gb`) or shown as
"depends on usage" lines. Traffic between two Cloud VPN gateways is billed at VM-VM data
transfer prices (https://cloud.google.com/network-connectivity/docs/vpn/pricing: as traffic
between zones when both gateways are in one region, else between regions), which the catalog
has no price for: said in a note, not estimated. The baseline is the same.
"""

from __future__ import annotations

from pydantic import ConfigDict

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.egress import InternetEgress, charge_internet_egress
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH


class Declared(InternetEgress):
    """What a VPN gateway sends through its tunnels to the internet a month, by destination."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def tunnel(res: Resource, ctx: PlanContext) -> Quote:
    """One tunnel for 730 hours."""
    q = Quote()
    price = ctx.catalog.price("network.vpn.tunnel", ctx.region(res.inputs, "region"))
    for b in (q.governed, q.baseline):
        b.charge("tunnel", price, HOURS_PER_MONTH, f"{HOURS_PER_MONTH:g} h")
        b.note("traffic through the tunnel is priced on its gateway (usage file)")
    return q


def gateway(res: Resource, ctx: PlanContext) -> Quote:
    """No charge of its own; the traffic it sends by destination, declared or as usage lines.

    An external (peer) gateway names no region: its traffic is priced at the prices of the
    stack's default region (`usage.default_region`), where mlgov assumes its tunnels are.
    """
    q = Quote()
    region = ctx.region(res.inputs, "region")
    declared = ctx.usage_of(res, Declared)
    for b in (q.governed, q.baseline):
        b.note("the gateway has no charge of its own; its tunnels are priced per hour")
        charge_internet_egress(b, ctx.catalog, region, declared)
    q.governed.note(
        "traffic to another Cloud VPN gateway is billed at Google's VM-VM data transfer prices "
        "(between zones when both gateways are in one region, else between regions): not "
        "estimated (the price catalog has no such price)"
    )
    return q
