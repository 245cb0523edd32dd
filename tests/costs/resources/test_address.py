"""Address model: internal ranges free; external IPs reserved or in use by a VM, per hour."""

from __future__ import annotations

import pytest

from tests.costs.cost_plans import one, price


def address(
    address_type: str | None = None, type_: str = "GlobalAddress", **inputs: object
) -> dict[str, object]:
    if address_type is not None:
        inputs["addressType"] = address_type
    token = f"gcp:compute/{type_[0].lower()}{type_[1:]}:{type_}"
    return {"type": token, "name": "ip", "inputs": {"name": "web-ip", **inputs}}


def vm(nat_ip: str, spot: bool = False) -> dict[str, object]:
    scheduling = {"provisioningModel": "SPOT"} if spot else {}
    return {
        "type": "gcp:compute/instance:Instance",
        "name": "web",
        "inputs": {
            "zone": "europe-west4-a",
            "machineType": "e2-small",
            "scheduling": scheduling,
            "networkInterfaces": [{"network": "default", "accessConfigs": [{"natIp": nat_ip}]}],
        },
    }


def test_internal_range_costs_nothing():
    cost = one(address("INTERNAL", purpose="VPC_PEERING", prefixLength=16))
    assert (cost.monthly_usd, cost.baseline_monthly_usd) == (0, 0)
    assert cost.lines == ("internal (VPC peering) range: no charge",)


def test_a_peering_range_without_a_type_costs_nothing():
    assert one(address(purpose="VPC_PEERING")).monthly_usd == 0


@pytest.mark.parametrize("address_type", ["EXTERNAL", None])
def test_reserved_regional_address_used_by_nothing_pays_the_unused_rate(address_type):
    # network.ip.unused[europe-west4] x 730 h: a static IP reserved and not attached
    cost = one(address(address_type, "Address", region="europe-west4"))
    assert cost.monthly_usd == pytest.approx(730 * price("network.ip.unused", "europe-west4"))
    assert cost.baseline_monthly_usd == cost.monthly_usd
    assert "730 h reserved, not used by a VM in the plan" in cost.lines[0]


def test_global_address_is_priced_in_the_default_region():
    cost = one(address())  # usage.default_region us-central1: network.ip.unused x 730 h
    assert cost.monthly_usd == pytest.approx(730 * price("network.ip.unused"))


@pytest.mark.parametrize("nat_ip", ["34.90.1.2", "web-ip", "projects/p/regions/r/addresses/web-ip"])
def test_address_used_by_a_standard_vm_pays_the_in_use_rate(nat_ip):
    # network.ip.vm[europe-west4] x 730 h, matched by the address, its name or a self link
    ip = address("EXTERNAL", "Address", region="europe-west4", address="34.90.1.2")
    cost = one(ip, others=[vm(nat_ip)])
    assert cost.monthly_usd == pytest.approx(730 * price("network.ip.vm", "europe-west4"))
    assert "730 h in use by VM web" in cost.lines[0]


def test_address_used_by_a_spot_vm_pays_the_spot_rate_and_the_vm_does_not_pay_twice():
    # network.ip.spot_vm x 730 h (catalog us-central1 figure, the nearest priced location)
    ip = address("EXTERNAL", "Address", region="europe-west4", address="34.90.1.2")
    cost = one(ip, others=[vm("34.90.1.2", spot=True)])
    assert cost.monthly_usd == pytest.approx(730 * price("network.ip.spot_vm", "us-central1"))
    vm_cost = one(vm("34.90.1.2", spot=True), others=[ip])
    assert not any("external IP" in line for line in vm_cost.lines)
