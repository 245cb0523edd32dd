"""Cluster model: the management fee, with the free-tier credit for the first zonal cluster."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from tests.costs.cost_plans import USAGE, one, price


def cluster(name: str, location: str, **inputs: object) -> dict[str, object]:
    return {"type": "gcp:container/cluster:Cluster", "name": name,
            "inputs": {"location": location, **inputs}}  # fmt: skip


def test_regional_cluster_pays_the_fee():
    cost = one(cluster("r", "us-central1"))
    assert cost.monthly_usd == pytest.approx(730 * price("gke.cluster", "global"))  # $73
    assert cost.baseline_monthly_usd == cost.monthly_usd


def test_first_zonal_cluster_gets_the_free_tier_credit():
    report = estimate_resources(
        [
            cluster("r", "us-central1"),
            cluster("z", "us-central1-a"),
            cluster("z2", "us-central1-b"),
        ],
        USAGE,
    )
    fee = 730 * price("gke.cluster", "global")
    credit = price("gke.free_tier_credit", "global")
    assert report.get("z").monthly_usd == max(fee - credit, 0.0) == 0  # $73 fee, $74.40 credit
    assert report.get("z2").monthly_usd == pytest.approx(fee)
    assert report.get("r").monthly_usd == pytest.approx(fee)
    assert any(line.startswith("minus GKE free tier $74.4/month") for line in report.get("z").lines)


def test_node_auto_provisioning_is_named_but_not_priced():
    nap = one(cluster("gke", "us-central1", clusterAutoscaling={"enabled": True}))
    assert nap.monthly_usd == pytest.approx(730 * price("gke.cluster", "global"))
    assert "auto-provisioned node pools are not priced (bounded by resourceLimits)" in nap.lines
