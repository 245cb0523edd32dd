"""Private services access: a free connection whose transfer the estimate names."""

from __future__ import annotations

from tests.costs.cost_plans import one

CONNECTION = {
    "type": "gcp:servicenetworking/connection:Connection",
    "name": "psa",
    "inputs": {"network": "projects/p/global/networks/ml", "service": "servicenetworking.googleapis.com",
               "reservedPeeringRanges": ["psa-range"]},
}  # fmt: skip


def test_the_connection_is_free_and_the_transfer_across_it_is_named():
    cost = one(CONNECTION)
    assert cost.priced and cost.monthly_usd == 0 and cost.baseline_monthly_usd == 0
    assert "private services access: the connection itself has no charge" in cost.lines
    transfer = next(line for line in cost.lines if line.startswith("traffic across it"))
    assert "not estimated" in transfer and "vpc/network-pricing" in transfer
    # --explain shows it under the governed and the baseline bill
    assert {x.bill for x in cost.cost_lines if x.text.endswith(transfer)} == {
        "governed",
        "baseline",
    }
