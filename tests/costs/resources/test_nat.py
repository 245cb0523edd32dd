"""NAT model: per-VM gateway hours up to 32 VMs, a flat rate above, plus data processed."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, one, price

NAT = {
    "type": "gcp:compute/routerNat:RouterNat",
    "name": "nat",
    "inputs": {"region": "us-central1"},
}
DATA = 50 * price("nat.data", "global")


def test_two_vms_and_fifty_gib():
    cost = one(NAT)
    assert cost.monthly_usd == pytest.approx(2 * 730 * price("nat.gateway_vm", "global") + DATA)
    assert cost.baseline_monthly_usd == cost.monthly_usd


def test_more_than_32_vms_pay_the_flat_maximum():
    cost = one(NAT, UsageAssumptions(as_of=AS_OF, nat_vm_count=40))
    assert cost.monthly_usd == pytest.approx(730 * price("nat.gateway_max", "global") + DATA)
