"""Pub/Sub model: throughput per topic (GiB published, priced per TiB)."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, one, price

TOPIC = {"type": "gcp:pubsub/topic:Topic", "name": "budget-topic", "inputs": {"name": "t"}}


def test_default_throughput_is_a_fraction_of_a_cent():
    cost = one(TOPIC)
    assert cost.monthly_usd == pytest.approx(0.01 / 1024 * price("pubsub.throughput", "global"))
    assert cost.baseline_monthly_usd == cost.monthly_usd


def test_one_tib_published_costs_the_tib_price():
    cost = one(TOPIC, UsageAssumptions(as_of=AS_OF, pubsub_gb_per_month=1024))
    assert cost.monthly_usd == pytest.approx(price("pubsub.throughput", "global"))  # $40
