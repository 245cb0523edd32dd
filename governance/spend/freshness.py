"""Is the billing export flowing, and does it cover the stack's projects? A pure verdict.

Google exports cost data to BigQuery "at regular intervals (there are no delivery or latency
guarantees for the export to BigQuery)", services report usage "at varying intervals"
(https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables, "Frequency of data
loads"), and "typically, your cost details are available within a day, but can sometimes take
more than 24 hours" (https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/
detailed-usage, "Differences between exported data and invoices"). `export_time` is "a
processing time associated with an append of Cloud Billing data" that "will always increase
with each new export"; the same page says to use it "to understand when the exported billing
data was last updated", so the newest `export_time` is the export's heartbeat. The export
counts as stale when that is more than 36 hours old (`STALE_AFTER`: the documented day of lag
plus half a day of margin; `--stale-hours` changes it). The freshness query reads only the
last `LOOKBACK_DAYS` daily partitions, so checking costs little however old the export is; a
project with no rows in them has had no cost exported lately: not linked to this billing
account, or new.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any, Literal

STALE_AFTER = timedelta(hours=36)
LOOKBACK_DAYS = 7

Verdict = Literal["ok", "stale", "projects missing"]


def lookback(now: datetime) -> tuple[datetime, datetime]:
    """The partitions the freshness query reads: the last LOOKBACK_DAYS days up to tomorrow."""
    today = datetime.combine(now.astimezone(UTC).date(), time(), UTC)
    return today - timedelta(days=LOOKBACK_DAYS), today + timedelta(days=1)


def _age(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:.0f} h" if hours < 48 else f"{hours / 24:.1f} days"


@dataclass(frozen=True)
class Freshness:
    """What the export's recent partitions say about it."""

    table: str
    latest_export_time: datetime | None
    projects: tuple[str, ...]
    projects_seen: tuple[str, ...]
    now: datetime
    stale_after: timedelta = STALE_AFTER

    @property
    def fresh(self) -> bool:
        """Whether the newest export is recent enough."""
        latest = self.latest_export_time
        return latest is not None and self.now - latest <= self.stale_after

    @property
    def projects_missing(self) -> tuple[str, ...]:
        """The stack's projects with no rows in the recent partitions."""
        seen = set(self.projects_seen)
        return tuple(p for p in self.projects if p not in seen)

    @property
    def verdict(self) -> Verdict:
        """`ok`, `stale` (export not recent), or `projects missing` (recent, but not all)."""
        if not self.fresh:
            return "stale"
        return "projects missing" if self.projects_missing else "ok"

    def message(self) -> str:
        """One sentence for people: what the verdict means and what to check."""
        latest = self.latest_export_time
        if latest is None:
            return (
                f"export is stale: no rows exported to {self.table} in the last "
                f"{LOOKBACK_DAYS} days; check Billing > Billing export in the console"
            )
        stamp = latest.strftime("%Y-%m-%dT%H:%M:%SZ")
        if not self.fresh:
            return (
                f"export is stale: newest export_time {stamp} is {_age(self.now - latest)} old "
                f"(more than {_age(self.stale_after)}); Cloud Billing may be late, or the export "
                "was turned off: check Billing > Billing export in the console"
            )
        if self.projects_missing:
            return (
                f"export is current ({stamp}) but has no cost for "
                f"{', '.join(self.projects_missing)} in the last {LOOKBACK_DAYS} days: is the "
                "project linked to this billing account?"
            )
        return f"export is current: newest export_time {stamp}"

    def as_dict(self) -> dict[str, Any]:
        """The freshness part of the report's `export` object."""
        latest = self.latest_export_time
        return {
            "latest_export_time": latest.strftime("%Y-%m-%dT%H:%M:%SZ") if latest else None,
            "fresh": self.fresh,
            "verdict": self.verdict,
            "stale_after_hours": self.stale_after.total_seconds() / 3600,
            "projects_missing": list(self.projects_missing),
            "message": self.message(),
        }


def assess(
    table: str,
    rows: Iterable[Mapping[str, Any]],
    projects: Sequence[str],
    now: datetime,
    stale_after: timedelta = STALE_AFTER,
) -> Freshness:
    """The verdict from the freshness query's rows (project_id, latest_export_time)."""
    latest: datetime | None = None
    seen: list[str] = []
    for row in rows:
        when = row.get("latest_export_time")
        if isinstance(when, datetime) and (latest is None or when > latest):
            latest = when
        project = row.get("project_id")
        if isinstance(project, str):
            seen.append(project)
    return Freshness(table, latest, tuple(projects), tuple(sorted(seen)), now, stale_after)
