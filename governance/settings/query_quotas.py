"""`bigquery_quotas`: daily query-bytes caps (component: components/query_quotas.py).

BigQuery's custom quotas cap the bytes on-demand queries may process per day, for the whole
project (`QueryUsagePerDay`) and for each user or service account (`QueryUsagePerUserPerDay`);
https://cloud.google.com/bigquery/docs/custom-quotas . An unset key takes its environment's
default (`ENV_DEFAULTS`), so `bigquery_quotas: {}` caps both. `problems` keeps the per-user cap
under the project cap and both under BigQuery's own default limit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Protocol

from pydantic import Field

from governance.settings.base import Model, Problem

if TYPE_CHECKING:
    from governance.settings.base import Environment

# QueryUsagePerDay defaults to 200 TiB per project per day, and a consumer override cannot grant
# more than the default (https://cloud.google.com/bigquery/docs/custom-quotas; serviceusage
# v1beta1 QuotaOverride: "cannot be used to grant more quota than would be allowed by ... the
# default limit of the service").
BIGQUERY_DEFAULT_TIB_PER_DAY = 200.0

TibPerDay = Annotated[float, Field(gt=0, le=BIGQUERY_DEFAULT_TIB_PER_DAY)]


class QueryQuotaSettings(Model):
    """Daily query-bytes caps in TiB (binary: 1 TiB = 1,048,576 MiB, the quota's unit)."""

    project_tib_per_day: TibPerDay | None = None
    user_tib_per_day: TibPerDay | None = None


# dev and staging analysts share small caps; prod pipelines get room, one person does not.
ENV_DEFAULTS: Mapping[str, tuple[float, float]] = {
    "dev": (1.0, 0.25),
    "staging": (2.0, 0.5),
    "prod": (10.0, 2.0),
}


class _QueryQuotasStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def environment(self) -> Environment: ...

    @property
    def bigquery_quotas(self) -> QueryQuotaSettings | None: ...


def resolved(s: _QueryQuotasStack) -> tuple[float, float]:
    """(project TiB/day, per-user TiB/day) with the environment's defaults filled in."""
    assert s.bigquery_quotas is not None  # noqa: S101 - callers check the section first
    project, user = ENV_DEFAULTS[s.environment]
    q = s.bigquery_quotas
    return (
        q.project_tib_per_day if q.project_tib_per_day is not None else project,
        q.user_tib_per_day if q.user_tib_per_day is not None else user,
    )


def problems(s: _QueryQuotasStack) -> Iterator[Problem]:
    """A per-user cap above the project cap never binds."""
    if s.bigquery_quotas is None:
        return
    project, user = resolved(s)
    if user > project:
        yield (
            "bigquery_quotas.user_tib_per_day",
            f"{user:g} TiB/day is above the project cap ({project:g} TiB/day) and would never "
            "bind; lower it or raise project_tib_per_day",
        )
