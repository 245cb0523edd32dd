"""Node pool model: average running nodes (scale from 0), spot prices, SUD, disks per node."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, node_pool, one, price

SUD = [price(f"sud.n1.q{q}", "global") for q in (1, 2, 3, 4)]


def n1_8_t4(usage: str) -> float:
    """n1-standard-8 (8 vCPU, 30 GiB) + 1 T4, per hour."""
    return (
        8 * price("gce.n1.vcpu", usage=usage)
        + 30 * price("gce.n1.ram", usage=usage)
        + price("gpu.nvidia-tesla-t4", usage=usage)
    )


def test_spot_pool_scaling_from_zero_runs_the_assumed_average():
    cost = one(node_pool())  # 0..4 nodes, spot; training_pool_average_nodes 0.5
    disk = 0.5 * 100 * price("disk.pd-balanced")  # disks exist while nodes do
    assert cost.monthly_usd == pytest.approx(0.5 * 730 * n1_8_t4("spot") + disk)
    # baseline: 1 node on-demand all month, with N1's sustained-use discount
    assert cost.baseline_monthly_usd == pytest.approx(
        182.5 * sum(SUD) * n1_8_t4("ondemand") + 100 * price("disk.pd-balanced")
    )
    assert "autoscaling 0..4 nodes: average 0.5 nodes running" in cost.lines


def test_on_demand_pool_pays_on_demand_prices_less_sud():
    cost = one(node_pool(spot=False))
    effective = 182.5 * SUD[0] + 182.5 * SUD[1]  # 365 node-hours on one node
    disk = 0.5 * 100 * price("disk.pd-balanced")
    assert cost.monthly_usd == pytest.approx(effective * n1_8_t4("ondemand") + disk)


def test_pool_with_a_minimum_runs_it():
    cost = one(node_pool("system", spot=False, low=1, high=3, machineType="e2-standard-4",
                         guestAccelerators=[]))  # fmt: skip
    hourly = 4 * price("gce.e2.vcpu") + 16 * price("gce.e2.ram")  # no SUD on E2
    assert cost.monthly_usd == pytest.approx(730 * hourly + 100 * price("disk.pd-balanced"))
    assert cost.baseline_monthly_usd == pytest.approx(cost.monthly_usd)


def test_assumed_nodes_are_clamped_to_the_pool_range():
    busy = UsageAssumptions(as_of=AS_OF, training_pool_nodes={"t4-spot": 9})
    at_max = UsageAssumptions(as_of=AS_OF, training_pool_nodes={"t4-spot": 4})
    assert one(node_pool(), busy).monthly_usd == pytest.approx(one(node_pool(), at_max).monthly_usd)
    idle = one(node_pool(), UsageAssumptions(as_of=AS_OF, training_pool_nodes={"t4-spot": 0}))
    assert idle.monthly_usd == 0
    assert "no nodes running: $0" in idle.lines


def test_fixed_size_pool_runs_its_nodes_in_every_zone():
    pool = node_pool(guestAccelerators=[])
    del pool["inputs"]["autoscaling"]
    pool["inputs"]["nodeCount"] = 1  # x 2 nodeLocations = 2 nodes
    cost = one(pool)
    hourly = 8 * price("gce.n1.vcpu", usage="spot") + 30 * price("gce.n1.ram", usage="spot")
    assert cost.monthly_usd == pytest.approx(2 * 730 * hourly + 2 * 100 * price("disk.pd-balanced"))
    assert "fixed size: 2 nodes" in cost.lines


def test_tpu_pool_is_priced_per_chip_without_disks():
    cost = one(node_pool("tpu", machineType="ct5lp-hightpu-4t", guestAccelerators=[]))
    assert cost.monthly_usd == pytest.approx(
        0.5 * 730 * 4 * price("tpu.v5litepod.chip", usage="spot")
    )
    assert cost.baseline_monthly_usd == pytest.approx(730 * 4 * price("tpu.v5litepod.chip"))
