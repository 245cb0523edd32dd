"""The PR comment's cost arithmetic: folded cost lines per resource, and the usage behind them.

`cost_section(doc)` is the hook comment.py (or any comment renderer) calls with one evaluated
plan document and splices into its Markdown: which usage assumptions the estimate used (the
usage file, what it declared per resource, the stack's usage settings that differ from their
defaults, how many parts still depend on undeclared usage), then one folded `<details>` per
resource with a cost, holding its lines as quantity x unit price = amount with catalog key,
location, pricing model and price date (the same words as `mlgov plan --explain`, explain.py).
Everything that comes from a plan (names, keys, the words of each line) is escaped (escape.py),
as the rest of the comment is. Pure: a document in, Markdown lines out.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any, cast

from governance.review.assumption_text import REFERENCE, assumptions, shown
from governance.review.explain import line_text
from governance.review.render import short_type
from governance.text import escape
from mlgov_policies.vocabulary import is_component

Row = Mapping[str, Any]


def _summary_text(value: object, limit: int = 100) -> str:
    """Untrusted text inside an HTML `<summary>`, where Markdown escapes do nothing.

    HTML-escaped, on one line, with @mentions and #references broken as escape.py does.
    """
    one_line = "".join(ch if ch.isprintable() else " " for ch in str(value))[:limit]
    escaped = html.escape(one_line, quote=True)
    return escaped.replace("@", "@" + escape.ZWSP).replace("#", "#" + escape.ZWSP)


def _rows(doc: Mapping[str, Any]) -> list[Row]:
    raw: Any = doc.get("resources") or []
    return [r for r in cast(list[Row], raw) if not is_component(str(r.get("type", "")))]


def _lines(row: Row) -> list[Mapping[str, Any]]:
    raw: Any = row.get("cost_lines") or []
    return cast(list[Mapping[str, Any]], raw)


def usage_assumptions(doc: Mapping[str, Any]) -> list[str]:
    """Markdown lines saying which usage the estimate assumed (empty for a document without)."""
    from governance.costs.assumptions import UsageAssumptions

    out: list[str] = []
    usage_file = cast(Mapping[str, Any], doc.get("usage_file") or {})
    declared = {str(r["name"]): r["declared_usage"] for r in _rows(doc) if r.get("declared_usage")}
    if usage_file:
        source = usage_file.get("source") or "carried in the plan document"
        out.append(
            f"Usage file: {escape.code(source, 200, table=False)}, declaring usage for "
            f"{len(declared)} resource(s)."
        )
        for name, values in sorted(declared.items()):
            pairs = ", ".join(f"{k} {v}" for k, v in cast(Mapping[str, Any], values).items())
            out.append(f"- {escape.code(name, 100, table=False)}: {escape.text(pairs, 400)}")
    else:
        out.append("Usage file: none (`--usage-file`): usage-based parts are shown per unit.")
    assumed = cast(Mapping[str, Any], doc.get("assumptions") or {})
    defaults = UsageAssumptions().model_dump(mode="json")
    changed = {k: v for k, v in assumed.items() if k != "as_of" and defaults.get(k, v) != v}
    if changed:
        pairs = ", ".join(
            f"{k} {shown(v)} (default {shown(defaults[k])})" for k, v in changed.items()
        )
        out.append(f"Stack usage settings: {escape.text(pairs, 1000)}.")
    waiting = sum(1 for r in _rows(doc) for x in _lines(r) if x.get("kind") == "usage")
    if waiting:
        out.append(f"{waiting} part(s) depend on usage nobody declared and are not in the total.")
    out.append(
        "Each line: quantity x unit price = amount a month (USD list prices, 730-hour month), "
        "then [catalog key, location, pricing model, the price's date]. A quantity the inputs do "
        f"not give comes from the usage above or mlgov's usage defaults ({REFERENCE})."
    )
    if defaults_used := assumptions(doc)[1]:
        out += [
            "",
            "<details><summary>mlgov's usage defaults in this estimate</summary>",
            "",
            escape.text(", ".join(defaults_used), 2000),
            "",
            "</details>",
        ]
    return out


def cost_details(rows: Sequence[Row]) -> list[str]:
    """One folded block per resource with cost lines: the arithmetic behind its amount."""
    out: list[str] = []
    for row in rows:
        lines = _lines(row)
        if not any(x.get("kind") != "note" for x in lines):
            continue
        amount = (
            "unpriced" if row.get("unpriced") else f"${float(row.get('monthly_usd') or 0):,.2f}"
        )
        out += [
            f"<details><summary><code>{_summary_text(row['name'])}</code> "
            f"({_summary_text(short_type(str(row['type'])))}): {amount}/month, "
            f"{len(lines)} line(s)</summary>",
            "",
        ]
        out += [f"- {escape.text(line_text(x), 600)}" for x in lines]
        out += ["", "</details>"]
    return out


def cost_section(doc: Mapping[str, Any]) -> list[str]:
    """The comment's usage note and folded cost lines for one evaluated plan document."""
    rows = sorted(_rows(doc), key=lambda r: (-(r.get("monthly_usd") or 0.0), str(r["name"])))
    details = cost_details(rows)
    if not details:
        return []
    return ["**Cost lines**", "", *usage_assumptions(doc), "", *details, ""]
