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


# The plan's first dataset gets BigQuery's free 10 GiB of storage (per billing account)
FREE_STORAGE = 10 * price("bigquery.storage.active")
FOREVER = (
    5 * 90 * price("bigquery.storage.active")
    + 5 * 275 * price("bigquery.storage.longterm")
    - FREE_STORAGE
)


def test_partition_expiration_bounds_what_is_stored():
    cost = one(dataset(defaultPartitionExpirationMs=str(60 * DAY_MS)), USAGE)
    assert cost.monthly_usd == pytest.approx(
        5 * 60 * price("bigquery.storage.active") - FREE_STORAGE
    )
    assert cost.baseline_monthly_usd == pytest.approx(FOREVER)  # 365 days kept, 275 long-term
    assert "5 GiB/day x 60 days kept (defaultPartitionExpirationMs) = 300 GiB" in cost.lines


def test_without_expiration_it_accumulates_like_the_baseline():
    cost = one(dataset(), USAGE)
    assert cost.monthly_usd == pytest.approx(FOREVER)


def test_table_partition_expirations_bound_their_dataset():
    cost = one(dataset(), USAGE, others=[table(30 * DAY_MS), table(45 * DAY_MS)])
    assert cost.monthly_usd == pytest.approx(
        5 * 45 * price("bigquery.storage.active") - FREE_STORAGE
    )
    # one table without expiration keeps the dataset unbounded
    unbounded = one(dataset(), USAGE, others=[table(30 * DAY_MS), table(None)])
    assert unbounded.monthly_usd == pytest.approx(FOREVER)


def test_known_stored_size_wins_over_the_ingest_math():
    usage = UsageAssumptions(as_of=AS_OF, bigquery_stored_gb={"f": 1000})
    cost = one(dataset(defaultTableExpirationMs=str(60 * DAY_MS)), usage)
    assert cost.monthly_usd == pytest.approx(990 * price("bigquery.storage.active"))


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
    # (100.3 TiB - the free 1 TiB) x bigquery.query.ondemand (US list price, the nearest
    # priced location)
    declared = parse_usage_file({"resource_usage": {ds["name"]: {"monthly_queries_tib": 100.3}}})
    with_queries = estimate_resources([ds], usage_file=declared).get(ds["name"])
    assert with_queries.monthly_usd - one(ds).monthly_usd == pytest.approx(
        99.3 * price("bigquery.query.ondemand", "us")
    )  # $620.63


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


def _declared(names_tib: dict[str, float]) -> Any:
    from governance.costs.usage_file import parse_usage_file

    return parse_usage_file(
        {"resource_usage": {n: {"monthly_queries_tib": t} for n, t in names_tib.items()}}
    )


def _named(name: str) -> dict[str, Any]:
    return {"type": "gcp:bigquery/dataset:Dataset", "name": name,
            "inputs": {"datasetId": name, "location": "US"}}  # fmt: skip


def test_the_free_query_tib_is_shared_by_declaring_datasets_in_plan_order():
    """1 TiB free per billing account: 0.4 to the first declaring dataset, 0.6 to the next."""
    from governance.costs.estimate import estimate_resources

    on_demand = price("bigquery.query.ondemand", "us")
    plan = [_named("a"), _named("b"), _named("c"), _named("d")]
    report = estimate_resources(plan, USAGE, usage_file=_declared({"b": 0.4, "c": 5, "d": 2}))

    def queries(name: str) -> float:
        lines = report.get(name).cost_lines
        charged = sum(x.usd or 0 for x in lines if x.bill == "governed" and x.kind == "charge"
                      and x.what == "on-demand queries")  # fmt: skip
        credit = sum(x.usd or 0 for x in lines if x.bill == "governed" and x.kind == "adjustment"
                     and x.text.startswith("on-demand queries"))  # fmt: skip
        return charged + credit

    assert queries("a") == 0  # declares nothing: a "depends on usage" line, no credit
    assert queries("b") == pytest.approx(0)  # 0.4 TiB, all free
    assert queries("c") == pytest.approx(4.4 * on_demand)  # takes the remaining 0.6 TiB
    assert queries("d") == pytest.approx(2 * on_demand)  # the free TiB is used up
    credit = next(x for x in report.get("c").cost_lines if x.kind == "adjustment"
                  and x.text.startswith("on-demand queries"))  # fmt: skip
    assert "0.6 TiB" in credit.text and "per billing account" in credit.text
    assert "one plan is assumed to be one account" in credit.text
    # the baseline gets the same credit (the free tier is not a governance lever)
    c = report.get("c")
    assert c.monthly_usd == pytest.approx(c.baseline_monthly_usd)


def test_the_free_storage_goes_to_the_first_dataset_only_and_never_below_zero():
    from governance.costs.estimate import estimate_resources

    usage = UsageAssumptions(as_of=AS_OF, bigquery_stored_gb={"a": 4, "b": 100})
    report = estimate_resources([_named("a"), _named("b")], usage)
    active = price("bigquery.storage.active", "us")
    assert report.get("a").monthly_usd == pytest.approx(0)  # 4 GiB, inside the free 10
    assert report.get("b").monthly_usd == pytest.approx(100 * active)  # no second free tier
    line = next(x for x in report.get("a").cost_lines if x.kind == "adjustment")
    assert line.usd == pytest.approx(-4 * active)
    assert "minus free tier 4 GiB" in line.text and "plan's first dataset" in line.text
