"""The table of explained differences (differences.yaml) and how it judges each compared row.

An entry explains rows of a case either with adjustments (Infracost's number turned into what
mlgov should give: a price date, a documented Google rule, a known Infracost error) or as an
mlgov gap. `judge(row, entries)` says whether a row is explained, and `stale(...)` lists entries
that no longer explain anything, so the table cannot outlive the differences it names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tests.costs.peer.harness import Row

TABLE = Path(__file__).parent / "differences.yaml"
CATEGORIES = ("price-date", "google-rule", "infracost-error", "mlgov-gap")
GAP = "mlgov-gap"


@dataclass(frozen=True)
class Entry:
    """One reason, the rows it names and how it changes Infracost's number."""

    cause: str
    category: str
    why: str
    rows: Mapping[str, Any]
    """case -> list of Infracost addresses, or "*" (every row of the case it applies to)."""
    adjust: tuple[Mapping[str, Any], ...] = ()
    raw: Mapping[str, Any] | None = None

    def names(self, row: Row) -> bool:
        """The entry lists this row by name (not through "*")."""
        listed = self.rows.get(row.case)
        return isinstance(listed, list) and row.address in listed

    def wildcard(self, case: str) -> bool:
        return self.rows.get(case) == "*"

    def touches(self, row: Row) -> bool:
        """The adjustments name at least one of the row's components (or name none at all)."""
        if not self.adjust:
            return True
        return any(_matches(a, c) for a in self.adjust for c in row.components)


def _matches(adjust: Mapping[str, Any], component: Mapping[str, Any]) -> bool:
    needle = adjust.get("component")
    return needle is not None and str(needle) in str(component["name"])


@cache
def load_entries() -> tuple[Entry, ...]:
    """The entries of differences.yaml, in file order."""
    raw = yaml.safe_load(TABLE.read_text())
    return tuple(
        Entry(
            cause=str(e["cause"]),
            category=str(e["category"]),
            why=str(e["why"]),
            rows=e["rows"],
            adjust=tuple(e.get("adjust") or ()),
            raw=e,
        )
        for e in raw
    )


def adjusted(row: Row, entries: Iterable[Entry]) -> float:
    """Infracost's cost after every adjustment of `entries` (components, then additions)."""
    total = 0.0
    for comp in row.components:
        usd = float(comp["usd"] or 0.0)
        for entry in entries:
            for a in entry.adjust:
                if not _matches(a, comp):
                    continue
                if "usd" in a:
                    usd = float(a["usd"])
                elif "factor" in a:
                    usd *= float(a["factor"])
                elif "unit_usd" in a:
                    usd = float(comp.get("quantity") or 0.0) * float(a["unit_usd"])
                elif "add_unit_usd" in a:  # a charge per unit of the component's quantity
                    usd += float(comp.get("quantity") or 0.0) * float(a["add_unit_usd"])
        total += usd
    for entry in entries:
        for a in entry.adjust:
            total += float(a.get("add_usd", 0.0))
    return total


@dataclass(frozen=True)
class Verdict:
    """How the table judges one row."""

    row: Row
    entries: tuple[Entry, ...]
    expected: float
    """Infracost's cost after the adjusting entries."""
    problem: str = ""
    """Why the row fails ("" when it is within 1% or fully explained)."""


def applicable(row: Row, entries: Sequence[Entry]) -> list[Entry]:
    """The adjusting entries that apply to a row: named, or "*" with a matching component."""
    return [
        e
        for e in entries
        if e.category != GAP and (e.names(row) or (e.wildcard(row.case) and e.touches(row)))
    ]


def judge(row: Row, entries: Sequence[Entry]) -> Verdict:
    """Explained (no problem), or the problem: unexplained, or an entry that no longer fits."""
    named_gaps = [e for e in entries if e.category == GAP and e.names(row)]
    wild_gaps = [e for e in entries if e.category == GAP and e.wildcard(row.case)]
    fixes = applicable(row, entries)
    expected = adjusted(row, fixes)
    used = tuple(fixes + named_gaps)
    if row.band == "1%":
        named = [e.cause for e in entries if e.names(row)]
        if named:
            return Verdict(row, used, expected, f"within 1% of Infracost but listed: {named}")
        return Verdict(row, (), row.infracost_usd)
    matches = row.within(expected)
    if named_gaps:
        if matches:
            return Verdict(row, used, expected, f"gap {named_gaps[0].cause} is fixed: remove it")
        return Verdict(row, used, expected)
    if matches:
        return Verdict(row, used, expected)
    if wild_gaps:
        return Verdict(row, (*used, *wild_gaps), expected)
    why = f"adjusted by {[e.cause for e in fixes]}" if fixes else "no reason listed"
    return Verdict(
        row,
        used,
        expected,
        f"Infracost ${row.infracost_usd:.2f}, mlgov ${row.mlgov_usd:.2f}, {why} "
        f"(expected ${expected:.2f}){': ' + row.unpriced if row.unpriced else ''}",
    )


def stale(verdicts: Sequence[Verdict], entries: Sequence[Entry]) -> list[str]:
    """Entries (or named rows) that explain nothing any more."""
    used: dict[str, set[str]] = {}
    for v in verdicts:
        for e in v.entries:
            used.setdefault(e.cause, set()).add(v.row.case)
    problems: list[str] = []
    known = {(v.row.case, v.row.address) for v in verdicts}
    for e in entries:
        for case, listed in e.rows.items():
            if listed == "*":
                if case not in used.get(e.cause, set()):
                    problems.append(f"{e.cause}: explains no row of {case} any more")
                continue
            problems += [
                f"{e.cause}: {case} {a} is not a compared row"
                for a in listed
                if (case, a) not in known
            ]
    return problems
