"""`billing_export`: the dataset Cloud Billing exports to (component: billing_export.py).

`problems` keeps it in an allowed location and out of the managed (expiring) datasets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Protocol

from governance.settings.base import BigQueryKey, Model, Problem

if TYPE_CHECKING:
    from governance.settings.datasets import DatasetSettings


class BillingExportSettings(Model):
    """The dataset the Cloud Billing export writes to (the export itself is a console step)."""

    dataset_id: BigQueryKey = "billing_export"
    location: str | None = None


class _BillingExportStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def region(self) -> str: ...

    @property
    def billing_export(self) -> BillingExportSettings: ...

    @property
    def datasets(self) -> Mapping[str, DatasetSettings]: ...

    def bigquery_locations(self) -> set[str]: ...


def problems(s: _BillingExportStack) -> Iterator[Problem]:
    """The export dataset's location, and that no managed dataset shares its id."""
    export = s.billing_export
    if export.location is not None and export.location not in s.bigquery_locations():
        yield (
            "billing_export.location",
            f"{export.location!r} is not the stack's region {s.region!r}",
        )
    if export.dataset_id in s.datasets:
        yield (
            "billing_export.dataset_id",
            "the billing export dataset must not also be a managed dataset (it never expires)",
        )
