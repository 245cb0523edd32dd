"""A stack's spend for the report: `spend`'s own report plus one query for the daily bars.

`stack_spend` runs `spend`'s report (governance/spend/report.py: freshness, attribution, and the
plan's estimates against billed cost per resource) and daily.sql (net cost per UTC day by service
and `team` label) through the same runner, so the page and `mlgov spend` read the same export
with the same byte cap, timeouts and error messages. SpendError is the caller's to report.
"""

from __future__ import annotations

from datetime import date, datetime
from functools import cache
from importlib import resources
from typing import Any

from governance.report.model import StackSpend, compared, daily
from governance.spend import report
from governance.spend.attribution import UNLABELLED_KEY as TEAM  # the label naming the team
from governance.spend.queries import Param, Query
from governance.spend.runner import QueryRunner
from governance.spend.tables import TableId
from governance.spend.window import Window


@cache
def _template() -> str:
    text = resources.files("governance.report").joinpath("daily.sql").read_text("utf-8")
    # Comment lines are for people reading the file; the emulator counts `@name`s in them.
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))


def daily_query(table: TableId, window: Window, projects: tuple[str, ...]) -> Query:
    """Net cost per day, service and team over the window (daily.sql with its parameters)."""
    params = (
        Param("partition_start", "TIMESTAMP", window.partition_start),
        Param("partition_end", "TIMESTAMP", window.partition_end),
        Param("start", "TIMESTAMP", window.start_time),
        Param("end", "TIMESTAMP", window.end_time),
        Param("projects", "STRING", projects),
        Param("team_key", "STRING", TEAM),
    )
    return Query("daily", table, _template().replace("{table}", table.sql) + "\n", params)


def stack_spend(runner: QueryRunner, request: report.SpendRequest, now: datetime) -> StackSpend:
    """What the stack's export says over the request's window (SpendError when it cannot)."""
    spent: dict[str, Any] = report.build_report(runner, request, now)
    window = request.window
    rows = runner.run(daily_query(request.tables.standard, window, request.projects))
    start, end = date.fromisoformat(spent["window"]["start"]), window.end
    return StackSpend(
        stack=request.stack,
        start=start.isoformat(),
        end=end.isoformat(),
        currency=str(spent["currency"]),
        net_cost=float(spent["net_cost"]),
        by_team=daily(rows, start, end, "team"),
        by_service=daily(rows, start, end, "service"),
        resources=compared(spent["resources"]),
        notes=tuple(str(note) for note in spent["notes"]),
    )
