"""model.py: what the report draws, folded from plans and daily export rows (pure)."""

from __future__ import annotations

from datetime import date

import pytest

from governance.report.model import (
    MAX_RESOURCES,
    MAX_SERIES,
    NO_TEAM,
    OTHER,
    compared,
    daily,
    stack_cost,
)
from tests.conftest import STACKS
from tests.report.conftest import plan


@pytest.mark.parametrize("stack", STACKS)
def test_stack_cost_is_the_plans_estimate_split_by_type(stack: str) -> None:
    doc = plan(stack)
    cost = stack_cost(doc)
    custom = [r for r in doc["resources"] if not r["type"].startswith("mlgov:index:")]
    assert cost.stack == stack
    assert cost.monthly_usd == doc["cost"]["monthly_usd"]
    assert sum(cost.by_type.values()) == pytest.approx(sum(r["monthly_usd"] for r in custom))
    assert all(v > 0 for v in cost.by_type.values())
    assert cost.free == sum(
        1 for r in custom if round(r["monthly_usd"], 2) == 0 and "worst_case_monthly_usd" not in r
    )
    assert list(cost.by_type.values()) == sorted(cost.by_type.values(), reverse=True)
    assert "projects/IAMMember" not in cost.by_type  # free kinds draw no bar


def test_daily_fills_every_day_and_names_missing_teams() -> None:
    rows = [
        {"day": "2026-11-01", "team": "vision", "service": "Compute Engine", "net_cost": 2.5},
        {"day": "2026-11-01", "team": "", "service": "BigQuery", "net_cost": 1.0},
        {"day": "2026-11-03", "team": "vision", "service": "Compute Engine", "net_cost": 4.0},
        {"day": "2026-10-31", "team": "vision", "service": "Compute Engine", "net_cost": 99.0},
    ]
    teams = daily(rows, date(2026, 11, 1), date(2026, 11, 4), "team")
    assert teams.days == ("2026-11-01", "2026-11-02", "2026-11-03")
    assert teams.series == {"vision": (2.5, 0.0, 4.0), NO_TEAM: (1.0, 0.0, 0.0)}
    assert teams.total == 7.5  # the row before the window is left out
    services = daily(rows, date(2026, 11, 1), date(2026, 11, 4), "service")
    assert list(services.series) == ["Compute Engine", "BigQuery"]


def test_daily_folds_the_smallest_groups_into_other() -> None:
    rows = [
        {"day": "2026-11-01", "service": f"service {i:02}", "net_cost": float(100 - i)}
        for i in range(MAX_SERIES + 3)
    ]
    series = daily(rows, date(2026, 11, 1), date(2026, 11, 2), "service").series
    assert len(series) == MAX_SERIES
    assert list(series)[: MAX_SERIES - 1] == [f"service {i:02}" for i in range(MAX_SERIES - 1)]
    assert series[OTHER] == (sum(100.0 - i for i in range(MAX_SERIES - 1, MAX_SERIES + 3)),)


def test_compared_keeps_the_resources_worth_a_bar_largest_first() -> None:
    resources = [
        {"name": "tiny", "type": "gcp:pubsub/topic:Topic", "estimate_usd": 0.001, "actual_usd": None},
        {"name": "nb", "type": "gcp:workbench/instance:Instance", "estimate_usd": 40.0,
         "actual_usd": 52.0},
        {"name": "pool", "type": "gcp:container/nodePool:NodePool", "estimate_usd": 90.0,
         "actual_usd": None},
    ]  # fmt: skip
    got = compared(resources)
    assert [(c.name, c.type, c.actual) for c in got] == [
        ("pool", "container/NodePool", None),
        ("nb", "workbench/Instance", 52.0),
    ]
    many = [{"name": f"r{i}", "type": "t", "estimate_usd": i + 1.0} for i in range(40)]
    assert len(compared(many)) == MAX_RESOURCES
    assert compared(many)[0].name == "r39"
