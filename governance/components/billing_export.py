"""BillingExport: the dataset Cloud Billing exports cost data to, kept forever.

It owns only the dataset: in the stack's region, no default table or partition expiration (cost
history is the one thing mlgov never expires), not emptied or deleted with the stack
(`retain_on_delete`, and `protect`). The export itself has no API: the platform engineer guide
(docs/guides/platform-engineer.md) documents the one console step and how to verify it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from governance.labels import Labels
from mlgov_policies.vocabulary import component_type


@dataclass(frozen=True, kw_only=True)
class BillingExportArgs:
    """What BillingExport needs."""

    project: str
    dataset: str
    location: str
    labels: Labels


class BillingExport(pulumi.ComponentResource):
    """The billing export dataset: never expires, survives `pulumi destroy`."""

    dataset_id: pulumi.Output[str]

    def __init__(
        self, name: str, args: BillingExportArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("BillingExport"), name, None, opts)
        dataset = gcp.bigquery.Dataset(
            f"{name}-dataset",
            dataset_id=args.dataset,
            project=args.project,
            location=args.location,
            friendly_name="Cloud Billing export",
            description="Cloud Billing export (standard and detailed usage cost). Never expires.",
            # No default_table_expiration_ms / default_partition_expiration_ms on purpose.
            delete_contents_on_destroy=False,
            labels=args.labels.for_workload("billing-export").as_dict(),
            opts=pulumi.ResourceOptions(parent=self, protect=True, retain_on_delete=True),
        )
        self.dataset_id = dataset.dataset_id
        self.register_outputs({"dataset_id": self.dataset_id})
