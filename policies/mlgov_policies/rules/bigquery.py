"""BigQuery rules: data expires (billing history never), tables partition, prod caps queries.

Covers `gcp:bigquery/dataset:Dataset`, `gcp:bigquery/table:Table`, the query-usage
`gcp:serviceusage/consumerQuotaOverride:ConsumerQuotaOverride` (a stack rule) and one stack rule
that pairs datasets with their tables (a default table expiration BigQuery ignores). Who may read
a dataset is iam.py's concern; where it lives is location.py's; partition and clustering columns
BigQuery would refuse are acceptance/bigquery.py's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from mlgov_policies import vocabulary as v
from mlgov_policies.compat import sources
from mlgov_policies.compat.bigquery import TIME_PARTITION_GRANULARITIES
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, as_mapping, as_number, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule, StackResource, StackRule

_EXPIRATIONS = ("defaultTableExpirationMs", "defaultPartitionExpirationMs")


def is_billing_export(props: Mapping[str, Any], config: PolicyConfig) -> bool:
    """True for the billing export dataset (by datasetId or its workload label)."""
    return (
        dig(props, "datasetId") == config.billing_export_dataset
        or dig(props, "labels", v.WORKLOAD_LABEL) == v.BILLING_EXPORT_WORKLOAD
    )


def dataset_expiration(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Datasets expire tables or partitions by default (except the billing export)."""
    del type_
    if is_billing_export(props, config):
        return
    values = [dig(props, key) for key in _EXPIRATIONS]
    if any(is_unknown(value) for value in values):
        return
    if not any((as_number(value) or 0) > 0 for value in values):
        yield (
            "neither defaultTableExpirationMs nor defaultPartitionExpirationMs is set: "
            "data is stored (and billed) forever"
        )


DATASET_EXPIRATION = ResourceRule(
    name="mlgov-bigquery-dataset-expiration",
    check=dataset_expiration,
    types=frozenset({v.BQ_DATASET}),
    enforcement="mandatory",
    config_keys=("billing_export_dataset",),
    why="Scratch and feature tables pile up storage cost forever unless they expire.",
    remediation="Set defaultTableExpirationMs or defaultPartitionExpirationMs on the dataset.",
)


