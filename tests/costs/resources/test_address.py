"""Address model: internal ranges are free; external static IPs are not priced (an error)."""

from __future__ import annotations

import pytest

from tests.costs.cost_plans import one, unpriced


def address(address_type: str | None) -> dict[str, object]:
    inputs = {"purpose": "VPC_PEERING", "prefixLength": 16}
    if address_type is not None:
        inputs["addressType"] = address_type
    return {"type": "gcp:compute/globalAddress:GlobalAddress", "name": "psa", "inputs": inputs}


def test_internal_range_costs_nothing():
    cost = one(address("INTERNAL"))
    assert (cost.monthly_usd, cost.baseline_monthly_usd) == (0, 0)
    assert cost.lines == ("internal (VPC peering) range: no charge",)


@pytest.mark.parametrize("address_type", ["EXTERNAL", None])
def test_external_address_is_unpriced_with_the_reason(address_type):
    reason = unpriced(address(address_type))
    assert reason == "global address 'psa': external static IPs are not priced"
