"""`logging`: what Cloud Logging keeps and how long (component: components/log_volume.py).

Two levers from Cloud Logging pricing (https://cloud.google.com/stackdriver/pricing): ingestion
is billed per GiB (exclusions drop noisy logs before they are ingested), and logs kept in a log
bucket longer than 30 days are billed per GiB-month (`retention_days` of the `_Default` bucket).
An unset key takes its environment's default. `problems` keeps retention under the environment's
`limits.max_log_retention_days`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Literal, Protocol

from pydantic import Field

from governance.settings.base import Model, Problem

if TYPE_CHECKING:
    from governance.settings.base import Environment
    from governance.settings.limits import Limits

Exclusion = Literal["gke-debug", "gke-info", "dataflow-debug", "dataflow-info"]

# LogSeverity orders DEFAULT(0) < DEBUG(100) < INFO(200) < NOTICE < WARNING < ERROR ...
# (logging.v2 discovery document, LogEntry.severity), so `severity<=INFO` keeps nothing below
# NOTICE. GKE container logs are `k8s_container`, Dataflow job logs `dataflow_step` (Cloud
# Logging monitored resource types); audit logs use other resource types and stay untouched.
EXCLUSION_FILTERS: Mapping[str, str] = {
    "gke-debug": 'resource.type="k8s_container" AND severity<=DEBUG',
    "gke-info": 'resource.type="k8s_container" AND severity<=INFO',
    "dataflow-debug": 'resource.type="dataflow_step" AND severity<=DEBUG',
    "dataflow-info": 'resource.type="dataflow_step" AND severity<=INFO',
}

# dev and staging drop routine container and Dataflow chatter; prod drops only debug output.
ENV_DEFAULTS: Mapping[str, tuple[int, tuple[Exclusion, ...]]] = {
    "dev": (30, ("gke-info", "dataflow-info")),
    "staging": (30, ("gke-info", "dataflow-info")),
    "prod": (90, ("gke-debug", "dataflow-debug")),
}


class LoggingSettings(Model):
    """The `_Default` log bucket's retention and the exclusions of noisy logs."""

    # The `_Default` bucket keeps logs 30 days unless told otherwise; longer costs money.
    retention_days: Annotated[int, Field(ge=1, le=3650)] | None = None
    exclusions: tuple[Exclusion, ...] | None = None


class _LoggingStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def environment(self) -> Environment: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def logging(self) -> LoggingSettings | None: ...


def resolved(s: _LoggingStack) -> tuple[int, tuple[Exclusion, ...]]:
    """(retention days, exclusions) with the environment's defaults filled in."""
    assert s.logging is not None  # noqa: S101 - callers check the section first
    days, exclusions = ENV_DEFAULTS[s.environment]
    return (
        s.logging.retention_days if s.logging.retention_days is not None else days,
        s.logging.exclusions if s.logging.exclusions is not None else exclusions,
    )


def problems(s: _LoggingStack) -> Iterator[Problem]:
    """Retention within the environment's maximum."""
    if s.logging is None:
        return
    days, _ = resolved(s)
    ceiling = s.limits.max_log_retention_days
    if days > ceiling:
        yield (
            "logging.retention_days",
            f"{days} is above the {s.environment} maximum of {ceiling}; logs kept past 30 days "
            "are billed per GiB-month (lower it or raise limits.max_log_retention_days)",
        )
