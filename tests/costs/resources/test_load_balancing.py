"""Load balancing: the first five forwarding rules share one charge; proxies bill usage."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price, usage_lines

FIRST5 = 730 * price("lb.forwarding_rule.first5", "global")
EXTRA = 730 * price("lb.forwarding_rule.additional", "global")


def rule(name: str, region: str = "us-central1") -> dict[str, object]:
    return {"type": "gcp:compute/forwardingRule:ForwardingRule", "name": name,
            "inputs": {"region": region}}  # fmt: skip


def global_rule(name: str) -> dict[str, object]:
    return {"type": "gcp:compute/globalForwardingRule:GlobalForwardingRule", "name": name,
            "inputs": {}}  # fmt: skip


def test_first_five_rules_of_a_region_share_one_charge_then_each_pays():
    rules = [rule(f"r{i}") for i in range(1, 8)]
    report = estimate_resources([*rules, rule("eu", "europe-west1"), global_rule("g")], USAGE)
    costs = {r.name: r.monthly_usd for r in report.resources}
    assert costs["r1"] == pytest.approx(FIRST5)
    assert [costs[f"r{i}"] for i in range(2, 6)] == [0, 0, 0, 0]
    assert costs["r6"] == pytest.approx(EXTRA)
    assert costs["r7"] == pytest.approx(EXTRA)
    # other regions and global rules are their own groups
    assert costs["eu"] == pytest.approx(FIRST5)
    assert costs["g"] == pytest.approx(FIRST5)
    assert any("included in the first 5" in line for line in report.get("r3").lines)


def test_rule_data_processed_is_declared_usage():
    assert usage_lines(one(rule("r"))) == {"data processed": "monthly_ingress_data_gb"}
    declared = parse_usage_file({"resource_usage": {"r": {"monthly_ingress_data_gb": 100}}})
    cost = estimate_resources([rule("r")], USAGE, usage_file=declared).get("r")
    assert cost.monthly_usd == pytest.approx(FIRST5 + 100 * price("lb.data_processed", "global"))


@pytest.mark.parametrize(
    "type_",
    ["gcp:compute/targetHttpsProxy:TargetHttpsProxy",
     "gcp:compute/regionTargetHttpProxy:RegionTargetHttpProxy"],
)  # fmt: skip
def test_target_proxies_bill_declared_proxy_instances_and_data(type_: str):
    proxy = {"type": type_, "name": "p", "inputs": {"urlMap": "m"}}
    assert usage_lines(one(proxy)) == {
        "proxy instances": "monthly_proxy_instances",
        "data processed": "monthly_data_processed_gb",
    }
    declared = parse_usage_file({"resource_usage": {"p": {
        "monthly_proxy_instances": 2, "monthly_data_processed_gb": 50}}})  # fmt: skip
    cost = estimate_resources([proxy], USAGE, usage_file=declared).get("p")
    assert cost.monthly_usd == pytest.approx(
        2 * 730 * price("lb.proxy_instance") + 50 * price("lb.data_processed", "global")
    )
