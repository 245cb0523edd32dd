"""Storage model: GiB held x the storage class's price in the bucket's region."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, one, price, unpriced

BUCKET = {"type": "gcp:storage/bucket:Bucket", "name": "src",
          "inputs": {"name": "acme-dev-src", "location": "US-CENTRAL1"}}  # fmt: skip


def test_default_bucket_holds_ten_gib_standard():
    cost = one(BUCKET)
    assert cost.monthly_usd == pytest.approx(10 * price("storage.standard"))  # $0.20
    assert cost.baseline_monthly_usd == cost.monthly_usd


def test_per_bucket_size_by_gcp_name():
    usage = UsageAssumptions(as_of=AS_OF, storage_gb={"acme-dev-src": 100})
    assert one(BUCKET, usage).monthly_usd == pytest.approx(100 * price("storage.standard"))


def test_storage_class_is_priced_from_the_catalog_and_unknown_ones_are_unpriced():
    nearline = {**BUCKET, "inputs": {**BUCKET["inputs"], "storageClass": "NEARLINE"}}
    assert one(nearline).monthly_usd == pytest.approx(10 * price("storage.nearline"))
    assert price("storage.nearline") < price("storage.standard")
    bogus = {**BUCKET, "inputs": {**BUCKET["inputs"], "storageClass": "GLACIAL"}}
    assert "no ondemand price 'storage.glacial' in any location" in unpriced(bogus)


def _rule(action: str, age: float, cls: str | None = None, **cond: object) -> dict:
    act = {"type": action, **({"storageClass": cls} if cls else {})}
    return {"action": act, "condition": {"age": age, **cond}}


PROD_ARTIFACTS = {
    "type": "gcp:storage/bucket:Bucket",
    "name": "artifacts-bucket",
    "inputs": {
        "name": "acme-ml-prod-mlgov-artifacts",
        "location": "EUROPE-WEST4",
        "storageClass": "STANDARD",
        "lifecycleRules": [
            _rule("SetStorageClass", 30, "NEARLINE", matchesStorageClasses=["STANDARD"]),
            _rule("SetStorageClass", 90, "COLDLINE", matchesStorageClasses=["STANDARD"]),
            _rule("Delete", 365, withState="ANY"),
            {"action": {"type": "Delete"}, "condition": {"numNewerVersions": 4.0}},
            _rule("AbortIncompleteMultipartUpload", 1),
        ],
    },
}


def test_lifecycle_spreads_bytes_over_classes_until_deletion():
    # 2,000 GiB in steady state, deleted at day 365: 30/365 STANDARD, 60/365 NEARLINE,
    # 275/365 COLDLINE in europe-west4 ($0.02, $0.01, $0.004 per GiB-month).
    usage = UsageAssumptions(as_of=AS_OF, storage_gb={"artifacts-bucket": 2000})
    cost = one(PROD_ARTIFACTS, usage)
    expected = 2000 * (30 * 0.02 + 60 * 0.01 + 275 * 0.004) / 365
    assert expected == pytest.approx(12.60, abs=0.01)
    assert cost.monthly_usd == pytest.approx(expected)
    assert cost.baseline_monthly_usd == pytest.approx(2000 * 0.02)  # $40, all STANDARD
    assert "lifecycle: deleted at day 365, NEARLINE from day 30 -> COLDLINE from day 90" in (
        cost.lines
    )


def test_noncurrent_and_abort_rules_do_not_move_live_bytes():
    keep_live = {
        **BUCKET,
        "inputs": {
            **BUCKET["inputs"],
            "lifecycleRules": [
                {"action": {"type": "Delete"}, "condition": {"numNewerVersions": 2.0}},
                {"action": {"type": "Delete"}, "condition": {"age": 7.0, "withState": "ARCHIVED"}},
                _rule("AbortIncompleteMultipartUpload", 1),
            ],
        },
    }
    cost = one(keep_live)
    assert cost.monthly_usd == pytest.approx(10 * price("storage.standard"))  # $0.20


def test_transition_after_deletion_is_ignored():
    late = {**BUCKET, "inputs": {**BUCKET["inputs"], "lifecycleRules": [
        _rule("Delete", 30), _rule("SetStorageClass", 60, "COLDLINE")]}}  # fmt: skip
    assert one(late).monthly_usd == pytest.approx(10 * 0.02)


def test_operations_and_egress_depend_on_usage_without_a_usage_file():
    from tests.costs.cost_plans import usage_lines

    assert usage_lines(one(BUCKET)) == {
        "class a operations": "monthly_class_a_operations",
        "class b operations": "monthly_class_b_operations",
        "internet egress": "monthly_egress_gb",
        "internet egress to China": "monthly_egress_china_gb",
        "internet egress to Australia": "monthly_egress_australia_gb",
    }
    coldline = {**BUCKET, "inputs": {**BUCKET["inputs"], "storageClass": "COLDLINE"}}
    assert usage_lines(one(coldline))["retrieval"] == "monthly_data_retrieval_gb"


def test_declared_operations_egress_and_size_are_priced():
    # 150 GiB x storage.standard + 40,000/1,000 x storage.ops.class_a.standard
    # + 20,000/1,000 x storage.ops.class_b.standard + egress: 1,024 GiB at tier 1 + 476 at tier 2
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    declared = parse_usage_file({"resource_usage": {"acme-dev-src": {
        "storage_gb": 150, "monthly_class_a_operations": 40_000,
        "monthly_class_b_operations": 20_000, "monthly_egress_gb": 1500}}})  # fmt: skip
    cost = estimate_resources([BUCKET], usage_file=declared).get("src")
    expected = (
        150 * price("storage.standard")
        + 40 * price("storage.ops.class_a.standard", "global")
        + 20 * price("storage.ops.class_b.standard", "global")
        + 1024 * price("network.egress.internet.tier1")
        + 476 * price("network.egress.internet.tier2")
    )
    assert cost.monthly_usd == pytest.approx(expected)
    assert cost.declared["monthly_egress_gb"] == 1500


def test_egress_to_china_and_australia_has_its_own_rates_and_tiers():
    # 50 GiB to China at its first tier; 2,000 GiB to Australia: 1,024 at tier 1 + 976 at tier 2
    # (each destination its own ladder: the worldwide GiB do not push it up a tier)
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    declared = parse_usage_file({"resource_usage": {"src": {
        "storage_gb": 0, "monthly_egress_gb": 5000, "monthly_egress_china_gb": 50,
        "monthly_egress_australia_gb": 2000}}})  # fmt: skip
    cost = estimate_resources([BUCKET], usage_file=declared).get("src")
    egress = {(x.what, x.key): x.usd for x in cost.cost_lines if x.bill == "governed" and x.usd}
    assert egress[("internet egress to China", "network.egress.internet.china.tier1")] == (
        pytest.approx(50 * price("network.egress.internet.china.tier1"))
    )
    assert egress[("internet egress to Australia", "network.egress.internet.australia.tier2")] == (
        pytest.approx(976 * price("network.egress.internet.australia.tier2"))
    )
    assert price("network.egress.internet.china.tier1") > price("network.egress.internet.tier1")
    assert "internet egress to China" not in {x.what for x in cost.cost_lines if x.kind == "usage"}


def test_declared_operations_on_a_class_without_a_catalog_price_are_named():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    nearline = {**BUCKET, "inputs": {**BUCKET["inputs"], "storageClass": "NEARLINE"}}
    declared = parse_usage_file({"resource_usage": {"src": {"monthly_class_a_operations": 10}}})
    cost = estimate_resources([nearline], usage_file=declared).get("src")
    assert dict(cost.unpriced_parts) == {
        "class a operations": "the price catalog has no NEARLINE class a operations price"
    }


def test_container_registry_is_a_standard_bucket_in_its_multi_region():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    gcr = {"type": "gcp:container/registry:Registry", "name": "gcr", "inputs": {"location": "EU"}}
    declared = parse_usage_file({"resource_usage": {"gcr": {
        "storage_gb": 150, "monthly_class_a_operations": 40_000, "monthly_egress_gb": 100}}})  # fmt: skip
    cost = estimate_resources([gcr], usage_file=declared).get("gcr")
    assert cost.monthly_usd == pytest.approx(
        150 * price("storage.standard", "eu")
        + 40 * price("storage.ops.class_a.standard", "global")
        + 100 * price("network.egress.internet.tier1", "eu")
    )
    assert "Container Registry is deprecated" in cost.lines[0]
    us = estimate_resources([{**gcr, "inputs": {}}]).get("gcr")
    assert "storage.standard[us/" in us.lines[1]
