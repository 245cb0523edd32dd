"""Scheduler model: a flat price per job, the first 3 jobs by name free."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from tests.costs.cost_plans import USAGE, price


def job(name: str) -> dict[str, object]:
    return {"type": "gcp:cloudscheduler/job:Job", "name": name, "inputs": {}}


def test_free_tier_covers_the_first_three_jobs_by_name():
    report = estimate_resources([job(n) for n in ("e", "d", "c", "b", "a")], USAGE)
    assert report.monthly_usd == pytest.approx(2 * price("scheduler.job", "global"))  # $0.20
    assert {r.name for r in report.resources if r.monthly_usd == 0} == {"a", "b", "c"}
    assert report.get("d").monthly_usd == pytest.approx(price("scheduler.job", "global"))


def test_three_jobs_cost_nothing():
    report = estimate_resources([job(n) for n in ("a", "b", "c")], USAGE)
    assert report.monthly_usd == 0
    assert report.get("a").lines[0].startswith("free tier: 3 jobs per billing account")
