"""VPN tunnels by the hour, gateways by their traffic; Monitoring metric volume tiers and calls."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price, usage_lines

TUNNEL = {"type": "gcp:compute/vPNTunnel:VPNTunnel", "name": "t",
          "inputs": {"region": "europe-west1", "peerIp": "15.0.0.120"}}  # fmt: skip
METRIC = {"type": "gcp:monitoring/metricDescriptor:MetricDescriptor", "name": "m",
          "inputs": {"type": "custom.googleapis.com/x", "metricKind": "GAUGE"}}  # fmt: skip


GATEWAYS = ("gcp:compute/haVpnGateway:HaVpnGateway", "gcp:compute/vPNGateway:VPNGateway",
            "gcp:compute/externalVpnGateway:ExternalVpnGateway")  # fmt: skip
EGRESS_KEYS = {
    "internet egress": "monthly_egress_gb",
    "internet egress to China": "monthly_egress_china_gb",
    "internet egress to Australia": "monthly_egress_australia_gb",
}


def test_a_tunnel_bills_its_regions_hourly_price():
    cost = one(TUNNEL)
    assert cost.monthly_usd == pytest.approx(730 * price("network.vpn.tunnel", "europe-west1"))


@pytest.mark.parametrize("token", GATEWAYS)
def test_a_gateway_costs_nothing_itself_and_its_traffic_depends_on_usage(token):
    gateway = one({"type": token, "name": "g", "inputs": {"region": "europe-west1"}})
    assert gateway.priced and gateway.monthly_usd == 0
    assert usage_lines(gateway) == EGRESS_KEYS
    waiting = {x.what: x for x in gateway.cost_lines if x.kind == "usage"}
    # the line quotes the gateway's own region's first-tier price, never $0
    china = price("network.egress.internet.china.tier1", "europe-west1")
    assert waiting["internet egress to China"].unit_usd == china > 0
    assert any(
        "billed at Google's VM-VM data transfer prices (between zones when both gateways are in "
        "one region, else between regions): not estimated" in line
        for line in gateway.lines
    )


def test_declared_vpn_egress_goes_through_each_destinations_tiers():
    # Infracost's external gateway case: 12,500 GiB worldwide, 8,500 to China, 250 to Australia
    peer = {"type": GATEWAYS[2], "name": "peer", "inputs": {}}
    declared = parse_usage_file({"resource_usage": {"peer": {
        "monthly_egress_gb": 12_500, "monthly_egress_china_gb": 8_500,
        "monthly_egress_australia_gb": 250}}})  # fmt: skip
    cost = estimate_resources([peer], USAGE, usage_file=declared).get("peer")
    p = price
    assert cost.monthly_usd == pytest.approx(
        1024 * p("network.egress.internet.tier1") + 9216 * p("network.egress.internet.tier2")
        + 2260 * p("network.egress.internet.tier3")
        + 1024 * p("network.egress.internet.china.tier1")
        + 7476 * p("network.egress.internet.china.tier2")
        + 250 * p("network.egress.internet.australia.tier1")
    )  # fmt: skip
    # the China tiers are their own ladder, dearer than the worldwide one
    assert p("network.egress.internet.china.tier2") > p("network.egress.internet.tier2")
    assert usage_lines(cost) == {}


def test_a_gateway_takes_no_key_of_another_type():
    from governance.costs.usage_file import UsageFileError

    with pytest.raises(UsageFileError, match="monthly_hours"):
        parse_usage_file({"resource_type_default_usage": {GATEWAYS[0]: {"monthly_hours": 1}}})


def test_metric_volume_goes_through_the_tiers():
    assert usage_lines(one(METRIC)) == {
        "metric data": "monthly_monitoring_data_mb",
        "API calls": "monthly_api_calls",
    }
    declared = parse_usage_file({"resource_usage": {"m": {
        "monthly_monitoring_data_mb": 500_000, "monthly_api_calls": 1_000_000}}})  # fmt: skip
    cost = estimate_resources([METRIC], USAGE, usage_file=declared).get("m")
    assert cost.monthly_usd == pytest.approx(
        100_000 * price("monitoring.data.tier1")
        + 150_000 * price("monitoring.data.tier2")
        + 250_000 * price("monitoring.data.tier3")
        + 1000 * price("monitoring.api_read", "global")
    )
