"""Memorystore for Redis: instances per GB-hour by capacity tier, clusters per node-hour."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.resources.memorystore import capacity_tier
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, partial, price, unpriced, usage_lines


def instance(**inputs: object) -> dict[str, object]:
    return {"type": "gcp:redis/instance:Instance", "name": "cache",
            "inputs": {"region": "us-central1", "memorySizeGb": 1, **inputs}}  # fmt: skip


def cluster(**inputs: object) -> dict[str, object]:
    return {"type": "gcp:redis/cluster:Cluster", "name": "rc",
            "inputs": {"region": "us-central1", "shardCount": 3, "replicaCount": 2,
                       "nodeType": "REDIS_STANDARD_SMALL", **inputs}}  # fmt: skip


@pytest.mark.parametrize(
    ("gb", "tier"),
    [(1, "m1"), (4, "m1"), (5, "m2"), (10, "m2"), (11, "m3"), (35, "m3"), (36, "m4"),
     (100, "m4"), (101, "m5"), (300, "m5")],
)  # fmt: skip
def test_capacity_tiers_follow_googles_boundaries(gb: int, tier: str):
    assert capacity_tier(gb) == tier


@pytest.mark.parametrize(("tier", "key"), [("BASIC", "basic"), ("STANDARD_HA", "standard")])
def test_instance_bills_its_whole_capacity_at_its_tiers_rate(tier: str, key: str):
    cost = one(instance(memorySizeGb=25, tier=tier))
    assert cost.monthly_usd == pytest.approx(25 * 730 * price(f"redis.{key}.m3"))
    assert cost.baseline_monthly_usd == cost.monthly_usd
    assert one(instance()).monthly_usd == pytest.approx(730 * price("redis.basic.m1"))


def test_instance_outside_us_central1_says_where_the_price_comes_from():
    cost = one(instance(region="europe-west1"))
    assert cost.fallbacks and cost.fallbacks[0].used == "us-central1"
    assert "nearest priced location to europe-west1" in cost.lines[0]


def test_read_replicas_are_a_named_unpriced_part():
    cost, parts = partial(instance(tier="STANDARD_HA", readReplicasMode="READ_REPLICAS_ENABLED"))
    assert cost.monthly_usd == pytest.approx(730 * price("redis.standard.m1"))
    assert list(parts) == ["read replicas"]


def test_bad_tier_or_size_is_unpriced_naming_it():
    assert "unknown tier 'PREMIUM'" in unpriced(instance(tier="PREMIUM"))
    assert "memorySizeGb must be a positive size" in unpriced(instance(memorySizeGb=0))


def test_cluster_bills_shards_times_one_plus_replicas_nodes():
    cost = one(cluster())
    assert cost.monthly_usd == pytest.approx(
        9 * 730 * price("redis.cluster.node.redis-standard-small")
    )
    default = one(cluster(nodeType=None))  # the API's default node type
    assert default.monthly_usd == pytest.approx(
        9 * 730 * price("redis.cluster.node.redis-highmem-medium")
    )
    assert "no price for node type 'REDIS_GIANT'" in unpriced(cluster(nodeType="REDIS_GIANT"))


def test_cluster_backups_are_declared_usage_and_aof_is_named_unpriced():
    backed = cluster(automatedBackupConfig={"retention": "604800s"})
    assert usage_lines(one(backed)) == {"backups": "backup_storage_gb"}
    declared = parse_usage_file({"resource_usage": {"rc": {"backup_storage_gb": 1000}}})
    cost = estimate_resources([backed], USAGE, usage_file=declared).get("rc")
    nodes = 9 * 730 * price("redis.cluster.node.redis-standard-small")
    assert cost.monthly_usd == pytest.approx(nodes + 1000 * price("redis.cluster.backup"))
    _, parts = partial(cluster(persistenceConfig={"mode": "AOF"}))
    assert list(parts) == ["AOF persistence"]