def billing_export_retained(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """The billing export dataset never expires and survives `pulumi destroy`."""
    del type_
    if not is_billing_export(props, config):
        return
    for key in _EXPIRATIONS:
        value = as_number(dig(props, key))
        if value is not None and value > 0:
            yield f"{key} is set on the billing export dataset: billing history would expire"
    if as_bool(dig(props, "deleteContentsOnDestroy")) is True:
        yield "deleteContentsOnDestroy is true: destroying the stack would erase billing history"


BILLING_EXPORT_RETAINED = ResourceRule(
    name="mlgov-bigquery-billing-export-retained",
    check=billing_export_retained,
    types=frozenset({v.BQ_DATASET}),
    enforcement="mandatory",
    config_keys=("billing_export_dataset",),
    why="Billing export history cannot be re-exported for past months; expiring or deleting "
    "it loses the cost record for good.",
    remediation="Leave both expirations unset and deleteContentsOnDestroy false on the "
    "billing export dataset (protect it with retainOnDelete).",
)


def table_partitioned(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Tables are time-partitioned so queries and expiration work per partition."""
    del type_, config
    if any(dig(props, key) for key in ("view", "materializedView", "externalDataConfiguration")):
        return  # no managed storage to partition
    partitioning = dig(props, "timePartitioning")
    if is_unknown(partitioning):
        return
    kind = dig(partitioning, "type")
    if is_unknown(kind):
        return
    if kind not in TIME_PARTITION_GRANULARITIES:
        yield "timePartitioning.type is not set: full-table scans on every query"


TABLE_PARTITIONED = ResourceRule(
    name="mlgov-bigquery-table-partitioned",
    check=table_partitioned,
    types=frozenset({v.BQ_TABLE}),
    enforcement="mandatory",
    why="Queries on unpartitioned tables scan (and bill) every byte; partitions also make "
    "expiration work.",
    remediation="Set timePartitioning.type (DAY, HOUR, MONTH or YEAR) and, for large tables, "
    "requirePartitionFilter = true.",
)


def _query_caps(resources: Sequence[StackResource]) -> set[str] | None:
    """Limits (decoded) of the stack's query-usage overrides with a real cap; None if unknown."""
    limits: set[str] = set()
    for resource in resources:
        if resource.type != v.QUOTA_OVERRIDE:
            continue
        fields = [dig(resource.props, key) for key in ("metric", "limit", "overrideValue")]
        if any(is_unknown(value) for value in fields):
            return None
        metric, limit = (unquote(as_str(value) or "") for value in fields[:2])
        value = as_number(fields[2])
        # -1 means unlimited (serviceusage v1beta1 QuotaOverride.overrideValue).
        if metric == v.BQ_QUERY_QUOTA_METRIC and value is not None and value >= 0:
            limits.add(limit)
    return limits


def query_quota(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """Prod stacks with BigQuery datasets cap the bytes queries may process per day."""
    if config.environment != "prod":
        return
    datasets = sum(1 for r in resources if r.type == v.BQ_DATASET)
    if not datasets:
        return
    caps = _query_caps(resources)
    if caps is None or v.BQ_QUERY_QUOTA_PROJECT_LIMIT in caps:
        return
    what = "only a per-user cap" if v.BQ_QUERY_QUOTA_USER_LIMIT in caps else "no query-bytes quota"
    yield (
        None,
        f"the prod stack has {datasets} BigQuery dataset(s) and {what}: one runaway on-demand "
        "query (or loop) can scan up to BigQuery's default 200 TiB a day",
    )


QUERY_QUOTA = StackRule(
    name="mlgov-bigquery-query-quota",
    check=query_quota,
    types=frozenset({v.BQ_DATASET, v.QUOTA_OVERRIDE}),
    enforcement="mandatory",
    config_keys=("environment",),
    why="On-demand queries bill per TiB scanned; without a daily quota nothing but the monthly "
    "budget alert (a day late) stops a runaway query.",
    remediation="Add a gcp.serviceusage.ConsumerQuotaOverride on bigquery.googleapis.com "
    "metric quota/query/usage, limit /d/project (settings: bigquery_quotas).",
)


_EXPIRATIONS_SOURCE = sources.short(sources.BQ_DEFAULT_EXPIRATIONS)
_PARTITIONINGS = ("timePartitioning", "rangePartitioning")


def _partitioned(props: Mapping[str, Any]) -> bool | None:
    """Whether a table is partitioned; None when that is not known yet (preview)."""
    values = [dig(props, key) for key in _PARTITIONINGS]
    if any(is_unknown(value) for value in values):
        return None
    return any(as_mapping(value) for value in values)


def _dataset_key(props: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """(datasetId, project or None) of a dataset or a table; None when the id is not known."""
    dataset = as_str(dig(props, "datasetId"))
    return None if dataset is None else (dataset, as_str(dig(props, "project")))


def table_expiration_ignored(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """Datasets set no default table expiration that BigQuery ignores (every table partitioned)."""
    del config
    tables: dict[str, list[tuple[str, bool | None, str | None]]] = {}
    for resource in resources:
        if resource.type == v.BQ_TABLE and (key := _dataset_key(resource.props)) is not None:
            partitioned = _partitioned(resource.props)
            tables.setdefault(key[0], []).append((resource.name, partitioned, key[1]))
    for index, resource in enumerate(resources):
        if resource.type != v.BQ_DATASET or (key := _dataset_key(resource.props)) is None:
            continue
        table_ms = as_number(dig(resource.props, "defaultTableExpirationMs"))
        partition_ms = as_number(dig(resource.props, "defaultPartitionExpirationMs"))
        if not table_ms or not partition_ms:
            continue
        dataset, project = key
        # A table names its dataset by id; a project on both sides must agree.
        mine = [
            (name, partitioned)
            for name, partitioned, other in tables.get(dataset, [])
            if project is None or other is None or other == project
        ]
        if not mine or not all(partitioned is True for _, partitioned in mine):
            continue
        yield (
            index,
            "defaultTableExpirationMs is set with defaultPartitionExpirationMs, and every table "
            f"of this dataset in the plan ({', '.join(sorted(n for n, _ in mine))}) is "
            "partitioned: BigQuery then gives partitioned tables no table expiration, so "
            f"defaultTableExpirationMs does nothing for them (source: {_EXPIRATIONS_SOURCE})",
        )


TABLE_EXPIRATION_IGNORED = StackRule(
    name="mlgov-bigquery-table-expiration-ignored",
    check=table_expiration_ignored,
    types=frozenset({v.BQ_DATASET, v.BQ_TABLE}),
    enforcement="advisory",
    why="A default table expiration that BigQuery ignores looks like a retention guarantee that "
    "is not there: the partitioned tables keep (and bill) their data until their partitions "
    "expire.",
    remediation="Drop defaultTableExpirationMs (settings: datasets.<name>.table_expiration_days) "
    "and size defaultPartitionExpirationMs to the retention you want.",
    source=_EXPIRATIONS_SOURCE,
)
