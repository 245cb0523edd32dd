"""Office-hours windows from simple weekly crons, and the notebook -> window map of a plan."""

from __future__ import annotations

import pytest
from cost_plans import office_hours

from governance.costs.model import Resource
from governance.costs.office_hours import notebook_windows, window_hours_per_month

WEEK_TO_MONTH = 730 / 168


def test_weekday_window():
    assert window_hours_per_month("0 8 * * 1-5", "0 19 * * 1-5") == pytest.approx(
        55 * WEEK_TO_MONTH
    )
    assert window_hours_per_month("30 7 * * MON-FRI", "30 18 * * MON-FRI") == pytest.approx(
        55 * WEEK_TO_MONTH
    )


def test_start_monday_stop_friday_runs_through_the_week():
    assert window_hours_per_month("0 8 * * 1", "0 18 * * 5") == pytest.approx(
        (4 * 24 + 10) * WEEK_TO_MONTH
    )


def test_non_simple_cron_is_not_credited():
    assert window_hours_per_month("*/5 * * * *", "0 19 * * 1-5") is None
    assert window_hours_per_month("0 8 1 * *", "0 19 * * 1-5") is None


def test_notebook_windows_pairs_start_and_stop_jobs():
    jobs = [Resource.from_plan(j) for j in office_hours("acme-dev-nb-alice")]
    assert notebook_windows(jobs) == {"acme-dev-nb-alice": pytest.approx(55 * WEEK_TO_MONTH)}
    assert notebook_windows(jobs[:1]) == {}  # a start without a stop bounds nothing
