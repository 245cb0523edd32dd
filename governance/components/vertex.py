"""VertexTracking: a Vertex AI TensorBoard and ML Metadata store, in the region, only if asked.

Both are billed for what they store, so mlgov creates them only when the settings enable them
(settings/vertex.py). Endpoints and deployed models are the users' own resources; their bounds
are policy rules (policies/mlgov_policies/rules/vertex.py), not components.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from governance.labels import Labels
from governance.naming import resource_name
from mlgov_policies.vocabulary import component_type


@dataclass(frozen=True, kw_only=True)
class VertexTrackingArgs:
    """Which tracking resources to create, in `region`."""

    prefix: str
    project: str
    region: str
    labels: Labels
    tensorboard: bool = False
    metadata_store: bool = False


class VertexTracking(pulumi.ComponentResource):
    """Experiment tracking on Vertex AI: TensorBoard and/or an ML Metadata store."""

    def __init__(
        self, name: str, args: VertexTrackingArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("VertexTracking"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        if args.tensorboard:
            gcp.vertex.AiTensorboard(
                f"{name}-tensorboard",
                display_name=resource_name(args.prefix, "tensorboard"),
                project=args.project,
                region=args.region,
                description="mlgov experiment tracking",
                labels=args.labels.for_workload("experiments").as_dict(),
                opts=child,
            )
        if args.metadata_store:
            # Metadata stores take no labels (aiplatform.v1 MetadataStore has none).
            gcp.vertex.AiMetadataStore(
                f"{name}-metadata",
                name=resource_name(args.prefix, "metadata"),
                project=args.project,
                region=args.region,
                description="mlgov ML metadata (lineage of pipeline runs)",
                opts=child,
            )
        self.register_outputs({})
