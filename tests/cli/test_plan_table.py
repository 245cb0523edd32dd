"""The human plan table on the shipped stacks at 80, 120 and 200 columns and piped.

Each case runs the real CLI in-process (`main`) on the real plan of a shipped stack (planned once
per process: tests/cli/shipped_plans.py; what varies here is the width) and reads the printed
table back by its header's column positions: every line fits, rows come most expensive
first, the $0.00 resources are one folded entry whose count is the plan's number of free
resources, the settings of the most expensive row are whole even at 80 columns, and piped output
is plain ASCII at most 120 columns wide.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

from governance.cli.main import main
from governance.review.key_settings import key_settings
from governance.review.render import short_type
from tests.cli.shipped_plans import shipped_plan
from tests.conftest import REPO, STACKS

PIPED = None  # no COLUMNS: the width the CLI picks for a pipe
pytestmark = pytest.mark.usefixtures("shared_plans")


@functools.cache
def plan(stack: str) -> dict[str, Any]:
    """The document the table prints (the plan table shows no cost lines)."""
    return json.loads(json.dumps(shipped_plan(stack, cost_lines=False)))


def resources(stack: str) -> list[dict[str, Any]]:
    return [r for r in plan(stack)["resources"] if not r["type"].startswith("mlgov:index:")]


def free(stack: str) -> list[dict[str, Any]]:
    """$0.00 estimates, priced, with no worst case beside them (computed apart from render.py)."""
    return [
        r
        for r in resources(stack)
        if not r.get("unpriced")
        and round(r["monthly_usd"], 2) == 0
        and r.get("worst_case_monthly_usd") is None
    ]


@dataclass
class Row:
    name: str
    type: str
    settings: str  # continuation lines joined with a space
    cost: str


@dataclass
class Table:
    lines: list[str]  # everything printed
    rows: list[Row]
    free_line: str  # the folded entry, continuation lines joined


def read_table(out: str) -> Table:
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("RESOURCE"))
    head = lines[header]
    at = {h: head.index(h) for h in ("TYPE", "REGION", "KEY COST SETTINGS")}
    rows: list[Row] = []
    free_parts: list[str] = []
    in_free = False
    for line in lines[header + 1 :]:
        if not line:
            break
        if line[0] != " " and " free resource" in line.split("  ")[0]:
            in_free = True
            free_parts.append(line.rsplit("$0.00", 1)[0].strip())
        elif in_free:
            free_parts.append(line.strip())
        elif line[0] != " ":
            settings = line[at["KEY COST SETTINGS"] :].rsplit(None, 1)
            rows.append(
                Row(
                    name=line[: at["TYPE"]].strip(),
                    type=line[at["TYPE"] : at["REGION"]].strip(),
                    settings=settings[0].strip() if len(settings) == 2 else "",
                    cost=line.rsplit(None, 1)[1],
                )
            )
        else:
            rows[-1].settings = f"{rows[-1].settings} {line.strip()}".strip()
    return Table(lines, rows, " ".join(free_parts))


def money(cell: str) -> float:
    return float(cell.rstrip("*").lstrip("$").replace(",", ""))


def run(stack: str, columns: int | None, monkeypatch: pytest.MonkeyPatch, capsys) -> str:
    monkeypatch.chdir(REPO)
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    assert main(["plan", "--stack", stack]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("stack", STACKS)
@pytest.mark.parametrize("columns", [80, 120, 200, PIPED])
def test_table_fits_orders_by_cost_and_folds_the_free_rows(
    stack: str, columns: int | None, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    out = run(stack, columns, monkeypatch, capsys)
    table = read_table(out)
    width = columns or 120
    too_wide = [line for line in table.lines if len(line) > width]
    assert not too_wide, too_wide
    # Most expensive first; ties by name.
    costs = [money(r.cost) for r in table.rows]
    assert costs == sorted(costs, reverse=True)
    expected = sorted(
        (r for r in resources(stack) if r not in free(stack)),
        key=lambda r: (-r["monthly_usd"], r["name"]),
    )
    for row, r in zip(table.rows, expected, strict=True):
        cut = "…" in row.name or "..." in row.name
        assert row.name == r["name"] or (cut and row.name[:4] == r["name"][:4])
    # The $0.00 resources are one entry, counted; none of them has a row of its own.
    zero = free(stack)
    assert zero, "the shipped stacks have free resources (IAM bindings, service accounts)"
    assert table.free_line.startswith(f"{len(zero)} free resources: ")
    kinds = Counter(short_type(r["type"]) for r in zero)
    top_kind, top_count = sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    assert f"{top_count} {top_kind}" in table.free_line
    assert len(table.rows) == len(resources(stack)) - len(zero)
    assert "$0.00" in next(line for line in table.lines if " free resources: " in line)


@pytest.mark.parametrize("stack", STACKS)
def test_the_most_expensive_rows_settings_are_whole_at_80_columns(
    stack: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Wrapped onto continuation lines if need be, never cut (prod: its two $2,598.68 rows)."""
    table = read_table(run(stack, 80, monkeypatch, capsys))
    ranked = sorted(resources(stack), key=lambda r: (-r["monthly_usd"], r["name"]))
    top = [r for r in ranked if r["monthly_usd"] == ranked[0]["monthly_usd"]]
    for row, r in zip(table.rows, top, strict=False):
        assert row.cost == f"${r['monthly_usd']:,.2f}"
        assert row.settings == key_settings(r["type"], r["inputs"])
        assert row.settings  # the top rows of the shipped stacks all have settings


