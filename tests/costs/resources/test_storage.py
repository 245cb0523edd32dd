"""Storage model: GiB held x the storage class's price in the bucket's region."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from governance.costs.errors import CatalogError
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


def test_storage_class_without_a_price_is_an_error():
    nearline = {**BUCKET, "inputs": {**BUCKET["inputs"], "storageClass": "NEARLINE"}}
    with pytest.raises(CatalogError, match=r"storage\.nearline"):
        one(nearline)
