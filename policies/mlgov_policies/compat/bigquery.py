"""BigQuery table layout rules: partition and clustering columns must exist in the schema.

BigQuery refuses, at create time, a table partitioned on a column when the table has no schema
("Table with field based partitioning must have a schema"), a partition column that is not a
top-level TIMESTAMP/DATE/DATETIME (time) or INTEGER (range) column in NULLABLE or REQUIRED mode,
and clustering on more than four columns or on columns that are not top-level, non-repeated,
simple-type fields. `schema_problems` checks a schema given as BigQuery's list of field objects
(the JSON that pulumi-gcp's `Table.schema` holds); settings validation and the policy rule in
acceptance/bigquery.py both call it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

from mlgov_policies.compat import sources as s

TIME_PARTITION_GRANULARITIES: Final = ("DAY", "HOUR", "MONTH", "YEAR")
"""`timePartitioning.type` values (TimePartitioning.type in discovery document bigquery.v2)."""
TIME_PARTITION_TYPES: Final = frozenset({"TIMESTAMP", "DATE", "DATETIME"})
RANGE_PARTITION_TYPES: Final = frozenset({"INTEGER", "INT64"})
PARTITION_MODES: Final = frozenset({"NULLABLE", "REQUIRED"})
NESTED_TYPES: Final = frozenset({"RECORD", "STRUCT"})
MAX_CLUSTERING_COLUMNS: Final = 4
PARTITIONING_SOURCE: Final = s.BQ_PARTITIONING
CLUSTERING_SOURCE: Final = s.BQ_CLUSTERING
_PARTITIONING: Final = s.short(PARTITIONING_SOURCE)
_CLUSTERING: Final = s.short(CLUSTERING_SOURCE)

Part = Literal["schema", "partition_field", "range_partition_field", "clustering"]


@dataclass(frozen=True)
class SchemaProblem:
    """One reason BigQuery would refuse the table layout, and which setting it is about."""

    part: Part
    """Which input the problem is about; `clustering` problems also carry the column index."""
    index: int | None
    message: str
    missing: bool = False
    """True when the column is not in the schema at all (the fix: declare it there)."""

    def __str__(self) -> str:
        return self.message


def _columns(schema: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Top-level columns by lower-cased name (BigQuery column names are case-insensitive)."""
    columns: dict[str, Mapping[str, Any]] = {}
    for field in schema:
        name: object = field.get("name")
        if isinstance(name, str):
            columns.setdefault(name.lower(), field)
    return columns


def _type(field: Mapping[str, Any]) -> str:
    kind: object = field.get("type")
    return kind.upper() if isinstance(kind, str) else ""


def _mode(field: Mapping[str, Any]) -> str:
    mode: object = field.get("mode")
    return mode.upper() if isinstance(mode, str) else "NULLABLE"  # BigQuery's default mode


def _partition_problem(
    columns: Mapping[str, Mapping[str, Any]], name: str, allowed: frozenset[str], what: str
) -> str | None:
    field = columns.get(name.lower())
    if field is None:
        return (
            f"{what} column {name!r} is not a top-level column of the schema "
            f"(columns: {sorted(str(f.get('name')) for f in columns.values())}) "
            f"(source: {_PARTITIONING})"
        )
    kind, mode = _type(field), _mode(field)
    if kind and kind not in allowed:
        return (
            f"{what} column {name!r} is {kind}; it must be {' or '.join(sorted(allowed))} "
            f"(source: {_PARTITIONING})"
        )
    if mode not in PARTITION_MODES:
        return (
            f"{what} column {name!r} has mode {mode}; it must be NULLABLE or REQUIRED "
            f"(source: {_PARTITIONING})"
        )
    return None


def schema_problems(
    schema: Sequence[Mapping[str, Any]] | None,
    partition_field: str | None = None,
    clustering: Sequence[str] = (),
    *,
    range_partition_field: str | None = None,
) -> list[SchemaProblem]:
    """Every reason BigQuery would refuse this schema with this partitioning and clustering.

    Args:
        schema: the table's fields as BigQuery's JSON list (`name`, `type`, `mode`, `fields`);
            None when the table declares no schema.
        partition_field: the time-partitioning column (`timePartitioning.field`), if any.
        clustering: the clustering columns, in order.
        range_partition_field: the integer-range partitioning column, if any.

    Returns:
        One `SchemaProblem` per defect, in input order; empty when BigQuery would accept it.
    """
    problems: list[SchemaProblem] = []
    partitions: list[tuple[Part, str, frozenset[str], str]] = []
    if partition_field:
        partitions.append(("partition_field", partition_field, TIME_PARTITION_TYPES, "partition"))
    if range_partition_field:
        partitions.append(
            (
                "range_partition_field",
                range_partition_field,
                RANGE_PARTITION_TYPES,
                "range partition",
            )
        )
    if schema is None:
        for part, name, _allowed, what in partitions:
            problems.append(
                SchemaProblem(
                    part,
                    None,
                    f"the table declares no schema but is partitioned on {what} column {name!r}: "
                    f"a table with field based partitioning must have a schema "
                    f"(source: {_PARTITIONING})",
                    missing=True,
                )
            )
    else:
        columns = _columns(schema)
        for part, name, allowed, what in partitions:
            message = _partition_problem(columns, name, allowed, what)
            if message:
                missing = name.lower() not in columns
                problems.append(SchemaProblem(part, None, message, missing=missing))
    if len(clustering) > MAX_CLUSTERING_COLUMNS:
        problems.append(
            SchemaProblem(
                "clustering",
                None,
                f"{len(clustering)} clustering columns {list(clustering)}: BigQuery allows at "
                f"most {MAX_CLUSTERING_COLUMNS} (source: {_CLUSTERING})",
            )
        )
    columns = _columns(schema) if schema is not None else {}
    for index, name in enumerate(clustering):
        field = columns.get(name.lower())
        if field is None:
            where = "the table declares no schema" if schema is None else "not a top-level column"
            problems.append(
                SchemaProblem(
                    "clustering",
                    index,
                    f"clustering column {name!r}: {where}; clustering columns must be top-level "
                    f"schema columns (source: {_CLUSTERING})",
                    missing=True,
                )
            )
        elif _type(field) in NESTED_TYPES or _mode(field) == "REPEATED":
            problems.append(
                SchemaProblem(
                    "clustering",
                    index,
                    f"clustering column {name!r} is {_mode(field)} {_type(field)}; clustering "
                    f"needs a non-repeated, simple-type column (source: {_CLUSTERING})",
                )
            )
    return problems


def parse_schema(raw: object) -> list[Mapping[str, Any]] | None:
    """A pulumi `Table.schema` JSON string (or already-parsed list) as field objects.

    Returns None when the value is absent, not JSON, or not a list of objects, so callers can
    skip what they cannot read.
    """
    value: object = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python recurses
            return None
    if not isinstance(value, list):
        return None
    items = cast(list[object], value)
    if not all(isinstance(item, Mapping) for item in items):
        return None
    return [cast(Mapping[str, Any], item) for item in items]
