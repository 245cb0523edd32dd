# plotly ships no type information: its figures are handled as Any at this boundary.
# pyright: reportMissingTypeStubs=false, reportUnknownMemberType=false, reportUnknownVariableType=false
# pyright: reportUnknownArgumentType=false
"""The report's charts, as plotly figures: the only module that imports plotly.

One function per chart, each taking model.py's values and returning a `Chart` (an id for the
page and the test, a title, and the figure). Bars only, because every question here is "how
much, where": estimated $/month per stack (one bar per stack), per resource type (stacked by
stack), spend per day by team and by service (stacked), and estimate against actual per
resource (grouped). Missing values are None, never 0, so plotly draws no mark for them and a
chart's marks are exactly its data points. Amounts carry their currency in the axis title.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from governance.report.model import Compared, DailySeries, StackCost

TEMPLATE = "plotly_white"
HEIGHT = 420


@dataclass(frozen=True)
class Chart:
    """A figure with the id its `<div>` gets on the page."""

    id: str
    title: str
    figure: Any


def _layout(fig: Any, title: str, axis: str, *, horizontal: bool = False, height: int = HEIGHT):
    money = {"title": {"text": axis}, "tickprefix": "", "separatethousands": True}
    fig.update_layout(
        template=TEMPLATE,
        title={"text": title},
        height=height,
        margin={"l": 60, "r": 20, "t": 60, "b": 60},
        legend={"orientation": "h", "y": -0.2},
        **({"xaxis": money} if horizontal else {"yaxis": money}),
    )


def per_stack(stacks: Sequence[StackCost]) -> Chart:
    """Estimated $/month per stack: one bar per stack."""
    import plotly.graph_objects as go

    fig = go.Figure(
        go.Bar(
            x=[s.stack for s in stacks],
            y=[round(s.monthly_usd, 2) for s in stacks],
            text=[f"${s.monthly_usd:,.2f}" for s in stacks],
            textposition="outside",
            name="estimate",
            hovertemplate="%{x}: $%{y:,.2f}/month<extra></extra>",
        )
    )
    _layout(fig, "Estimated monthly cost per stack", "USD per month (list prices)")
    return Chart("cost-per-stack", "Estimated monthly cost per stack", fig)


def per_type(stacks: Sequence[StackCost]) -> Chart:
    """Estimated $/month per resource type, one bar segment per stack that has the type."""
    import plotly.graph_objects as go

    totals: dict[str, float] = {}
    for s in stacks:
        for kind, value in s.by_type.items():
            totals[kind] = totals.get(kind, 0.0) + value
    kinds = sorted(totals, key=lambda k: (totals[k], k))  # plotly draws y bottom-up: largest on top
    fig = go.Figure()
    for s in stacks:
        fig.add_trace(
            go.Bar(
                y=kinds,
                x=[round(s.by_type[k], 2) if k in s.by_type else None for k in kinds],
                name=s.stack,
                orientation="h",
                hovertemplate=f"{s.stack}: %{{y}} $%{{x:,.2f}}/month<extra></extra>",
            )
        )
    _layout(
        fig,
        "Estimated monthly cost per resource type",
        "USD per month (list prices)",
        horizontal=True,
        height=max(HEIGHT, 28 * len(kinds) + 160),
    )
    fig.update_layout(barmode="stack", yaxis={"automargin": True})
    return Chart("cost-per-type", "Estimated monthly cost per resource type", fig)


def per_day(stack: str, what: str, series: DailySeries, currency: str) -> Chart:
    """Net spend per day, one stacked series per team or service."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for group, values in series.series.items():
        fig.add_trace(
            go.Bar(
                x=list(series.days),
                y=[v if v else None for v in values],
                name=group,
                hovertemplate=f"{group}: %{{x}} %{{y:,.2f}} {currency}<extra></extra>",
            )
        )
    title = f"{stack}: spend per day by {what}"
    _layout(fig, title, f"{currency} per day (net of credits)")
    fig.update_layout(barmode="stack", xaxis={"title": {"text": "day (UTC)"}})
    return Chart(f"spend-{stack}-by-{what}", title, fig)


def against_actual(stack: str, items: Sequence[Compared], currency: str, days: int) -> Chart:
    """Each resource's estimate for the window beside what the detailed export billed."""
    import plotly.graph_objects as go

    names = [c.name for c in reversed(items)]  # largest on top
    fig = go.Figure(
        [
            go.Bar(
                y=names,
                x=[round(c.estimate, 2) if c.estimate else None for c in reversed(items)],
                name=f"estimate ({days} days)",
                orientation="h",
            ),
            go.Bar(
                y=names,
                x=[round(c.actual, 2) if c.actual else None for c in reversed(items)],
                name="billed",
                orientation="h",
            ),
        ]
    )
    title = f"{stack}: estimate against billed cost per resource"
    _layout(
        fig,
        title,
        f"{currency} over the window",
        horizontal=True,
        height=max(HEIGHT, 36 * len(items) + 160),
    )
    fig.update_layout(barmode="group", yaxis={"automargin": True})
    return Chart(f"spend-{stack}-estimate-vs-actual", title, fig)
