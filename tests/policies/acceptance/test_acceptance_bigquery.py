"""BigQuery partition and clustering column rule on table inputs (schema as a JSON string)."""

from __future__ import annotations

import json

from acceptance_support import DELETE, changed, run, shipped

from mlgov_policies import vocabulary as v
from mlgov_policies.props import UNKNOWN_SENTINELS

RULE = "mlgov-bigquery-partition-columns-in-schema"
PARTITIONING_DOC = "BigQuery: Introduction to partitioned tables https://cloud.google.com/bigquery/docs/partitioned-tables"
CLUSTERING_DOC = "BigQuery: Introduction to clustered tables https://cloud.google.com/bigquery/docs/clustered-tables#limitations"
UNKNOWN = next(iter(UNKNOWN_SENTINELS))


def events() -> dict:
    return shipped("dev", "dataset-features-events")  # schema, partition and clustering declared


def test_dev_events_table_passes() -> None:
    assert run(RULE, v.BQ_TABLE, events()) == []


def test_ingestion_time_table_without_schema_passes() -> None:
    assert run(RULE, v.BQ_TABLE, shipped("staging", "dataset-features-labels")) == []


def test_partition_field_without_schema_fails() -> None:
    assert run(RULE, v.BQ_TABLE, changed(events(), "schema", DELETE)) == [
        "timePartitioning.field: the table declares no schema but is partitioned on partition "
        "column 'event_ts': a table with field based partitioning must have a schema "
        f"(source: {PARTITIONING_DOC})",
        "clusterings[0]: clustering column 'user_id': the table declares no schema; clustering "
        f"columns must be top-level schema columns (source: {CLUSTERING_DOC})",
    ]


def test_partition_field_not_in_schema_fails() -> None:
    props = changed(events(), "timePartitioning.field", "started_at")
    assert run(RULE, v.BQ_TABLE, props) == [
        "timePartitioning.field: partition column 'started_at' is not a top-level column of the "
        f"schema (columns: ['event_ts', 'user_id']) (source: {PARTITIONING_DOC})"
    ]


def test_partition_column_of_wrong_type_fails() -> None:
    props = changed(events(), "timePartitioning.field", "user_id")
    assert run(RULE, v.BQ_TABLE, props) == [
        "timePartitioning.field: partition column 'user_id' is STRING; it must be DATE or "
        f"DATETIME or TIMESTAMP (source: {PARTITIONING_DOC})"
    ]


def test_clustering_column_not_in_schema_fails() -> None:
    props = changed(events(), "clusterings", ["user_id", "country"])
    assert run(RULE, v.BQ_TABLE, props) == [
        "clusterings[1]: clustering column 'country': not a top-level column; clustering columns "
        f"must be top-level schema columns (source: {CLUSTERING_DOC})"
    ]


def test_five_clustering_columns_fail() -> None:
    schema = [{"name": n, "type": "STRING"} for n in ("a", "b", "c", "d", "e")]
    props = changed(changed(events(), "schema", json.dumps(schema)), "timePartitioning", DELETE)
    props = changed(props, "clusterings", ["a", "b", "c", "d", "e"])
    assert run(RULE, v.BQ_TABLE, props) == [
        "clusterings: 5 clustering columns ['a', 'b', 'c', 'd', 'e']: BigQuery allows at most 4 "
        f"(source: {CLUSTERING_DOC})"
    ]


def test_range_partition_on_integer_passes_and_on_string_fails() -> None:
    schema = json.dumps(
        [{"name": "bucket", "type": "INTEGER"}, {"name": "user_id", "type": "STRING"}]
    )
    base = changed(changed(events(), "schema", schema), "timePartitioning", DELETE)
    base = changed(base, "clusterings", DELETE)
    good = changed(
        base,
        "rangePartitioning",
        {"field": "bucket", "range": {"start": 0, "end": 10, "interval": 1}},
    )
    assert run(RULE, v.BQ_TABLE, good) == []
    bad = changed(good, "rangePartitioning.field", "user_id")
    assert run(RULE, v.BQ_TABLE, bad) == [
        "rangePartitioning.field: range partition column 'user_id' is STRING; it must be INT64 "
        f"or INTEGER (source: {PARTITIONING_DOC})"
    ]


def test_views_and_unknowns_are_skipped() -> None:
    no_schema = changed(events(), "schema", DELETE)
    assert run(RULE, v.BQ_TABLE, changed(no_schema, "view", {"query": "SELECT 1"})) == []
    assert run(RULE, v.BQ_TABLE, changed(events(), "schema", UNKNOWN)) == []
    assert run(RULE, v.BQ_TABLE, changed(events(), "schema", "{not json")) == []
