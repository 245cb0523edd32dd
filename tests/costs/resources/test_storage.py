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
