"""PartitionedDataset: a BigQuery dataset whose data expires unless someone keeps it.

It owns one dataset (in the stack's region unless configured otherwise, with default table and
partition expirations) and its tables (time-partitioned, requiring a partition filter on large
ones so a query can't scan the whole history). The billing export dataset, which must never
expire, is BillingExport in billing_export.py.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import pulumi
import pulumi_gcp as gcp

from governance.labels import Labels
from governance.naming import dataset_id
from mlgov_policies.vocabulary import component_type

DAY_MS = 24 * 3600 * 1000


@dataclass(frozen=True, kw_only=True)
class Table:
    """A time-partitioned table: by `partition_field`, or by ingestion time when it is None.

    `large` tables require a partition filter in every query. `schema` holds BigQuery field
    definitions (`{"name": ..., "type": ...}`).
    """

    partition_field: str | None = None
    partition_type: Literal["HOUR", "DAY", "MONTH", "YEAR"] = "DAY"
    large: bool = False
    clustering: tuple[str, ...] = ()
    schema: tuple[Mapping[str, str], ...] = ()


@dataclass(frozen=True, kw_only=True)
class PartitionedDatasetArgs:
    """What PartitionedDataset needs; expirations in days (None: no default expiration)."""

    project: str
    dataset: str
    location: str
    labels: Labels
    deletion_protection: bool
    table_expiration_days: int | None = None
    partition_expiration_days: int | None = 90
    tables: Mapping[str, Table] = field(default_factory=dict[str, Table])


def table_schema(table: Table) -> str | None:
    """The table schema as the BigQuery JSON string Pulumi expects, or None if not given."""
    if not table.schema:
        return None
    return json.dumps([dict(f) for f in table.schema], sort_keys=True)


def days_ms(days: int | None) -> int | None:
    """Days as milliseconds, the unit BigQuery expirations use."""
    return None if days is None else days * DAY_MS


class PartitionedDataset(pulumi.ComponentResource):
    """A BigQuery dataset with default expirations and time-partitioned tables."""

    dataset_id: pulumi.Output[str]

    def __init__(
        self, name: str, args: PartitionedDatasetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("PartitionedDataset"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        labels = args.labels.for_workload("data").as_dict()
        dataset = gcp.bigquery.Dataset(
            f"{name}-dataset",
            dataset_id=dataset_id(args.dataset),
            project=args.project,
            location=args.location,
            friendly_name=args.dataset,
            description=f"mlgov dataset {args.dataset}",
            default_table_expiration_ms=days_ms(args.table_expiration_days),
            default_partition_expiration_ms=days_ms(args.partition_expiration_days),
            delete_contents_on_destroy=False,
            labels=labels,
            opts=child,
        )
        for key, table in args.tables.items():
            gcp.bigquery.Table(
                f"{name}-{key}",
                dataset_id=dataset.dataset_id,
                table_id=dataset_id(key),
                project=args.project,
                time_partitioning=gcp.bigquery.TableTimePartitioningArgs(
                    type=table.partition_type,
                    field=table.partition_field,
                    expiration_ms=days_ms(args.partition_expiration_days),
                ),
                # On large tables an unfiltered query would scan (and bill) every partition.
                require_partition_filter=table.large,
                clusterings=list(table.clustering) or None,
                schema=table_schema(table),
                deletion_protection=args.deletion_protection,
                labels=labels,
                opts=child,
            )
        self.dataset_id = dataset.dataset_id
        self.register_outputs({"dataset_id": self.dataset_id})
