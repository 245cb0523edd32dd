"""`schema_problems` and `parse_schema`: BigQuery's partition and clustering column rules."""

from __future__ import annotations

import json

import pytest

from mlgov_policies.compat import SchemaProblem, parse_schema, schema_problems

PARTITIONING_DOC = "BigQuery: Introduction to partitioned tables https://cloud.google.com/bigquery/docs/partitioned-tables"
CLUSTERING_DOC = "BigQuery: Introduction to clustered tables https://cloud.google.com/bigquery/docs/clustered-tables#limitations"

SCHEMA = [
    {"name": "event_ts", "type": "TIMESTAMP", "mode": "REQUIRED"},
    {"name": "day", "type": "DATE"},
    {"name": "seen", "type": "DATETIME", "mode": "NULLABLE"},
    {"name": "user_id", "type": "STRING", "mode": "NULLABLE"},
    {"name": "bucket", "type": "INTEGER"},
    {"name": "shard", "type": "INT64"},
    {"name": "tags", "type": "STRING", "mode": "REPEATED"},
    {"name": "attrs", "type": "RECORD", "fields": [{"name": "inner_ts", "type": "TIMESTAMP"}]},
    {"name": "times", "type": "TIMESTAMP", "mode": "REPEATED"},
]


@pytest.mark.parametrize(
    ("partition", "clustering", "range_field"),
    [
        ("event_ts", ["user_id"], None),
        ("day", [], None),
        ("seen", ["user_id", "bucket", "day", "event_ts"], None),
        ("EVENT_TS", ["USER_ID"], None),  # BigQuery column names are case-insensitive
        (None, ["user_id"], "bucket"),
        (None, [], "shard"),
        (None, [], None),
    ],
)
def test_accepted_layouts(
    partition: str | None, clustering: list[str], range_field: str | None
) -> None:
    assert schema_problems(SCHEMA, partition, clustering, range_partition_field=range_field) == []


def test_partition_without_schema() -> None:
    assert schema_problems(None, "event_ts") == [
        SchemaProblem(
            "partition_field",
            None,
            "the table declares no schema but is partitioned on partition column 'event_ts': a "
            "table with field based partitioning must have a schema "
            f"(source: {PARTITIONING_DOC})",
            missing=True,
        )
    ]


def test_no_partition_no_clustering_needs_no_schema() -> None:
    assert schema_problems(None) == []


def test_partition_column_missing() -> None:
    (problem,) = schema_problems(SCHEMA[:2], "started_at")
    assert (problem.part, problem.missing) == ("partition_field", True)
    assert problem.message == (
        "partition column 'started_at' is not a top-level column of the schema (columns: "
        f"['day', 'event_ts']) (source: {PARTITIONING_DOC})"
    )


def test_nested_column_is_not_top_level() -> None:
    (problem,) = schema_problems(SCHEMA, "inner_ts")
    assert "'inner_ts' is not a top-level column" in problem.message


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("user_id", f"partition column 'user_id' is STRING; it must be DATE or DATETIME or TIMESTAMP (source: {PARTITIONING_DOC})"),
        ("times", f"partition column 'times' has mode REPEATED; it must be NULLABLE or REQUIRED (source: {PARTITIONING_DOC})"),
    ],
)  # fmt: skip
def test_partition_column_type_and_mode(field: str, message: str) -> None:
    assert [(p.message, p.missing) for p in schema_problems(SCHEMA, field)] == [(message, False)]


def test_range_partition_needs_an_integer() -> None:
    (problem,) = schema_problems(SCHEMA, range_partition_field="event_ts")
    assert problem.part == "range_partition_field"
    assert problem.message == (
        "range partition column 'event_ts' is TIMESTAMP; it must be INT64 or INTEGER "
        f"(source: {PARTITIONING_DOC})"
    )


def test_clustering_problems() -> None:
    problems = schema_problems(SCHEMA, "event_ts", ["user_id", "missing", "tags", "attrs", "day"])
    assert [(p.part, p.index, p.missing) for p in problems] == [
        ("clustering", None, False),
        ("clustering", 1, True),
        ("clustering", 2, False),
        ("clustering", 3, False),
    ]
    assert problems[0].message == (
        "5 clustering columns ['user_id', 'missing', 'tags', 'attrs', 'day']: BigQuery allows at "
        f"most 4 (source: {CLUSTERING_DOC})"
    )
    assert problems[1].message == (
        "clustering column 'missing': not a top-level column; clustering columns must be "
        f"top-level schema columns (source: {CLUSTERING_DOC})"
    )
    assert problems[2].message == (
        "clustering column 'tags' is REPEATED STRING; clustering needs a non-repeated, "
        f"simple-type column (source: {CLUSTERING_DOC})"
    )
    assert problems[3].message == (
        "clustering column 'attrs' is NULLABLE RECORD; clustering needs a non-repeated, "
        f"simple-type column (source: {CLUSTERING_DOC})"
    )


def test_clustering_without_schema() -> None:
    (problem,) = schema_problems(None, None, ["user_id"])
    assert (problem.part, problem.index) == ("clustering", 0)
    assert problem.message.startswith("clustering column 'user_id': the table declares no schema;")


def test_parse_schema() -> None:
    assert parse_schema(json.dumps(SCHEMA)) == SCHEMA
    assert parse_schema(SCHEMA) == SCHEMA
    assert parse_schema(None) is None
    assert parse_schema("not json") is None
    assert parse_schema('{"name": "x"}') is None
    assert parse_schema('["x"]') is None
