"""Office-hours windows: how many hours a month a notebook's start/stop Scheduler jobs allow.

NotebookFleet schedules a notebook with two Cloud Scheduler jobs calling the Notebooks API's
`.../instances/<name>:start` and `:stop`. Only simple weekly crons (`M H * * DOW`) are credited;
anything else counts as no schedule. The Workbench cost model caps billed hours with the window;
the estimate builds the notebook -> hours map once per plan (context.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH, WEEKS_PER_MONTH
from mlgov_policies.props import as_str, dig

_SCHEDULE_URI = re.compile(r"/instances/([^/:]+):(start|stop)$")
_DOW_NAMES = {"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}
_WEEK_MINUTES = 7 * 1440


def _dow(field: str) -> set[int] | None:
    days: set[int] = set()
    for part in field.lower().split(","):
        if part == "*":
            return set(range(7))
        lo, _, hi = part.partition("-")
        try:
            a = _DOW_NAMES[lo] if lo in _DOW_NAMES else int(lo)
            b = (_DOW_NAMES[hi] if hi in _DOW_NAMES else int(hi)) if hi else a
        except ValueError:
            return None
        days.update(d % 7 for d in range(a, b + 1))
    return days


def _cron_minutes(schedule: str) -> list[int] | None:
    """Minutes-of-week at which a simple `M H * * DOW` cron fires (None if not that form)."""
    parts = schedule.split()
    if len(parts) != 5 or parts[2] != "*" or parts[3] != "*":
        return None
    if not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    days = _dow(parts[4])
    if days is None:
        return None
    at = int(parts[1]) * 60 + int(parts[0])
    return sorted(d * 1440 + at for d in days)


def window_hours_per_month(start_cron: str, stop_cron: str) -> float | None:
    """Hours per month between each start and the next stop; None if a cron is not simple."""
    starts, stops = _cron_minutes(start_cron), _cron_minutes(stop_cron)
    if not starts or not stops:
        return None
    minutes = 0
    for s in starts:
        minutes += min((t - s) % _WEEK_MINUTES or _WEEK_MINUTES for t in stops)
    return min(minutes / 60 * WEEKS_PER_MONTH, HOURS_PER_MONTH)


def notebook_windows(jobs: Iterable[Resource]) -> dict[str, float]:
    """Notebook GCP name -> hours/month its start and stop jobs allow (Scheduler jobs in)."""
    crons: dict[str, dict[str, str]] = {}
    for job in jobs:
        uri = as_str(dig(job.inputs, "httpTarget", "uri")) or ""
        if m := _SCHEDULE_URI.search(uri):
            crons.setdefault(m.group(1), {})[m.group(2)] = as_str(job.inputs.get("schedule")) or ""
    windows: dict[str, float] = {}
    for notebook, pair in crons.items():
        if "start" in pair and "stop" in pair:
            hours = window_hours_per_month(pair["start"], pair["stop"])
            if hours is not None:
                windows[notebook] = hours
    return windows
