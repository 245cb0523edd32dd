"""QueryQuotas: BigQuery's daily query-bytes caps as Service Usage consumer quota overrides.

One override per cap on `bigquery.googleapis.com/quota/query/usage`: limit `/d/project` (the
console's QueryUsagePerDay) and `/d/project/user` (QueryUsagePerUserPerDay), in MiB per day, the
metric's unit (serviceusage v1beta1 `consumerQuotaMetrics/{metric}/limits/{limit}/
consumerOverrides`; https://cloud.google.com/bigquery/docs/custom-quotas). Which caps apply per
environment is settings/query_quotas.py's business; the estimator shows their worst case.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

import pulumi
import pulumi_gcp as gcp

from mlgov_policies.vocabulary import (
    BQ_QUERY_QUOTA_METRIC,
    BQ_QUERY_QUOTA_PROJECT_LIMIT,
    BQ_QUERY_QUOTA_USER_LIMIT,
    component_type,
)

SERVICE = "bigquery.googleapis.com"
MIB_PER_TIB = 1024 * 1024


@dataclass(frozen=True, kw_only=True)
class QueryQuotasArgs:
    """Daily caps in TiB (None: no override for that limit)."""

    project: str
    project_tib_per_day: float | None = None
    user_tib_per_day: float | None = None


def override_value(tib_per_day: float) -> str:
    """A cap in the quota's unit, MiB per day, as the string the API takes (int64)."""
    return str(round(tib_per_day * MIB_PER_TIB))


class QueryQuotas(pulumi.ComponentResource):
    """The project's and each user's daily cap on bytes processed by on-demand queries."""

    def __init__(
        self, name: str, args: QueryQuotasArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("QueryQuotas"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        caps = (("project", BQ_QUERY_QUOTA_PROJECT_LIMIT, args.project_tib_per_day),
                ("user", BQ_QUERY_QUOTA_USER_LIMIT, args.user_tib_per_day))  # fmt: skip
        for role, limit, tib in caps:
            if tib is None:
                continue
            gcp.serviceusage.ConsumerQuotaOverride(
                f"{name}-{role}",
                project=args.project,
                service=SERVICE,
                # The provider puts metric and limit into the request path: URL-encoded, as its
                # documentation's examples (urlencode(...)) do.
                metric=quote(BQ_QUERY_QUOTA_METRIC, safe=""),
                limit=quote(limit, safe=""),
                override_value=override_value(tib),
                # Lowering a quota by more than 10% is refused unless forced; a cap is a cut.
                force=True,
                opts=child,
            )
        self.register_outputs({})
