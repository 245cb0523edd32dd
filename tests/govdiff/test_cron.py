"""Runs per year from a cron expression: the per-day count equals cronsim's own iteration."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from cronsim import CronSim

from governance.review.govdiff.cron import CronError, describe, runs_per_year


def _iterated(expression: str) -> float:
    """Runs over 2025-2028 by stepping cronsim run by run (the slow, obvious count)."""
    start, end = datetime(2024, 12, 31, 23, 59, tzinfo=UTC), datetime(2029, 1, 1, tzinfo=UTC)
    runs = 0
    for when in CronSim(expression, start):
        if when >= end:
            break
        runs += 1
    return runs / 4


@pytest.mark.parametrize(
    "expression",
    ["0 * * * *", "30 6 * * *", "0 20 * * 1-5", "0 0 1 * MON", "0 0 29 2 *", "*/15 9-17 * * *",
     "0 0 1 1 *", "0 12 L * *", "5 4 * JAN,JUL SUN"],
)  # fmt: skip
def test_counting_per_day_matches_iterating_run_by_run(expression: str) -> None:
    assert runs_per_year(expression) == _iterated(expression)


def test_known_counts_and_order() -> None:
    assert runs_per_year("* * * * *") == 365.25 * 24 * 60
    assert runs_per_year("*/30 * * * *") == 365.25 * 48
    assert runs_per_year("0 0 1 1 *") == 1
    # OR of day-of-month and day-of-week when neither is `*` (Vixie cron, as Cloud Scheduler)
    assert runs_per_year("0 0 1 * MON") > runs_per_year("0 0 * * MON")
    assert describe(runs_per_year("0 * * * *")) == "8,766 runs/year, about every 60 min"
    assert describe(0) == "never runs"


@pytest.mark.parametrize("bad", ["", "* * * *", "61 * * * *", "* * * * * *", "0 0 31 2 *"])
def test_a_schedule_that_is_not_five_field_cron_is_refused(bad: str) -> None:
    with pytest.raises(CronError):
        runs_per_year(bad)
