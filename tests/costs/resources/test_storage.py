"""Storage model: GiB held x the storage class's price in the bucket's region."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, one, price

BUCKET = {"type": "gcp:storage/bucket:Bucket", "name": "src",
          "inputs": {"name": "acme-dev-src", "location": "US-CENTRAL1"}}  # fmt: skip


def test_default_bucket_holds_ten_gib_standard():
    cost = one(BUCKET)
    assert cost.monthly_usd == pytest.approx(10 * price("storage.standard"))  # $0.20
    assert cost.baseline_monthly_usd == cost.monthly_usd


def test_per_bucket_size_by_gcp_name():
    usage = UsageAssumptions(as_of=AS_OF, storage_gb={"acme-dev-src": 100})
    assert one(BUCKET, usage).monthly_usd == pytest.approx(100 * price("storage.standard"))


def test_storage_class_is_priced_from_the_catalog_and_unknown_ones_are_refused():
    nearline = {**BUCKET, "inputs": {**BUCKET["inputs"], "storageClass": "NEARLINE"}}
    assert one(nearline).monthly_usd == pytest.approx(10 * price("storage.nearline"))
    assert price("storage.nearline") < price("storage.standard")
    bogus = {**BUCKET, "inputs": {**BUCKET["inputs"], "storageClass": "GLACIAL"}}
    cost = one(bogus)
    assert cost.refused and cost.unpriced.startswith("storageClass is 'GLACIAL': Cloud Storage "
                                                     "takes STANDARD, NEARLINE")  # fmt: skip


@pytest.mark.parametrize(
    ("api", "key", "location"),
    [
        ("DURABLE_REDUCED_AVAILABILITY", "storage.dra", "US-CENTRAL1"),
        ("DURABLE_REDUCED_AVAILABILITY", "storage.dra", "EU"),
        ("REGIONAL", "storage.standard", "EUROPE-WEST4"),
        ("MULTI_REGIONAL", "storage.standard", "US"),
        ("regional", "storage.standard", "ASIA-EAST1"),
    ],
)
def test_legacy_storage_classes_are_priced_by_their_api_names(api, key, location):
    bucket = {**BUCKET, "inputs": {**BUCKET["inputs"], "storageClass": api, "location": location}}
    cost = one(bucket)
    region = location.lower()
    assert cost.priced and not cost.fallbacks
    assert cost.monthly_usd == pytest.approx(10 * price(key, region))
    storage = next(x for x in cost.cost_lines if x.what == "storage")
    assert (storage.key, storage.region) == (key, region)
    assert any("legacy class" in line for line in cost.lines)
    # DRA has no retrieval fee; it bills operations at Nearline's prices
    assert "retrieval" not in {x.what for x in cost.cost_lines}
    ops = next(x for x in cost.cost_lines if x.what == "class a operations")
    assert ops.key == ("storage.ops.class_a.dra" if key == "storage.dra" else
                       "storage.ops.class_a.standard")  # fmt: skip


def test_a_lifecycle_rule_may_move_objects_to_a_legacy_class():
    to_dra = {**BUCKET, "inputs": {**BUCKET["inputs"], "lifecycleRules": [
        _rule("SetStorageClass", 10, "DURABLE_REDUCED_AVAILABILITY"), _rule("Delete", 20)]}}  # fmt: skip
    cost = one(to_dra)
    assert cost.monthly_usd == pytest.approx(
        5 * price("storage.standard") + 5 * price("storage.dra")
    )


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
        "internet egress to Asia": "monthly_egress_asia_gb",
        "internet egress to China": "monthly_egress_china_gb",
        "internet egress to Australia": "monthly_egress_australia_gb",
        # one line for transfer to other Google Cloud locations, at the cheapest cell: another
        # location on the bucket's own continent ($0.02 from Northern America)
        "transfer within Google Cloud": "monthly_transfer_northern_america_gb",
    }
    line = next(x for x in one(BUCKET).cost_lines if x.what == "transfer within Google Cloud")
    assert (line.key, line.unit_usd) == ("storage.transfer.northern_america.northern_america", 0.02)
    coldline = {**BUCKET, "inputs": {**BUCKET["inputs"], "storageClass": "COLDLINE"}}
    assert usage_lines(one(coldline))["retrieval"] == "monthly_data_retrieval_gb"


def test_declared_operations_egress_and_size_are_priced():
    # 150 GiB x storage.standard + 40,000/1,000 x storage.ops.class_a.standard
    # + 20,000/1,000 x storage.ops.class_b.standard + egress: 1,500 GiB inside Cloud Storage's
    # first tier (10 TiB) = 150 x $0.02 + 40 x $0.005 + 20 x $0.0004 + 1,500 x $0.12 = $183.208
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
        + 1500 * price("storage.egress.internet.tier1", "global")
    )
    assert cost.monthly_usd == pytest.approx(expected)
    assert cost.monthly_usd == pytest.approx(183.208)
    assert cost.declared["monthly_egress_gb"] == 1500


def test_egress_to_china_and_australia_has_its_own_rates_and_tiers():
    # Cloud Storage's ladders: China's tiers are 1 TiB wide (2,000 GiB: 1,024 at $0.23 + 976 at
    # $0.22), Australia's 10 TiB (12,000 GiB: 10,240 at $0.19 + 1,760 at $0.18); each its own
    # ladder: the worldwide GiB do not push it up a tier
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    declared = parse_usage_file({"resource_usage": {"src": {
        "storage_gb": 0, "monthly_egress_gb": 5000, "monthly_egress_china_gb": 2000,
        "monthly_egress_australia_gb": 12000}}})  # fmt: skip
    cost = estimate_resources([BUCKET], usage_file=declared).get("src")
    egress = {(x.what, x.key): x.usd for x in cost.cost_lines if x.bill == "governed" and x.usd}
    assert egress == pytest.approx({
        ("internet egress", "storage.egress.internet.tier1"): 5000 * 0.12,
        ("internet egress to China", "storage.egress.internet.china.tier1"): 1024 * 0.23,
        ("internet egress to China", "storage.egress.internet.china.tier2"): 976 * 0.22,
        ("internet egress to Australia", "storage.egress.internet.australia.tier1"): 10240 * 0.19,
        ("internet egress to Australia", "storage.egress.internet.australia.tier2"): 1760 * 0.18,
    })  # fmt: skip
    assert "internet egress to China" not in {x.what for x in cost.cost_lines if x.kind == "usage"}


def test_asia_is_tiered_apart_from_worldwide_egress():
    # Google's Cloud Storage page tiers Asia destinations on their own ladder: 11,240 GiB
    # worldwide fill its first 10 TiB ($0.12) and bill 1,000 GiB at $0.11, while 1,000 GiB to Asia
    # still start at Asia's first tier ($0.12). Summed into one ladder they would cost $10 less.
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    declared = parse_usage_file({"resource_usage": {"src": {
        "storage_gb": 0, "monthly_egress_gb": 11240, "monthly_egress_asia_gb": 1000}}})  # fmt: skip
    cost = estimate_resources([BUCKET], usage_file=declared).get("src")
    egress = {(x.what, x.key): x.usd for x in cost.cost_lines if x.bill == "governed" and x.usd}
    assert egress == pytest.approx({
        ("internet egress", "storage.egress.internet.tier1"): 10240 * 0.12,
        ("internet egress", "storage.egress.internet.tier2"): 1000 * 0.11,
        ("internet egress to Asia", "storage.egress.internet.asia.tier1"): 1000 * 0.12,
    })  # fmt: skip
    assert cost.monthly_usd == pytest.approx(1458.80)


def test_storage_egress_ladders_are_googles_page_figures():
    # "General network usage" on https://cloud.google.com/storage/pricing (documented.json
    # source gcs-pricing-network): the catalog must hold exactly these
    ladders = {
        "storage.egress.internet": (0.12, 0.11, 0.08),
        "storage.egress.internet.asia": (0.12, 0.11, 0.08),
        "storage.egress.internet.china": (0.23, 0.22, 0.20),
        "storage.egress.internet.australia": (0.19, 0.18, 0.15),
    }
    for prefix, usd in ladders.items():
        assert tuple(price(f"{prefix}.tier{i}", "global") for i in (1, 2, 3)) == usd, prefix


# Google's operation prices per 1,000 (https://cloud.google.com/storage/pricing): Class A in a
# region / in a dual- or multi-region, Class B anywhere; flat namespace, then hierarchical
OPERATIONS = {
    "STANDARD": ((0.005, 0.01, 0.0004), (0.0065, 0.013, 0.0005)),
    "NEARLINE": ((0.01, 0.02, 0.001), (0.013, 0.026, 0.0013)),
    "DURABLE_REDUCED_AVAILABILITY": ((0.01, 0.02, 0.001), (0.013, 0.026, 0.0013)),
    "COLDLINE": ((0.02, 0.04, 0.01), (0.026, 0.052, 0.013)),
    "ARCHIVE": ((0.05, 0.10, 0.05), (0.065, 0.13, 0.065)),
}


@pytest.mark.parametrize("hns", [False, True])
@pytest.mark.parametrize("cls", sorted(OPERATIONS))
def test_declared_operations_of_every_class_are_priced_where_the_bucket_is(cls, hns):
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    declared = parse_usage_file({"resource_usage": {"src": {
        "monthly_class_a_operations": 10_000, "monthly_class_b_operations": 100_000}}})  # fmt: skip
    a_region, a_multi, b = OPERATIONS[cls][hns]
    for location, a in (("US-CENTRAL1", a_region), ("US", a_multi), ("NAM4", a_multi)):
        inputs = {**BUCKET["inputs"], "storageClass": cls, "location": location}
        if hns:
            inputs["hierarchicalNamespace"] = {"enabled": True}
        cost = estimate_resources([{**BUCKET, "inputs": inputs}], usage_file=declared).get("src")
        lines = {x.what: x for x in cost.cost_lines if x.bill == "governed"}
        assert not cost.unpriced_parts
        assert lines["class a operations"].usd == pytest.approx(10 * a), location
        assert lines["class b operations"].usd == pytest.approx(100 * b), location
        assert lines["class a operations"].key.endswith(".hns") is hns


def test_container_registry_is_a_standard_bucket_in_its_multi_region():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    gcr = {"type": "gcp:container/registry:Registry", "name": "gcr", "inputs": {"location": "EU"}}
    declared = parse_usage_file({"resource_usage": {"gcr": {
        "storage_gb": 150, "monthly_class_a_operations": 40_000, "monthly_egress_gb": 100,
        "monthly_transfer_europe_gb": 550, "monthly_transfer_northern_america_gb": 10}}})  # fmt: skip
    cost = estimate_resources([gcr], usage_file=declared).get("gcr")
    # the EU bucket's transfer: within Europe $0.02, to Northern America $0.05 per GiB
    assert cost.monthly_usd == pytest.approx(
        150 * price("storage.standard", "eu")
        + 40 * 0.01  # Class A in a multi-region: twice the regional $0.005
        + 100 * price("storage.egress.internet.tier1", "global")
        + 550 * 0.02
        + 10 * 0.05
    )
    assert "Container Registry is deprecated" in cost.lines[0]
    us = estimate_resources([{**gcr, "inputs": {}}]).get("gcr")
    assert "storage.standard[us/" in us.lines[1]
