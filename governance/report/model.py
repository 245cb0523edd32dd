"""What the report draws, folded from plan documents and billing export rows. Pure.

`stack_cost(plan)` sums a plan's estimate per resource type (the same rows the plan table shows:
components left out, the $0.00 resources counted apart, render.is_free); `daily(rows, window,
key)` turns the daily query's rows (daily.sql) into one series per team or per service over
every day of the window, biggest first, the smallest folded into "other" so a chart stays
readable; `compared(spend_report)` picks the resources worth a bar from `spend`'s estimate
against actual. Charts are charts.py's business, the page page.py's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Literal

from governance.costs.budget_fit import budget_amount
from governance.costs.errors import CostError
from governance.review.render import is_free, ordered, short_type
from mlgov_policies.props import as_list, as_mapping, dig
from mlgov_policies.vocabulary import BUDGET

NO_TEAM = "(no team label)"
OTHER = "other"
MAX_SERIES = 8  # series per daily chart; the rest are one "other" series
MAX_RESOURCES = 20  # bars per estimate-against-actual chart, the largest first


@dataclass(frozen=True)
class StackCost:
    """One stack's monthly estimate, in total and per resource type."""

    stack: str
    monthly_usd: float
    by_type: Mapping[str, float]  # short type -> $/month, priced resources above $0.00
    free: int  # resources estimated at $0.00
    unpriced: int  # resources with no price (not in any total)
    baseline_usd: float | None = None  # the same resources ungoverned (the plan's baseline)
    budget_usd: float | None = None  # the stack's budget on all services (the smallest)

    @property
    def savings_usd(self) -> float | None:
        """What governance saves a month against the ungoverned baseline."""
        return None if self.baseline_usd is None else self.baseline_usd - self.monthly_usd


def stack_budget(plan: Mapping[str, Any]) -> float | None:
    """The monthly USD of the plan's budget on all services (the smallest of several), if any.

    A budget filtered to some services (a spend cap's) bounds only their spend, as the
    budget-fit findings read it (governance/costs/budget_fit.py).
    """
    amounts: list[float] = []
    for raw in as_list(plan.get("resources")):
        r = as_mapping(raw)
        if r.get("type") != BUDGET:
            continue
        inputs = as_mapping(r.get("inputs"))
        if as_list(dig(inputs, "budgetFilter", "services")):
            continue
        try:
            amounts.append(budget_amount(str(r.get("name")), inputs))
        except CostError:
            continue  # unreadable: the plan's own findings name it
    return min(amounts) if amounts else None


def stack_cost(plan: Mapping[str, Any]) -> StackCost:
    """The estimate of a plan document, per resource type."""
    shown, free = ordered(plan)
    by_type: dict[str, float] = defaultdict(float)
    unpriced = 0
    for r in shown:
        monthly = r.get("monthly_usd")
        if r.get("unpriced") or not isinstance(monthly, int | float):
            unpriced += 1
        elif not is_free(r) and monthly > 0:
            by_type[short_type(str(r.get("type")))] += float(monthly)
    cost: Mapping[str, Any] = plan.get("cost") or {}
    total = cost.get("monthly_usd")
    baseline = cost.get("baseline_monthly_usd")
    return StackCost(
        stack=str(plan.get("stack") or "?"),
        monthly_usd=float(total) if isinstance(total, int | float) else sum(by_type.values()),
        by_type=dict(sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0]))),
        free=len(free),
        unpriced=unpriced,
        baseline_usd=float(baseline) if isinstance(baseline, int | float) else None,
        budget_usd=stack_budget(plan),
    )


@dataclass(frozen=True)
class DailySeries:
    """Stacked daily bars: the days of the window and one value per day for each group."""

    days: tuple[str, ...]
    series: Mapping[str, tuple[float, ...]]  # group -> net cost per day, biggest group first

    @property
    def total(self) -> float:
        """The sum over every group and day."""
        return sum(sum(values) for values in self.series.values())


def _days(start: date, end: date) -> list[str]:
    return [(start + timedelta(days=i)).isoformat() for i in range((end - start).days)]


def daily(
    rows: Iterable[Mapping[str, Any]],
    start: date,
    end: date,
    key: Literal["team", "service"],
) -> DailySeries:
    """One series per team or service over every day in `[start, end)`; small ones as "other"."""
    days = _days(start, end)
    index = {d: i for i, d in enumerate(days)}
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(days))
    for row in rows:
        day = str(row.get("day"))[:10]
        if day not in index:
            continue
        group = str(row.get(key) or "") or (NO_TEAM if key == "team" else "(no service)")
        sums[group][index[day]] += float(row.get("net_cost") or 0.0)
    ranked = sorted(sums.items(), key=lambda kv: (-sum(kv[1]), kv[0]))
    kept = ranked[: MAX_SERIES - 1] if len(ranked) > MAX_SERIES else ranked
    series = {group: tuple(round(v, 2) for v in values) for group, values in kept}
    if rest := ranked[len(kept) :]:
        series[OTHER] = tuple(
            round(sum(values[i] for _group, values in rest), 2) for i in range(len(days))
        )
    return DailySeries(tuple(days), series)


@dataclass(frozen=True)
class Compared:
    """One resource's estimate (scaled to the window) against its billed net cost."""

    name: str
    type: str
    estimate: float
    actual: float | None  # None: no billed rows in the detailed export


def compared(resources: Sequence[Mapping[str, Any]]) -> list[Compared]:
    """A spend report's resources worth a bar (estimate or actual >= a cent), largest first."""
    out: list[Compared] = []
    for r in resources:
        estimate = float(r.get("estimate_usd") or 0.0)
        raw = r.get("actual_usd")
        actual = float(raw) if isinstance(raw, int | float) else None
        if max(estimate, actual or 0.0) >= 0.01:
            out.append(
                Compared(str(r.get("name")), short_type(str(r.get("type"))), estimate, actual)
            )
    out.sort(key=lambda c: (-max(c.estimate, c.actual or 0.0), c.name))
    return out[:MAX_RESOURCES]


@dataclass(frozen=True)
class StackSpend:
    """What a stack's billing export says over a window."""

    stack: str
    start: str
    end: str  # exclusive
    currency: str
    net_cost: float
    by_team: DailySeries
    by_service: DailySeries
    resources: list[Compared] = field(default_factory=list[Compared])
    notes: tuple[str, ...] = ()  # spend's own: a stale export, no detailed table


@dataclass(frozen=True)
class ReportData:
    """Everything the page shows."""

    generated: str  # when, ISO 8601 UTC
    stacks: list[StackCost]
    spend: list[StackSpend]
    notes: list[str]  # what could not be shown, and why
    spend_missing: Mapping[str, str] = field(default_factory=dict[str, str])
    """Stack -> why its spend is not shown (each stack without a spend section has one)."""
