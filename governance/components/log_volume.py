"""LogVolume: how much Cloud Logging ingests and keeps, for the `_Default` log bucket.

It owns the `_Default` bucket's retention (`gcp.logging.ProjectBucketConfig` adopts the bucket
Cloud Logging creates; logs past 30 days are billed per GiB-month) and one project exclusion per
noisy log filter (excluded entries are never ingested, so never billed). The filters and days per
environment are chosen in settings/log_volume.py. Admin Activity audit logs go to `_Required`,
which no exclusion or retention here touches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_gcp as gcp

from governance.naming import resource_name
from mlgov_policies.vocabulary import component_type

DEFAULT_BUCKET = "_Default"


@dataclass(frozen=True, kw_only=True)
class LogVolumeArgs:
    """Retention of `_Default` in days; exclusions by key (part of their name) -> filter."""

    prefix: str
    project: str
    retention_days: int = 30
    exclusions: Mapping[str, str] = field(default_factory=dict[str, str])


class LogVolume(pulumi.ComponentResource):
    """The `_Default` log bucket's retention and the exclusions of noisy logs."""

    def __init__(
        self, name: str, args: LogVolumeArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("LogVolume"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        gcp.logging.ProjectBucketConfig(
            f"{name}-default-bucket",
            project=args.project,
            location="global",  # where Cloud Logging creates _Default
            bucket_id=DEFAULT_BUCKET,
            retention_days=args.retention_days,
            opts=child,
        )
        for key, log_filter in args.exclusions.items():
            gcp.logging.ProjectExclusion(
                f"{name}-exclude-{key}",
                name=resource_name(args.prefix, "exclude", key, max_length=100),
                project=args.project,
                description=f"mlgov: drop {key} logs before ingestion (billed per GiB)",
                filter=log_filter,
                opts=child,
            )
        self.register_outputs({})
