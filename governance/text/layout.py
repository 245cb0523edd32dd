"""Plain-text tables that fit a width: which column gives way first, and how a cell gives way.

Pure and generic (no plan knowledge; render.py decides the columns of the plan table). A table
wider than its width shrinks in stages: in each stage, the widest column that takes part in it
and is above its floor for that stage gives up one character at a time, until the table fits or
every such column is at its floor; a column may take part in several stages with lower floors
(a wrapping column first gives up what only costs it more lines). A last stage takes every
column that can shrink down to `TIGHT`. A column in no stage (the cost) never shrinks.

A cell too wide for its column gives way by its column's rule: a shorter spelling first
(`shorter`, then taken by every cell of the column, so a column keeps one spelling), then a cut
at the end or in the middle (resource names share prefixes and differ at the end), or, for a
`wrap` column, continuation lines broken between items (`, `), so nothing is lost until
`MAX_LINES`. No colour and no box characters: the output reads the same in a
terminal, a pipe, a log or a file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

GAP = 2  # spaces between columns
TIGHT = 6  # the narrowest any shrinking column gets, on a very narrow terminal
MAX_LINES = 4  # a wrapped cell's lines at most; the last one is cut with the marker
ITEM_SEPARATOR = ", "


@dataclass(frozen=True)
class Column:
    """One column: its header and how it gives way when the table is too wide."""

    header: str
    gives: tuple[tuple[int, int], ...] = ()
    """(stage, floor) pairs: in that stage it shrinks down to floor; lower stages go first.
    Empty: it never shrinks (its cells are always whole)."""
    align: Literal["left", "right"] = "left"
    cut: Literal["end", "middle"] = "end"
    wrap: bool = False
    """Too-wide cells continue on the next lines, broken between `, `-separated items."""
    shorter: Callable[[str], str] | None = None
    """A shorter spelling of a too-wide cell, tried before cutting it."""


def cut(cell: str, width: int, marker: str, where: Literal["end", "middle"] = "end") -> str:
    """`cell` in at most `width` characters, the removed part shown by `marker`."""
    if len(cell) <= width:
        return cell
    keep = width - len(marker)
    if keep <= 0:
        return cell[:width]
    if where == "middle":
        head = keep // 2  # the end differs more often than the start: it keeps the extra one
        return cell[:head] + marker + cell[len(cell) - (keep - head) :]
    return cell[:keep] + marker


def wrap_items(text: str, width: int, marker: str, max_lines: int = MAX_LINES) -> list[str]:
    """`text` on lines of at most `width`, broken between its `, `-separated items.

    An item longer than a line is cut; past `max_lines`, the last line ends with `marker`.
    """
    items = text.split(ITEM_SEPARATOR)
    lines: list[str] = []
    current = ""
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        candidate = f"{current} {piece}" if current else piece
        if len(candidate) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = cut(piece, width, marker)
    lines.append(current)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = cut(f"{lines[-1]} {marker}", width, marker)  # ends with the marker either way
    return lines


def fit(columns: Sequence[Column], natural: Sequence[int], width: int | None) -> list[int]:
    """Column widths that fit `width` characters (None: the natural widths)."""
    widths = list(natural)
    if width is None:
        return widths
    excess = sum(widths) + GAP * (len(widths) - 1) - width
    stages = sorted({stage for c in columns for stage, _floor in c.gives})
    plan = [
        {i: floor for i, c in enumerate(columns) for stage, floor in c.gives if stage == s}
        for s in stages
    ]
    plan.append({i: TIGHT for i, c in enumerate(columns) if c.gives})
    for floors in plan:
        while excess > 0:
            room = [i for i, floor in floors.items() if widths[i] > floor]
            if not room:
                break
            widest = max(room, key=lambda i: widths[i])
            widths[widest] -= 1
            excess -= 1
    return widths


def _cell_lines(column: Column, cell: str, width: int, marker: str) -> list[str]:
    if len(cell) <= width:
        return [cell]
    if column.shorter is not None and len(short := column.shorter(cell)) <= width:
        return [short]
    if column.wrap:
        return wrap_items(cell, width, marker)
    shortest = column.shorter(cell) if column.shorter is not None else cell
    return [cut(shortest, width, marker, column.cut)]


def _spelled_shorter(
    columns: Sequence[Column],
    rows: list[list[str]],
    natural: Sequence[int],
    widths: Sequence[int],
) -> list[list[str]] | None:
    """The rows with every cell of each too-narrow `shorter` column respelled, or None."""
    respell = [
        (i, c.shorter)
        for i, c in enumerate(columns)
        if c.shorter is not None and widths[i] < natural[i]
    ]
    if not respell:
        return None
    shortened = [list(row) for row in rows]
    for i, shorter in respell:
        for row in shortened:
            row[i] = shorter(row[i])
    return shortened


def _line(columns: Sequence[Column], cells: Sequence[str], widths: Sequence[int]) -> str:
    padded = [
        cell.rjust(w) if c.align == "right" else cell.ljust(w)
        for c, cell, w in zip(columns, cells, widths, strict=True)
    ]
    return (" " * GAP).join(padded).rstrip()


def render(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    width: int | None,
    marker: str = "…",
) -> tuple[list[int], list[str]]:
    """The header and rows as lines at most `width` wide (when it can), and the column widths.

    `marker` shows where a cell was cut ("…" on a terminal, "..." where plain ASCII is wanted).
    """
    headers = [c.header for c in columns]
    rows = [list(row) for row in rows]
    natural = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(columns))]
    widths = fit(columns, natural, width)
    if shortened := _spelled_shorter(columns, rows, natural, widths):
        # One spelling per column: a column that does not fit whole takes its shorter spelling
        # in every row (`Instance` beside `Bucket`, never beside `storage/Bucket`).
        rows = shortened
        natural = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(columns))]
        widths = fit(columns, natural, width)
    lines = [
        _line(columns, [cut(h, w, marker) for h, w in zip(headers, widths, strict=True)], widths)
    ]
    for row in rows:
        cells = [
            _cell_lines(c, cell, w, marker) for c, cell, w in zip(columns, row, widths, strict=True)
        ]
        for n in range(max(len(c) for c in cells)):
            lines.append(_line(columns, [c[n] if n < len(c) else "" for c in cells], widths))
    return widths, lines
