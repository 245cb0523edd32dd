"""Budget period arithmetic (govern/periods.py): Pacific midnights, DST, quarters, custom periods."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from govern import periods


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("period", "now", "start"),
    [
        # Google's documented notification: February 2021 began 2021-02-01T08:00:00Z (PST).
        ("MONTH", "2021-02-20T12:00:00", "2021-02-01T08:00:00"),
        # November 2026 began at midnight PDT (DST ended at 02:00 that morning).
        ("MONTH", "2026-11-21T05:00:00", "2026-11-01T07:00:00"),
        # 23:59 PST on November 30 is still November; 00:00 PST on December 1 is not.
        ("MONTH", "2026-12-01T07:59:59", "2026-11-01T07:00:00"),
        ("MONTH", "2026-12-01T08:00:00", "2026-12-01T08:00:00"),
        # In UTC it is already March 1; in Pacific time still February.
        ("MONTH", "2026-03-01T07:00:00", "2026-02-01T08:00:00"),
        # March 2026 begins in PST (DST starts March 8), April in PDT.
        ("MONTH", "2026-03-31T12:00:00", "2026-03-01T08:00:00"),
        ("MONTH", "2026-04-01T06:59:59", "2026-03-01T08:00:00"),
        ("MONTH", "2026-04-01T07:00:00", "2026-04-01T07:00:00"),
        # Calendar quarters start in January, April, July and October.
        ("QUARTER", "2026-11-21T05:00:00", "2026-10-01T07:00:00"),
        ("QUARTER", "2026-10-01T06:59:59", "2026-07-01T07:00:00"),
        ("QUARTER", "2026-01-01T07:59:59", "2025-10-01T07:00:00"),
        ("QUARTER", "2026-01-01T08:00:00", "2026-01-01T08:00:00"),
        ("QUARTER", "2026-06-30T23:00:00", "2026-04-01T07:00:00"),
        ("YEAR", "2026-11-21T05:00:00", "2026-01-01T08:00:00"),
        ("YEAR", "2026-01-01T07:59:59", "2025-01-01T08:00:00"),
        # A custom period starts on its start date, at Pacific midnight of that day.
        (date(2026, 10, 15), "2026-11-21T05:00:00", "2026-10-15T07:00:00"),
        (date(2026, 12, 15), "2026-11-21T05:00:00", "2026-12-15T08:00:00"),
    ],
)
def test_period_start_is_pacific_midnight(period, now, start):
    assert periods.period_start(period, utc(now)) == utc(start)


def test_a_naive_now_is_refused():
    with pytest.raises(ValueError, match="timezone-aware"):
        periods.period_start("MONTH", datetime(2026, 11, 21))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("MONTH", "MONTH"),
        ("QUARTER", "QUARTER"),
        ("YEAR", "YEAR"),
        ("2026-10-15", date(2026, 10, 15)),
    ],
)
def test_parse_period(text, expected):
    assert periods.parse_period(text) == expected


@pytest.mark.parametrize("text", ["month", "WEEK", "2026-13-01", "2026-1-1", "", "CUSTOM"])
def test_parse_period_refuses_anything_else(text):
    with pytest.raises(periods.PeriodError, match="MONTH, QUARTER, YEAR or a custom"):
        periods.parse_period(text)


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("2021-02-01T08:00:00Z", "2021-02-01T08:00:00"),
        ("2021-03-25T06:51:01.815-07:00", "2021-03-25T13:51:01.815"),  # Compute's format
        ("2022-07-14T07:54:28.028128572Z", "2022-07-14T07:54:28.028128"),  # nanoseconds
    ],
)
def test_parse_instant(text, instant):
    assert periods.parse_instant(text) == utc(instant)


@pytest.mark.parametrize("text", ["", "yesterday", "2021-02-01", "2021-02-01T08:00:00"])
def test_parse_instant_refuses_undated_or_zoneless_text(text):
    with pytest.raises(periods.PeriodError):
        periods.parse_instant(text)


NOV_21 = utc("2026-11-21T05:00:00")


@pytest.mark.parametrize(
    ("period", "cost_interval_start", "earlier"),
    [
        ("MONTH", "2026-10-01T07:00:00", True),  # October's message, delivered in November
        ("MONTH", "2026-11-01T07:00:00", False),
        # Stamped at UTC midnight (as Google's test message is): still this month's.
        ("MONTH", "2026-11-01T00:00:00", False),
        ("MONTH", "2026-10-31T06:59:59", True),  # more than a day before the start
        ("QUARTER", "2026-10-01T07:00:00", False),
        ("QUARTER", "2026-07-01T07:00:00", True),
        ("YEAR", "2026-01-01T08:00:00", False),
        ("YEAR", "2025-01-01T08:00:00", True),
        (date(2026, 11, 10), "2026-11-10T08:00:00", False),
        (date(2026, 11, 10), "2026-11-01T07:00:00", True),  # before the custom period began
    ],
)
def test_before_period(period, cost_interval_start, earlier):
    assert periods.before_period(utc(cost_interval_start), period, NOV_21) is earlier
