"""Artifact Registry model: stored GB above the 0.5 GB free tier x $0.10 per GB-month."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, one, price

REPO = {"type": "gcp:artifactregistry/repository:Repository", "name": "artifacts-images",
        "inputs": {"repositoryId": "acme-dev-images", "location": "us-central1",
                   "format": "DOCKER"}}  # fmt: skip


def test_default_repository_holds_twenty_gb():
    cost = one(REPO)
    assert price("artifactregistry.storage", "global") == 0.10
    assert cost.monthly_usd == pytest.approx((20 - 0.5) * 0.10)  # $1.95
    assert cost.baseline_monthly_usd == cost.monthly_usd


def test_size_by_repository_id_and_free_tier():
    usage = UsageAssumptions(as_of=AS_OF, artifact_registry_gb={"acme-dev-images": 300})
    assert one(REPO, usage).monthly_usd == pytest.approx(29.95)
    tiny = UsageAssumptions(as_of=AS_OF, artifact_registry_gb={"artifacts-images": 0.4})
    assert one(REPO, tiny).monthly_usd == 0.0


def test_free_tier_goes_to_the_plans_first_repository_only():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    second = {**REPO, "name": "models"}
    declared = parse_usage_file({"resource_usage": {"models": {"storage_gb": 150}}})
    report = estimate_resources([REPO, second], usage_file=declared)
    assert report.get("artifacts-images").monthly_usd == pytest.approx((20 - 0.5) * 0.10)
    models = report.get("models")
    assert models.monthly_usd == pytest.approx(150 * 0.10)  # no second free tier
    assert "the free tier goes to the first repository" in models.lines[0]


def test_internet_egress_is_premium_tier_and_transfer_within_google_cloud_is_named():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file
    from tests.costs.cost_plans import usage_lines

    # undeclared: one "depends on usage" line per Premium Tier destination, never $0 unsaid
    assert usage_lines(one(REPO)) == {
        "internet egress": "monthly_egress_gb",
        "internet egress to China": "monthly_egress_china_gb",
        "internet egress to Australia": "monthly_egress_australia_gb",
    }
    assert any(line.startswith("transfer to other Google Cloud locations is not estimated")
               for line in one(REPO).lines)  # fmt: skip
    declared = parse_usage_file({"resource_usage": {"artifacts-images": {
        "storage_gb": 10.5, "monthly_egress_gb": 100, "monthly_egress_china_gb": 10}}})  # fmt: skip
    cost = estimate_resources([REPO], usage_file=declared).get("artifacts-images")
    assert cost.monthly_usd == pytest.approx(
        10 * 0.10
        + 100 * price("network.egress.internet.tier1")
        + 10 * price("network.egress.internet.china.tier1")
    )
