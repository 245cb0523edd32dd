"""Secret Manager: versions x replica locations, access operations, rotation notifications."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price, usage_lines

SECRET = {"type": "gcp:secretmanager/secret:Secret", "name": "db-password",
          "inputs": {"secretId": "db-password", "replication": {"userManaged": {"replicas": [
              {"location": "us-central1"}, {"location": "us-east1"}]}}}}  # fmt: skip
AUTO = {"type": "gcp:secretmanager/secret:Secret", "name": "token",
        "inputs": {"secretId": "api-token", "replication": {"auto": {}}}}  # fmt: skip


def version(name: str, secret: str) -> dict[str, object]:
    return {"type": "gcp:secretmanager/secretVersion:SecretVersion", "name": name,
            "inputs": {"secret": secret, "secretData": "[secret]"}}  # fmt: skip


VERSION = price("secretmanager.version", "global")


def test_a_version_bills_once_per_replica_location_of_its_secret():
    plan = [SECRET, AUTO]
    assert one(version("v1", "projects/p/secrets/db-password"), others=plan).monthly_usd == (
        pytest.approx(2 * VERSION)
    )
    assert one(version("v2", "projects/p/secrets/api-token"), others=plan).monthly_usd == (
        pytest.approx(VERSION)
    )
    orphan = one(version("v3", "projects/p/secrets/elsewhere"))
    assert orphan.monthly_usd == pytest.approx(VERSION)
    assert "its secret is not in the plan" in orphan.lines[0]


def test_a_secret_costs_its_declared_usage():
    cost = one(SECRET)
    assert cost.monthly_usd == 0
    assert usage_lines(cost) == {"access operations": "monthly_access_operations"}
    declared = parse_usage_file({"resource_usage": {"db-password": {
        "active_secret_versions": 1000, "monthly_access_operations": 20_000,
        "monthly_rotation_notifications": 10}}})  # fmt: skip
    cost = estimate_resources([SECRET], USAGE, usage_file=declared).get("db-password")
    assert cost.monthly_usd == pytest.approx(
        1000 * 2 * VERSION
        + 2 * price("secretmanager.access", "global")
        + 10 * price("secretmanager.rotation", "global")
    )
