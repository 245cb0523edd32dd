"""`datasets.<name>`: BigQuery datasets that expire (component: governance/components/datasets.py).

`problems` keeps datasets in the stack's region (or an allowed location) and makes sure each one
expires tables or partitions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Literal, Protocol

from pydantic import ConfigDict, Field

from governance.settings.accepted import Flag
from governance.settings.base import BigQueryKey, Model, Problem


class TableSettings(Model):
    """A time-partitioned BigQuery table."""

    partition_field: str | None = None  # None: ingestion-time partitioning
    partition_type: Literal["HOUR", "DAY", "MONTH", "YEAR"] = "DAY"
    large: Flag = False  # large tables require a partition filter in queries
    clustering: tuple[str, ...] = ()
    schema_fields: tuple[dict[str, str], ...] = Field(default=(), alias="schema")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class DatasetSettings(Model):
    """A BigQuery dataset with default expirations."""

    location: str | None = None  # None: the stack's region
    table_expiration_days: Annotated[int, Field(ge=1, le=3650)] | None = None
    partition_expiration_days: Annotated[int, Field(ge=1, le=3650)] | None = 90
    tables: dict[BigQueryKey, TableSettings] = Field(default_factory=dict[str, TableSettings])


class _DatasetsStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def region(self) -> str: ...

    @property
    def datasets(self) -> Mapping[str, DatasetSettings]: ...

    def bigquery_locations(self) -> set[str]: ...


def problems(s: _DatasetsStack) -> Iterator[Problem]:
    """Each dataset's location and expiration."""
    allowed = s.bigquery_locations()
    for name, ds in s.datasets.items():
        if ds.location is not None and ds.location not in allowed:
            yield (
                f"datasets.{name}.location",
                f"{ds.location!r} is not the stack's region {s.region!r}; keep data next to "
                "compute or add it to limits.allowed_bigquery_locations",
            )
        if ds.table_expiration_days is None and ds.partition_expiration_days is None:
            yield (
                f"datasets.{name}",
                "set table_expiration_days or partition_expiration_days so unneeded data expires",
            )
