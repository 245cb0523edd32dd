"""BigQuery model: ingest x days kept, active then long-term storage; expirations bound it."""

from __future__ import annotations

from typing import Any

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, one, price

DAY_MS = 86_400_000
USAGE = UsageAssumptions(as_of=AS_OF, bigquery_ingest={"f": 5.0})  # 5 GiB/day


def dataset(**inputs: object) -> dict[str, Any]:
    return {"type": "gcp:bigquery/dataset:Dataset", "name": "f",
            "inputs": {"datasetId": "f", "location": "us-central1", **inputs}}  # fmt: skip


def table(expiration_ms: int | None) -> dict[str, object]:
    partitioning: dict[str, object] = {"type": "DAY"}
    if expiration_ms is not None:
        partitioning["expirationMs"] = expiration_ms
    return {"type": "gcp:bigquery/table:Table", "name": f"t{expiration_ms}",
            "inputs": {"datasetId": "f", "timePartitioning": partitioning}}  # fmt: skip


FOREVER = 5 * 90 * price("bigquery.storage.active") + 5 * 275 * price("bigquery.storage.longterm")


def test_partition_expiration_bounds_what_is_stored():
    cost = one(dataset(defaultPartitionExpirationMs=str(60 * DAY_MS)), USAGE)
    assert cost.monthly_usd == pytest.approx(5 * 60 * price("bigquery.storage.active"))
    assert cost.baseline_monthly_usd == pytest.approx(FOREVER)  # 365 days kept, 275 long-term
    assert "5 GiB/day x 60 days kept (defaultPartitionExpirationMs) = 300 GiB" in cost.lines


def test_without_expiration_it_accumulates_like_the_baseline():
    cost = one(dataset(), USAGE)
    assert cost.monthly_usd == pytest.approx(FOREVER)


def test_table_partition_expirations_bound_their_dataset():
    cost = one(dataset(), USAGE, others=[table(30 * DAY_MS), table(45 * DAY_MS)])
    assert cost.monthly_usd == pytest.approx(5 * 45 * price("bigquery.storage.active"))
    # one table without expiration keeps the dataset unbounded
    unbounded = one(dataset(), USAGE, others=[table(30 * DAY_MS), table(None)])
    assert unbounded.monthly_usd == pytest.approx(FOREVER)


def test_known_stored_size_wins_over_the_ingest_math():
    usage = UsageAssumptions(as_of=AS_OF, bigquery_stored_gb={"f": 1000})
    cost = one(dataset(defaultTableExpirationMs=str(60 * DAY_MS)), usage)
    assert cost.monthly_usd == pytest.approx(1000 * price("bigquery.storage.active"))


def test_queries_and_storage_apis_depend_on_usage_unless_declared():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file
    from tests.costs.cost_plans import usage_lines

    ds = dataset()
    assert usage_lines(one(ds)) == {
        "on-demand queries": "monthly_queries_tib",
        "Storage Read API": "monthly_storage_read_api_tib",
        "Storage Write API": "monthly_storage_write_api_gib",
        "streaming inserts": "monthly_streaming_inserts_mib",
    }
    # 100.3 TiB x bigquery.query.ondemand (US list price, the nearest priced location)
    declared = parse_usage_file({"resource_usage": {ds["name"]: {"monthly_queries_tib": 100.3}}})
    with_queries = estimate_resources([ds], usage_file=declared).get(ds["name"])
    assert with_queries.monthly_usd - one(ds).monthly_usd == pytest.approx(
        100.3 * price("bigquery.query.ondemand", "us")
    )  # $626.88


def test_a_table_costs_nothing_of_its_own_unless_its_usage_is_declared():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    bare = one(table(None), USAGE, others=[dataset(location="EU")])
    assert bare.priced and bare.monthly_usd == 0
    declared = parse_usage_file({"resource_usage": {"tNone": {
        "monthly_active_storage_gb": 1000, "monthly_long_term_storage_gb": 500,
        "monthly_storage_read_api_tib": 2}}})  # fmt: skip
    report = estimate_resources([table(None), dataset(location="EU")], USAGE, usage_file=declared)
    # priced at its dataset's location (the EU multi-region), not the default region
    assert report.get("tNone").monthly_usd == pytest.approx(
        1000 * price("bigquery.storage.active", "eu")
        + 500 * price("bigquery.storage.longterm", "eu")
        + 2 * price("bigquery.storage_read_api", "eu")
    )
