"""How often a Cloud Scheduler schedule runs: runs per year, counted from the cron expression.

Cloud Scheduler takes unix-cron (five fields). "Rarer" is judged by counting the runs a schedule
makes over one fixed span: the four years 2025-2028 (one leap year, every weekday on every date),
divided by four. The expression is parsed by cronsim (the library Healthchecks.io runs every cron
check with; Debian/Vixie semantics: day-of-month and day-of-week are ORed unless one is `*`). The
count does not step minute by minute (a `* * * * *` year is 525,600 steps): per day, cronsim's
own day matcher decides whether the day runs, and a running day runs `hours x minutes` times. Wall
clock time, so the count ignores the hour a DST switch adds or drops, for both sides alike.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import cache

from cronsim import CronSim, CronSimError

SPAN_START = date(2025, 1, 1)
SPAN_DAYS = 4 * 365 + 1
YEARS = 4


class CronError(ValueError):
    """A schedule cronsim cannot parse."""


@cache
def runs_per_year(expression: str) -> float:
    """Mean runs per year of a five-field unix-cron `expression`; CronError if it is not one."""
    fields = expression.split()
    if len(fields) != 5:
        raise CronError(f"{expression!r} is not a five-field unix-cron schedule")
    try:
        sim = CronSim(expression, datetime(2025, 1, 1, tzinfo=UTC))
    except CronSimError as err:
        raise CronError(f"{expression!r}: {err}") from None
    per_day = len(sim.hours) * len(sim.minutes)
    days = 0
    for offset in range(SPAN_DAYS):
        day = SPAN_START + timedelta(days=offset)
        if day.month in sim.months and sim.match_day(day):
            days += 1
    return days * per_day / YEARS


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
