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
DATA = 50 * price("nat.data", "us-central1")


def test_two_vms_and_fifty_gib():
    cost = one(NAT)
    assert cost.monthly_usd == pytest.approx(2 * 730 * price("nat.gateway_vm") + DATA)
    assert cost.baseline_monthly_usd == cost.monthly_usd
    assert cost.lines[0].startswith("gateway: nat.gateway_vm[us-central1/ondemand]")


def test_a_region_the_export_does_not_list_uses_the_global_price():
    nat = {**NAT, "inputs": {"region": "mars-west1"}}
    cost = one(nat)
    assert cost.lines[0].startswith("gateway: nat.gateway_vm[global/ondemand]")
    assert not cost.fallbacks


def test_more_than_32_vms_pay_the_flat_maximum():
    cost = one(NAT, UsageAssumptions(as_of=AS_OF, nat_vm_count=40))
    assert cost.monthly_usd == pytest.approx(730 * price("nat.gateway_max", "global") + DATA)
