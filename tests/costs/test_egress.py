"""Premium Tier internet egress: priced at the source region's rates, with the assumption said.

The export mlgov builds from keeps per source region the SKUs "Network Internet Data Transfer
Out from <source> to Americas" (mlgov's worldwide), "... to China" and "... to Australia". Other
destinations (EMEA, APAC, ...) are priced at the rate to the Americas, and every line says so.
"""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price


def vm(zone: str) -> dict[str, object]:
    return {"type": "gcp:compute/instance:Instance", "name": "web",
            "inputs": {"zone": zone, "machineType": "e2-small"}}  # fmt: skip


def egress_lines(zone: str, gib: float) -> list:
    declared = parse_usage_file({"resource_usage": {"web": {"monthly_egress_gb": gib}}})
    cost = estimate_resources([vm(zone)], USAGE, usage_file=declared).get("web")
    return [x for x in cost.cost_lines
            if x.bill == "governed" and x.what == "internet egress"]  # fmt: skip


def test_the_catalog_prices_egress_by_source_region():
    """The source data's per-region prices differ by where the traffic leaves from."""
    assert price("network.egress.internet.tier1", "us-central1") == pytest.approx(0.12)
    assert price("network.egress.internet.tier1", "africa-south1") == pytest.approx(0.15)
    assert price("network.egress.internet.tier1", "southamerica-east1") == pytest.approx(0.19)


def test_a_vms_egress_is_priced_at_its_own_regions_rate():
    here = egress_lines("africa-south1-a", 100)
    assert [(x.key, x.region, x.quantity) for x in here] == [
        ("network.egress.internet.tier1", "africa-south1", 100)
    ]
    assert here[0].usd == pytest.approx(100 * 0.15)
    assert egress_lines("us-central1-a", 100)[0].usd == pytest.approx(100 * 0.12)


def test_every_egress_line_says_which_rate_stands_for_which_destinations():
    charged = egress_lines("us-central1-a", 2000)  # crosses the first TiB: two tier lines
    assert [x.detail.split(";")[0] for x in charged] == ["1024 GiB (tier1", "976 GiB (tier2"]
    for line in charged:
        assert (
            "the rate from the resource's region to the Americas, assumed for every destination "
            "but China and Australia" in line.text
        )
    waiting = {x.what: x.text for x in one(vm("europe-west1-b")).cost_lines if x.kind == "usage"}
    assert "to the Americas, assumed for every destination" in waiting["internet egress"]
    assert "the rate from the resource's region)" in waiting["internet egress to China"]