@pytest.mark.parametrize("stack", STACKS)
def test_type_gives_way_before_the_settings(
    stack: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """At 120 columns every row's settings are whole (wrapped) while TYPE is shortened."""
    table = read_table(run(stack, 120, monkeypatch, capsys))
    by_name = {r["name"]: r for r in resources(stack)}
    shortened = 0
    for row in table.rows:
        r = by_name[row.name]  # names are whole at 120 columns too
        settings = key_settings(r["type"], r["inputs"])
        if r.get("worst_case_monthly_usd") is None:
            assert row.settings == settings, row.name
        full = short_type(r["type"])
        assert row.type in (full, full.rsplit("/", 1)[1]) or row.type.endswith("...")
        shortened += row.type != full
    assert shortened


@pytest.mark.parametrize("stack", STACKS)
@pytest.mark.parametrize("columns", [80, 110, 120, 200])
def test_type_is_spelled_one_way_in_a_table(
    stack: str, columns: int, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Issue 32: `Instance` stood beside `storage/Bucket`; each table now uses one spelling."""
    table = read_table(run(stack, columns, monkeypatch, capsys))
    paid = [r for r in resources(stack) if r not in free(stack)]
    ranked = sorted(paid, key=lambda r: (-r["monthly_usd"], r["name"]))  # names may be cut
    types = [(row.type, short_type(r["type"])) for row, r in zip(table.rows, ranked, strict=True)]
    whole = [shown == full for shown, full in types]
    kinds = [shown == full.rsplit("/", 1)[1] for shown, full in types]
    cut = [shown.endswith(("...", "…")) for shown, _full in types]
    assert all(w or c for w, c in zip(whole, cut, strict=True)) or all(
        k or c for k, c in zip(kinds, cut, strict=True)
    ), types


@pytest.mark.parametrize("stack", STACKS)
def test_piped_output_is_plain(stack: str, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    out = run(stack, PIPED, monkeypatch, capsys)
    assert out.isascii()  # no colour escapes, no box or ellipsis characters
    assert "\x1b" not in out
    assert max(len(line) for line in out.splitlines()) <= 120


def test_wide_terminal_shows_whole_types_and_one_line_per_resource(
    monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    table = read_table(run("prod", 200, monkeypatch, capsys))
    # Nothing gives way at 200 columns except the widest settings, which wrap.
    assert {row.type for row in table.rows} <= {short_type(r["type"]) for r in resources("prod")}
    assert not any("…" in line or "..." in line for line in table.lines)


def test_footers_wrap_to_the_width(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """prod's fallback-price notes are longer than 80 columns: they wrap, indented."""
    out = run("prod", 80, monkeypatch, capsys)
    notes = out.split("\n\n")[-2].splitlines()
    assert any(line.startswith("* metadata-instance: no price") for line in notes)
    assert any(line.startswith("  ") for line in notes)  # a continuation
    assert max(len(line) for line in notes) <= 80
