"""How often a Cloud Scheduler schedule runs: its longest gap between runs, and runs per year.

Cloud Scheduler takes unix-cron (five fields). What governs a reaper is the longest it can leave a
workload running: the longest gap between two consecutive runs (`* * 1 * *` runs 1,440 times on
the first of the month and then not for 30 days; counting runs would call it "every 30 min").
"Rarer" is judged by that gap (`longest_gap_minutes`), over the eight years 2025-2032 (two leap
years, so a February 29 schedule shows its four-year gap); runs per year (the four years
2025-2028, one leap year, every weekday on every date, divided by four) are shown beside it.
The expression is parsed by cronsim (the library Healthchecks.io runs every cron check with;
Debian/Vixie semantics: day-of-month and day-of-week are ORed unless one is `*`). Neither figure
steps minute by minute (a `* * * * *` year is 525,600 steps): per day, cronsim's own day matcher
decides whether the day runs, and every running day runs at the same `hours x minutes` times.
Wall clock time, so both ignore the hour a DST switch adds or drops, for both sides alike.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from functools import cache
from itertools import pairwise

from cronsim import CronSim, CronSimError

SPAN_START = date(2025, 1, 1)
SPAN_DAYS = 4 * 365 + 1
YEARS = 4
GAP_SPAN_DAYS = 8 * 365 + 2
MINUTES_PER_DAY = 24 * 60


class CronError(ValueError):
    """A schedule cronsim cannot parse."""


def _parsed(expression: str) -> CronSim:
    fields = expression.split()
    if len(fields) != 5:
        raise CronError(f"{expression!r} is not a five-field unix-cron schedule")
    try:
        return CronSim(expression, datetime(2025, 1, 1, tzinfo=UTC))
    except CronSimError as err:
        raise CronError(f"{expression!r}: {err}") from None


def _running_days(sim: CronSim, days: int) -> list[int]:
    """Offsets from SPAN_START of the days the schedule runs on (cronsim's own day rules)."""
    found: list[int] = []
    for offset in range(days):
        day = SPAN_START + timedelta(days=offset)
        if day.month in sim.months and sim.match_day(day):
            found.append(offset)
    return found


@cache
def runs_per_year(expression: str) -> float:
    """Mean runs per year of a five-field unix-cron `expression`; CronError if it is not one."""
    sim = _parsed(expression)
    per_day = len(sim.hours) * len(sim.minutes)
    return len(_running_days(sim, SPAN_DAYS)) * per_day / YEARS


@cache
def longest_gap_minutes(expression: str) -> float:
    """The longest wait between two consecutive runs, in minutes (wall clock); CronError if bad.

    Every running day runs at the same times of day (hours x minutes), so the gaps are the ones
    inside a day and the ones from a running day's last run to the next running day's first.
    `math.inf` when the schedule runs on fewer than two days in eight years.
    """
    sim = _parsed(expression)
    times = sorted(h * 60 + m for h in sim.hours for m in sim.minutes)
    days = _running_days(sim, GAP_SPAN_DAYS)
    if not times or len(days) < 2:
        return math.inf
    inside = max((b - a for a, b in pairwise(times)), default=0)
    across = max((b - a) * MINUTES_PER_DAY - times[-1] + times[0] for a, b in pairwise(days))
    return float(max(inside, across))


def describe_gap(minutes: float) -> str:
    """`at most 60 min between runs`, `up to 30.0 days between runs`: the longest gap in words."""
    if math.isinf(minutes):
        return "runs on at most one day in eight years"
    if minutes < 90:
        return f"at most {minutes:.0f} min between runs"
    if minutes < 36 * 60:
        return f"up to {minutes / 60:.1f} h between runs"
    return f"up to {minutes / MINUTES_PER_DAY:.1f} days between runs"


def cadence(expression: str) -> str:
    """The longest gap and the runs per year of a schedule, as one phrase; CronError if bad."""
    runs = runs_per_year(expression)
    if runs <= 0:
        return "never runs"
    return f"{describe_gap(longest_gap_minutes(expression))} ({runs:,.0f} runs/year)"


def describe(runs: float) -> str:
    """`8,760 runs/year`, `about every 30 minutes`: how often, in words a reviewer reads."""
    if runs <= 0:
        return "never runs"
    minutes = 365.25 * 24 * 60 / runs
    if minutes < 90:
        every = f"every {minutes:.0f} min"
    elif minutes < 36 * 60:
        every = f"every {minutes / 60:.1f} h"
    else:
        every = f"every {minutes / 1440:.1f} days"
    return f"{runs:,.0f} runs/year, about {every}"
