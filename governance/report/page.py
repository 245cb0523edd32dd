# plotly ships no type information: its figures are handled as Any at this boundary.
# pyright: reportMissingTypeStubs=false, reportUnknownMemberType=false, reportUnknownVariableType=false
"""The report as one self-contained HTML page: plotly.js inlined once, no network to open it.

Every chart is a `<div id="...">` that plotly draws from the page's own script; nothing is
fetched (no CDN, no fonts, no MathJax), so the page opens from a file, an e-mail attachment or a
CI artifact with the network off. Numbers the charts show are also written as text (the table
of stacks, the totals) for readers who cannot see the charts. Every value from a plan or an
export is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from governance.report.charts import Chart, against_actual, per_day, per_stack, per_type
from governance.report.model import ReportData, StackCost, StackSpend
from governance.text.docs_links import doc_url

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 72rem; padding: 0 1rem; color: #1f2933; }
h1 { margin-bottom: .2rem; } .meta { color: #52606d; margin-top: 0; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { padding: .3rem .8rem; border-bottom: 1px solid #d9e2ec; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.chart { margin: 1.5rem 0; } .notes li { margin: .3rem 0; }
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _chart(chart: Chart) -> str:
    import plotly.io as pio

    div: str = pio.to_html(
        chart.figure,
        include_plotlyjs=False,  # inlined once in <head>
        include_mathjax=False,
        full_html=False,
        div_id=chart.id,
        config={"displaylogo": False, "responsive": True},
        default_width="100%",
    )
    return f'<figure class="chart" aria-label="{_e(chart.title)}">{div}</figure>'


def _money(value: float | None) -> str:
    return "none" if value is None else f"${value:,.2f}"


def _savings(s: StackCost) -> str:
    saved = s.savings_usd
    if saved is None or not s.baseline_usd:
        return "unknown"
    return f"${saved:,.2f} ({saved / s.baseline_usd:.0%})"


def _spend_cell(data: ReportData, stack: str) -> str:
    """Where the stack's spend is, or why there is none (never a silent gap)."""
    if any(view.stack == stack for view in data.spend):
        return f'<a href="#spend-{_e(stack)}">below</a>'
    return f"not shown: {_e(data.spend_missing.get(stack, 'not read'))}"


def _stack_table(data: ReportData) -> str:
    rows = "".join(
        f"<tr><td>{_e(s.stack)}</td><td class=num>${s.monthly_usd:,.2f}</td>"
        f"<td class=num>{_money(s.budget_usd)}</td><td class=num>{_money(s.baseline_usd)}</td>"
        f"<td class=num>{_savings(s)}</td>"
        f"<td class=num>{len(s.by_type)}</td><td class=num>{s.free}</td>"
        f"<td class=num>{s.unpriced}</td><td>{_spend_cell(data, s.stack)}</td></tr>"
        for s in data.stacks
    )
    return (
        "<table><thead><tr><th>stack</th><th class=num>estimated $/month</th>"
        "<th class=num>budget $/month</th><th class=num>ungoverned baseline $/month</th>"
        "<th class=num>governance saves</th>"
        "<th class=num>resource types with a cost</th><th class=num>free resources</th>"
        f"<th class=num>unpriced</th><th>spend</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _spend(view: StackSpend) -> list[str]:
    days = len(view.by_team.days)
    charts = [
        per_day(view.stack, "team", view.by_team, view.currency),
        per_day(view.stack, "service", view.by_service, view.currency),
    ]
    if view.resources:
        charts.append(against_actual(view.stack, view.resources, view.currency, days))
    out = [
        f'<section id="spend-{_e(view.stack)}"><h2>Spend: {_e(view.stack)}</h2>',
        f'<p class="meta">{_e(view.start)} to {_e(view.end)} (end excluded), {days} days: '
        f"{view.net_cost:,.2f} {_e(view.currency)} net of credits, from the billing export.</p>",
        *(_chart(c) for c in charts),
    ]
    if not view.resources:
        out.append("<p>No per-resource comparison: the detailed export has no rows to match.</p>")
    return [*out, "</section>"]


def charts_of(data: ReportData) -> list[str]:
    """The ids of the charts the page draws, in page order (what a reader should find)."""
    ids = ["cost-per-stack", "cost-per-type"]
    for view in data.spend:
        ids += [f"spend-{view.stack}-by-team", f"spend-{view.stack}-by-service"]
        if view.resources:
            ids.append(f"spend-{view.stack}-estimate-vs-actual")
    return ids


def render_page(data: ReportData, plotly_js: str | None = None) -> str:
    """The whole page. `plotly_js`: the library's source (default: the installed plotly's)."""
    if plotly_js is None:
        from plotly.offline import get_plotlyjs

        plotly_js = str(get_plotlyjs())
    names = ", ".join(s.stack for s in data.stacks)
    body: list[str] = [
        "<h1>mlgov cost report</h1>",
        f'<p class="meta">Generated {_e(data.generated)} from the plans of {_e(names)}. '
        "Estimates are list prices times the plans' usage assumptions "
        f'(<a href="{_e(doc_url("reference/costs"))}">cost estimates</a>); the ungoverned '
        "baseline is the same resources without mlgov's settings (no idle stop, on-demand, no "
        "expiry); spend is what the billing export recorded.</p>",
        '<section id="estimates"><h2>Estimated monthly cost</h2>',
        _stack_table(data),
        _chart(per_stack(data.stacks)),
        _chart(per_type(data.stacks)),
        "</section>",
    ]
    for view in data.spend:
        body += _spend(view)
    notes: Sequence[str] = [*data.notes, *(f"{v.stack}: {n}" for v in data.spend for n in v.notes)]
    if notes:
        items = "".join(f"<li>{_e(n)}</li>" for n in notes)
        body.append(f'<section id="notes"><h2>Notes</h2><ul class="notes">{items}</ul></section>')
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>mlgov cost report: {_e(names)}</title><style>{STYLE}</style>"
        f'<script type="text/javascript">{plotly_js}</script></head>\n<body>\n'
        + "\n".join(body)
        + "\n</body></html>\n"
    )
