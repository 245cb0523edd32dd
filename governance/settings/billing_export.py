"""`billing_export`: the dataset Cloud Billing exports to (component: billing_export.py).

`problems` keeps it in an allowed location and out of the managed (expiring) datasets.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from governance.settings.base import BigQueryKey, Model, Problem

if TYPE_CHECKING:
    from governance.settings.root import Settings


class BillingExportSettings(Model):
    """The dataset the Cloud Billing export writes to (the export itself is a console step)."""

    dataset_id: BigQueryKey = "billing_export"
    location: str | None = None


def problems(s: Settings) -> Iterator[Problem]:
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
