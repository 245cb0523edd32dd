"""`mlgov report` opened in headless Chromium with the network closed: every chart rendered.

The page is written by the real command, then opened from its file in a fresh browser context
(Chromium's isolated profile: one browser for the session, tests/report/browser.py).
For each chart the test reads the marks plotly drew (bars with an area, in the chart's `<div>`)
and compares their number with what the inputs say independently: one bar per stack, one per
(stack, resource type) with a cost, one per (day, team) and (day, service) with spend in the
export rows (summed here in Python, not by our SQL), one per estimate and billed amount. Each
chart's screenshot must show something; the page must fetch nothing but itself and raise no
script error.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import main
from governance.fakecloud import export_rows as ex
from governance.review.render import is_free, short_type
from tests.conftest import REPO, STACKS
from tests.report.browser import Browser, Page, blank
from tests.report.conftest import plan
from tests.spend.emulator import Export

MARKS = """JSON.stringify(Object.fromEntries([...document.querySelectorAll('.js-plotly-plot')].map(
  d => [d.id, {
    bars: [...d.querySelectorAll('g.trace.bars g.point path')].filter(p => {
      const b = p.getBBox(); return b.width > 0 && b.height > 0; }).length,
    x: [...d.querySelectorAll('g.xtick text')].map(t => t.textContent),
    y: [...d.querySelectorAll('g.ytick text')].map(t => t.textContent),
    legend: [...d.querySelectorAll('g.legend text.legendtext')].map(t => t.textContent),
    rect: (r => ({x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}))(
      d.getBoundingClientRect()),
  }])))"""


def write_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, *argv: str) -> Path:
    monkeypatch.chdir(REPO)
    output = tmp_path / "report.html"
    capsys.readouterr()
    assert main(["report", *argv, "-o", str(output)]) == 0, capsys.readouterr().err
    return output


def marks(page: Page, charts: int) -> dict[str, Any]:
    page.until(
        f"document.querySelectorAll('.js-plotly-plot .main-svg').length >= {charts} && "
        "document.querySelectorAll('.js-plotly-plot g.trace').length > 0"
    )
    found: dict[str, Any] = json.loads(page.evaluate(MARKS))
    assert len(found) == charts, list(found)
    return found


def assert_every_chart_shows_something(page: Page, found: dict[str, Any]) -> None:
    for chart_id, chart in found.items():
        image = page.screenshot(chart["rect"])
        assert image.width > 600 and image.height > 300, chart_id
        assert not blank(image), f"{chart_id}: the screenshot is blank"
    assert not blank(page.screenshot())
    assert page.requests == [page.requests[0]] and page.requests[0].startswith("file://")
    assert page.errors == []


def priced_types(stack: str) -> set[str]:
    doc = plan(stack)
    return {
        short_type(r["type"])
        for r in doc["resources"]
        if not r["type"].startswith("mlgov:index:") and not is_free(r) and r["monthly_usd"] > 0
    }


def test_the_estimates_page_renders_with_no_network(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    page_file = write_report(tmp_path, monkeypatch, capsys, "--no-spend")
    with browser.page(page_file.as_uri()) as page:
        found = marks(page, 2)
        per_stack = found["cost-per-stack"]
        assert per_stack["bars"] == len(STACKS)  # one bar per stack
        assert per_stack["x"] == list(STACKS)  # dev, staging, prod
        per_type = found["cost-per-type"]
        assert per_type["bars"] == sum(len(priced_types(s)) for s in STACKS)
        assert set(per_type["y"]) == set().union(*(priced_types(s) for s in STACKS))
        assert sorted(per_type["legend"]) == sorted(STACKS)  # plotly lists stacked bars reversed
        assert_every_chart_shows_something(page, found)
        text = page.evaluate("document.body.innerText")
        for stack in STACKS:  # the numbers are on the page as text too
            assert f"${plan(stack)['cost']['monthly_usd']:,.2f}" in text


def _cells(export: Export, project: str, key: str) -> dict[str, set[str]]:
    """(day -> groups) with net spend that rounds to a cent or more, from the raw rows."""
    today = datetime.now(UTC).date()
    start, end = (today - timedelta(days=30)).isoformat(), today.isoformat()
    sums: dict[tuple[str, str], float] = defaultdict(float)
    for r in export.rows:
        day = r["usage_start_time"][:10]
        if r["project"]["id"] != project or not start <= day < end:
            continue
        labels = {label["key"]: label["value"] for label in r.get("labels") or []}
        group = labels.get("team", "") if key == "team" else r["service"]["description"]
        sums[(day, group)] += ex.net(r)
    cells: dict[str, set[str]] = defaultdict(set)
    for (day, group), value in sums.items():
        if round(value, 2):
            cells[day].add(group)
    return cells


def test_the_spend_page_renders_every_chart(
    browser: Browser,
    endpoint: str,
    export: Export,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
) -> None:
    page_file = write_report(tmp_path, monkeypatch, capsys, "--stack", "dev")
    monkeypatch.chdir(REPO)
    capsys.readouterr()
    assert main(["spend", "--stack", "dev", "--json"]) == 0
    spent = json.loads(capsys.readouterr().out)
    with browser.page(page_file.as_uri()) as page:
        found = marks(page, 5)
        for key, what in (("team", "team"), ("service", "service")):
            cells = _cells(export, "acme-ml-dev", key)
            assert cells, "the fixture has spend for the dev project"
            chart = found[f"spend-dev-by-{what}"]
            assert chart["bars"] == sum(len(groups) for groups in cells.values()), what
            assert len(chart["legend"]) == len(set().union(*cells.values()))
        compared = found["spend-dev-estimate-vs-actual"]
        shown = [
            r
            for r in spent["resources"]
            if max(r["estimate_usd"] or 0, r["actual_usd"] or 0) >= 0.01
        ][:20]
        assert compared["bars"] == sum(
            (round(r["estimate_usd"] or 0, 2) != 0) + (round(r["actual_usd"] or 0, 2) != 0)
            for r in shown
        )
        top = max(shown, key=lambda r: max(r["estimate_usd"] or 0, r["actual_usd"] or 0))
        assert top["name"] in compared["y"]
        assert_every_chart_shows_something(page, found)


def test_the_checks_fail_on_a_page_whose_charts_did_not_draw(
    browser: Browser, tmp_path: Path
) -> None:
    """The same page without plotly.js: no chart draws, and the checks above would say so."""
    from PIL import Image

    from governance.report.model import ReportData, stack_cost
    from governance.report.page import render_page

    assert blank(Image.new("RGB", (700, 400), "white"))
    data = ReportData("now", [stack_cost(plan(s)) for s in STACKS], [], [])
    broken = tmp_path / "broken.html"
    broken.write_text(render_page(data, plotly_js="/* plotly.js left out */"))
    with browser.page(broken.as_uri()) as page:
        with pytest.raises(TimeoutError):
            # The scripts ran before the load event (Plotly failed then): nothing draws later.
            page.until("document.querySelectorAll('.js-plotly-plot .main-svg').length", 1)
        rect = page.evaluate(
            "(r => ({x: r.x, y: r.y + scrollY, width: Math.max(r.width, 600), height: 420}))("
            "document.getElementById('cost-per-stack').getBoundingClientRect())"
        )
        assert blank(page.screenshot(rect))
        assert page.errors  # plotly's own call fails: `Plotly is not defined`
