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


SUBSCRIPTION = {"type": "gcp:pubsub/subscription:Subscription", "name": "sub",
                "inputs": {"topic": "t", "retainAckedMessages": True}}  # fmt: skip


def test_subscription_without_declared_usage_shows_each_part_per_unit():
    from tests.costs.cost_plans import usage_lines

    cost = one(SUBSCRIPTION)
    assert cost.monthly_usd == 0
    assert usage_lines(cost) == {
        "delivery": "monthly_message_gib",
        "retained acknowledged messages": "retained_acked_gib",
    }


def test_subscription_declared_usage_is_priced():
    # Infracost's usage case: 10 TiB delivered x pubsub.throughput ($40/TiB) + (20 + 30) GiB
    # retained and snapshot storage x pubsub.storage ($0.27/GiB-month)
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    declared = parse_usage_file({"resource_type_default_usage": {
        "gcp:pubsub/subscription:Subscription": {
            "monthly_message_gib": 10 * 1024, "retained_acked_gib": 20, "snapshot_gib": 30}}})  # fmt: skip
    cost = estimate_resources([SUBSCRIPTION], usage_file=declared).get("sub")
    assert cost.monthly_usd == pytest.approx(
        10 * price("pubsub.throughput", "global") + 50 * price("pubsub.storage", "global")
    )  # $400 + $13.50


def test_a_topic_that_retains_messages_bills_their_storage():
    topic = {"type": "gcp:pubsub/topic:Topic", "name": "events",
             "inputs": {"name": "events", "messageRetentionDuration": "604800s"}}  # fmt: skip
    from governance.costs.month import DAYS_PER_MONTH

    usage = UsageAssumptions(as_of=AS_OF, pubsub_gb_per_month=DAYS_PER_MONTH)
    cost = one(topic, usage)
    # a GiB a day (30.4 a month) kept 7 days: 7 GiB held, at pubsub.storage per GiB-month
    line = next(x for x in cost.cost_lines if x.what == "retained messages")
    assert line.quantity == pytest.approx(7.0)
    assert cost.monthly_usd == pytest.approx(
        DAYS_PER_MONTH / 1024 * price("pubsub.throughput", "global")
        + 7 * price("pubsub.storage", "global")
    )
    bad = {**topic, "inputs": {"name": "events", "messageRetentionDuration": "7 days"}}
    assert "not a duration like '86400s'" in one(bad, usage).unpriced
