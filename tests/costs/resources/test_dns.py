"""Cloud DNS: a zone a month; queries per million, declared per record set."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price, usage_lines

ZONE = {"type": "gcp:dns/managedZone:ManagedZone", "name": "z", "inputs": {"dnsName": "a.com."}}
RECORD = {"type": "gcp:dns/recordSet:RecordSet", "name": "www",
          "inputs": {"managedZone": "z", "type": "A", "rrdatas": ["10.0.0.1"]}}  # fmt: skip


def test_a_zone_bills_one_zone_month():
    assert one(ZONE).monthly_usd == pytest.approx(price("dns.zone", "global"))


def test_record_queries_are_declared_per_million():
    assert usage_lines(one(RECORD)) == {"queries": "monthly_queries"}
    declared = parse_usage_file({"resource_usage": {"www": {"monthly_queries": 2_500_000}}})
    cost = estimate_resources([RECORD], USAGE, usage_file=declared).get("www")
    assert cost.monthly_usd == pytest.approx(2.5 * price("dns.query", "global"))
