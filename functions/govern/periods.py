"""Budget periods: when the current one starts, and whether a message is of an earlier one.

A Cloud Billing budget counts spend per calendar month (the default), quarter or year, or over one
custom date range, and every period starts at midnight US/Pacific: Google's documented notification
carries `costIntervalStart: 2021-02-01T08:00:00Z`, midnight PST on February 1
(tests/functions/data/SOURCES.md). A notification's `costIntervalStart` names the period it reports
on, so a message delivered late (Pub/Sub retries a failed delivery for hours, in no set order) can
be told from one about the current period. Pure and standard library only (zoneinfo; the `tzdata`
package backs it where the system has no time zone database).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Final, Literal
from zoneinfo import ZoneInfo

Calendar = Literal["MONTH", "QUARTER", "YEAR"]
Period = Calendar | date
"""A calendar period, or the start date of a custom period (which never repeats)."""

CALENDAR: Final[tuple[Calendar, ...]] = ("MONTH", "QUARTER", "YEAR")
PACIFIC: Final = ZoneInfo("America/Los_Angeles")
SLACK: Final = timedelta(days=1)
"""How far before the period's start a costIntervalStart may lie and still be of this period.

Periods are at least 28 days apart, so a day never admits an earlier one; it absorbs an interval
stamped at UTC rather than Pacific midnight (Google's own test message for budget functions,
tests/functions/data/budget-notification-test-message-listen-to-notifications.json, says
2019-01-01T00:00:00Z) and a daylight-saving hour.
"""


class PeriodError(ValueError):
    """A period spec or a costIntervalStart that cannot be read."""


def parse_period(text: str) -> Period:
    """`MONTH`, `QUARTER`, `YEAR` or a custom period's start date `YYYY-MM-DD`.

    Raises:
        PeriodError: anything else.
    """
    if text in CALENDAR:
        return text
    try:
        if len(text) == 10:
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise PeriodError(
        f"must be MONTH, QUARTER, YEAR or a custom period's start date YYYY-MM-DD, got {text!r}"
    )


def period_start(period: Period, now: datetime) -> datetime:
    """The start (UTC) of the period `now` falls in: midnight US/Pacific of its first day.

    A custom period starts on its start date, whenever `now` is.

    Raises:
        ValueError: `now` has no time zone (a naive time could be anyone's).
    """
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    local = now.astimezone(PACIFIC).date()
    if isinstance(period, date):
        first = period
    elif period == "MONTH":
        first = local.replace(day=1)
    elif period == "QUARTER":
        first = date(local.year, 3 * ((local.month - 1) // 3) + 1, 1)
    else:
        first = date(local.year, 1, 1)
    # Midnight local time on `first`, whatever its UTC offset that day (PST or PDT).
    midnight = datetime(first.year, first.month, first.day, tzinfo=PACIFIC)
    return midnight.astimezone(UTC)


def parse_instant(text: str) -> datetime:
    """An RFC 3339 timestamp (`2021-02-01T08:00:00Z`, `...-07:00`, fractional seconds) in UTC.

    Raises:
        PeriodError: not such a timestamp, or one without a time zone.
    """
    try:
        value = datetime.fromisoformat(text)  # 3.11 reads Z, offsets and nanoseconds
    except ValueError:
        raise PeriodError(f"not an RFC 3339 timestamp: {text!r}") from None
    if value.tzinfo is None:
        raise PeriodError(f"timestamp without a time zone: {text!r}")
    return value.astimezone(UTC)


def before_period(cost_interval_start: datetime, period: Period, now: datetime) -> bool:
    """Whether a message's cost interval began before the current period (by more than SLACK)."""
    return cost_interval_start < period_start(period, now) - SLACK


def describe(period: Period) -> str:
    """`MONTH`, or `custom period from 2026-10-15`, for messages."""
    return f"custom period from {period.isoformat()}" if isinstance(period, date) else period
