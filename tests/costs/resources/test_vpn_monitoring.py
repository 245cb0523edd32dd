"""VPN tunnels by the hour (gateways free); Monitoring metric volume tiers and API calls."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price, usage_lines

TUNNEL = {"type": "gcp:compute/vPNTunnel:VPNTunnel", "name": "t",
          "inputs": {"region": "europe-west1", "peerIp": "15.0.0.120"}}  # fmt: skip
METRIC = {"type": "gcp:monitoring/metricDescriptor:MetricDescriptor", "name": "m",
          "inputs": {"type": "custom.googleapis.com/x", "metricKind": "GAUGE"}}  # fmt: skip


def test_a_tunnel_bills_its_regions_hourly_price_and_gateways_are_free():
    cost = one(TUNNEL)
    assert cost.monthly_usd == pytest.approx(730 * price("network.vpn.tunnel", "europe-west1"))
    for token in ("gcp:compute/haVpnGateway:HaVpnGateway", "gcp:compute/vPNGateway:VPNGateway",
                  "gcp:compute/externalVpnGateway:ExternalVpnGateway"):  # fmt: skip
        gateway = one({"type": token, "name": "g", "inputs": {}})
        assert gateway.priced and gateway.monthly_usd == 0


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
