"""The reporting window and the partitions a query must read to see all of it.

A window is whole UTC days, `[start, end)`: `--days 30` ends at today's midnight (today is
incomplete, so it is left out) and starts 30 days earlier; `--month 2026-10` is that calendar
month. Rows are selected by `usage_start_time` in the window: the start of the "hourly usage
window within which the given cost was calculated"
(https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/detailed-usage).

What is documented about partitions and late rows (tests/spend/data/SOURCES.md):

- Google does not describe the partitioning in words, but its example queries on the
  detailed-usage page filter on `DATE(TIMESTAMP_TRUNC(_PARTITIONTIME, DAY))`, so the table is
  ingestion-time partitioned by day (a public dump of both tables' definitions agrees: DAY
  partitioning on no column). Which day a row is filed under is not documented, so the
  filter does not assume it is the usage day.
- Cost data is "typically ... available within a day, but can sometimes take more than 24
  hours", and exports come "at regular intervals" with "no delivery or latency guarantees"
  (same page, and https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables).
- Corrections are appended as new rows that keep the original usage times but have a new
  `export_time`; Google's example is a correction issued on February 2 for usage on January 1.

So the partition filter is wider than the window: one day earlier (a partition day need not be
a UTC day) and `LATE_DAYS` later, so rows filed up to a week after the window still count.
Corrections issued later than that are missed if their partition follows their export; a
review that must match an invoice should use the invoice month, as Google advises, not a usage
window. The cost of the slack is 8 extra daily partitions on a 30-day read (~25%), paid only
when the window ends in the past; for a window ending today the later bound is in the future
and reads nothing extra.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from governance.spend.errors import SpendError

EARLY_DAYS = 1
LATE_DAYS = 7
MAX_DAYS = 400  # a bit over a year: longer reads belong in a scheduled query, not a CLI run


@dataclass(frozen=True)
class Window:
    """Whole UTC days from `start` (inclusive) to `end` (exclusive)."""

    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end <= self.start:
            raise SpendError(f"window: end {self.end} must be after start {self.start}")

    @property
    def days(self) -> int:
        """How many days the window spans."""
        return (self.end - self.start).days

    @property
    def start_time(self) -> datetime:
        """Midnight UTC at the start."""
        return datetime.combine(self.start, time(), UTC)

    @property
    def end_time(self) -> datetime:
        """Midnight UTC at the (exclusive) end."""
        return datetime.combine(self.end, time(), UTC)

    @property
    def partition_start(self) -> datetime:
        """The earliest `_PARTITIONTIME` that can hold rows of the window."""
        return self.start_time - timedelta(days=EARLY_DAYS)

    @property
    def partition_end(self) -> datetime:
        """The (exclusive) latest `_PARTITIONTIME` read: late rows up to LATE_DAYS after."""
        return self.end_time + timedelta(days=LATE_DAYS)

    def as_dict(self) -> dict[str, str]:
        """`{"start": "YYYY-MM-DD", "end": "YYYY-MM-DD"}` (end exclusive), as in `--json`."""
        return {"start": self.start.isoformat(), "end": self.end.isoformat()}


def last_days(days: int, today: date) -> Window:
    """The `days` whole days before `today` (today itself is incomplete, so it is left out)."""
    if not 1 <= days <= MAX_DAYS:
        raise SpendError(f"--days: {days} is out of range; use 1 to {MAX_DAYS}")
    return Window(today - timedelta(days=days), today)


def month(text: str) -> Window:
    """The calendar month `YYYY-MM` (the invoice month a monthly review looks at)."""
    found = re.fullmatch(r"(\d{4})-(\d{2})", text)
    if found is None or not 1 <= int(found.group(2)) <= 12:
        raise SpendError(f"--month: {text!r} is not a month like 2026-10")
    year, number = int(found.group(1)), int(found.group(2))
    start = date(year, number, 1)
    end = date(year + number // 12, number % 12 + 1, 1)
    return Window(start, end)
