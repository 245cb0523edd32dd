"""BigQuery tables whose partition and clustering columns BigQuery can find in the schema.

Reads pulumi-gcp's `bigquery.Table` inputs: `schema` (a JSON string of BigQuery field objects),
`timePartitioning.field`, `rangePartitioning.field` and `clusterings`. Views, materialized views
and external tables have no managed storage to partition and are skipped. The column rules live
in compat/bigquery.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from mlgov_policies import vocabulary as v
from mlgov_policies.compat import sources
from mlgov_policies.compat.bigquery import SchemaProblem, parse_schema, schema_problems
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule

_NOT_MANAGED = ("view", "materializedView", "externalDataConfiguration")
_PATHS: Final = {
    "schema": "schema",
    "partition_field": "timePartitioning.field",
    "range_partition_field": "rangePartitioning.field",
    "clustering": "clusterings",
}


def _path(problem: SchemaProblem) -> str:
    base = _PATHS[problem.part]
    return base if problem.index is None else f"{base}[{problem.index}]"


def bigquery_table_columns(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Partition and clustering columns are top-level columns of the table's schema."""
    del type_, config
    if any(dig(props, key) for key in _NOT_MANAGED):
        return
    raw_schema = dig(props, "schema")
    time_field = dig(props, "timePartitioning", "field")
    range_field = dig(props, "rangePartitioning", "field")
    clusterings = dig(props, "clusterings")
    if any(is_unknown(value) for value in (raw_schema, time_field, range_field, clusterings)):
        return  # decided at apply time: nothing to judge in a preview
    schema = None if raw_schema is None else parse_schema(raw_schema)
    if raw_schema is not None and schema is None:
        return  # not BigQuery's JSON field list: the provider reports that itself
    columns = [as_str(column) for column in as_list(clusterings)]
    if any(column is None for column in columns):
        return
    for problem in schema_problems(
        schema,
        as_str(time_field),
        [column for column in columns if column is not None],
        range_partition_field=as_str(range_field),
    ):
        yield f"{_path(problem)}: {problem.message}"


RULE: Final = ResourceRule(
    name="mlgov-bigquery-partition-columns-in-schema",
    check=bigquery_table_columns,
    types=frozenset({v.BQ_TABLE}),
    enforcement="mandatory",
    why="BigQuery refuses to create a table partitioned or clustered on columns it cannot find "
    '("Table with field based partitioning must have a schema"); the stack fails halfway '
    "through `pulumi up`.",
    remediation="Declare the table's schema with the partition column (TIMESTAMP, DATE or "
    "DATETIME; INTEGER for range partitioning) and every clustering column as top-level, "
    "non-repeated fields; cluster on at most 4 columns.",
    source=sources.short(sources.BQ_PARTITIONING),
)
RULES: Final = (RULE,)
