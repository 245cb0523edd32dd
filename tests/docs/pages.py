"""The documentation's pages and the command output they quote, for the tests and the regenerator.

A page is README.md or a Markdown file under docs/. Output is quoted in two ways:

- `<!-- sample: mlgov ARGS -->` before a ```text block: what `mlgov ARGS` prints, run from the
  repository root at COLUMNS=110 (`spend` against an emulator holding the demo's export);
- `<!-- demo-sample -->` before a ```text block: lines `make demo` prints (checked against a real
  run by tests/walkthrough/test_demo.py).

In both, a line `…` alone stands for any number of lines (ports, dates, timings, rows left out).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
ELIDED = "…"
SAMPLE = re.compile(r"<!-- sample: mlgov (.*?) -->\n```text\n(.*?)```", re.S)
DEMO_SAMPLE = re.compile(r"<!-- demo-sample -->\n```text\n(.*?)```", re.S)


def pages() -> list[Path]:
    """README.md and every Markdown page of the site."""
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


def text() -> str:
    """Every page, concatenated."""
    return "\n".join(p.read_text(encoding="utf-8") for p in pages())


@dataclass(frozen=True)
class Sample:
    """One quoted output: where, the command (or None for the demo) and the quoted lines."""

    page: Path
    args: str | None
    lines: tuple[str, ...]

    @property
    def id(self) -> str:
        where = self.page.relative_to(REPO)
        return f"{where}: mlgov {self.args}" if self.args is not None else f"{where}: demo"


def samples() -> Iterator[Sample]:
    """Every `mlgov` sample of every page."""
    for page in pages():
        for args, body in SAMPLE.findall(page.read_text(encoding="utf-8")):
            yield Sample(page, args, tuple(body.splitlines()))


def demo_samples() -> Iterator[Sample]:
    """Every demo sample of every page."""
    for page in pages():
        for body in DEMO_SAMPLE.findall(page.read_text(encoding="utf-8")):
            yield Sample(page, None, tuple(body.splitlines()))


def matches(expected: list[str] | tuple[str, ...], actual: list[str]) -> bool:
    """`expected` equals `actual`, where a line `…` stands for any number of lines."""
    expected, n, m = list(expected), len(expected), len(actual)
    # ok[i][j]: expected[i:] matches actual[j:] (dynamic programming; no exponential backtracking).
    ok = [[False] * (m + 1) for _ in range(n + 1)]
    ok[n][m] = True
    for i in range(n - 1, -1, -1):
        for j in range(m, -1, -1):
            if expected[i] == ELIDED:
                ok[i][j] = ok[i + 1][j] or (j < m and ok[i][j + 1])
            else:
                ok[i][j] = j < m and expected[i] == actual[j] and ok[i + 1][j + 1]
    return ok[0][0]


def found_in(expected: list[str] | tuple[str, ...], actual: list[str]) -> bool:
    """`expected` matches some run of consecutive lines of `actual` (`…` as in `matches`)."""
    return matches([ELIDED, *expected, ELIDED], actual)
