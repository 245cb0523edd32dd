"""Human and markdown views of a spend report. Pure: a report dict in, text out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any, cast

Report = Mapping[str, Any]
TOP = 10


def _m(value: Any) -> str:
    return f"{float(value):,.2f}" if isinstance(value, int | float) else "-"


def _ratio(value: Any) -> str:
    return f"{float(value):.2f}" if isinstance(value, int | float) else "-"


def _last_day(report: Report) -> str:
    return (date.fromisoformat(report["window"]["end"]) - timedelta(days=1)).isoformat()


def _short_type(type_: str) -> str:
    """`workbench/instance` for `gcp:workbench/instance:Instance`."""
    parts = type_.split(":")
    return parts[1] if len(parts) == 3 else type_


def _label(value: str) -> str:
    return value or "(none)"


def _items(value: Any) -> list[Mapping[str, Any]]:
    return cast(list[Mapping[str, Any]], value or [])


def _share(report: Report) -> str:
    share = report["unlabelled"]["share"]
    return f" ({share:.1%})" if isinstance(share, int | float) else ""


def _headline(report: Report) -> list[tuple[str, str]]:
    cur = report["currency"]
    acc = report["accelerators"]
    return [
        ("net cost", f"{_m(report['net_cost'])} {cur}"),
        ("cost / credits", f"{_m(report['cost'])} / {_m(report['credits'])}"),
        ("GPU", f"{_m(acc['gpu'])} {cur}"),
        ("TPU", f"{_m(acc['tpu'])} {cur}"),
        ("no team label", f"{_m(report['unlabelled']['net_cost'])} {cur}{_share(report)}"),
    ]


def _table(rows: Sequence[Sequence[str]], right: int = 1, indent: str = "  ") -> list[str]:
    """Aligned columns; the last `right` columns (amounts) are right-aligned."""
    if not rows:
        return [f"{indent}(none)"]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    first_right = len(widths) - right
    out: list[str] = []
    for row in rows:
        cells = [
            c.rjust(w) if i >= first_right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.append(indent + "  ".join(cells).rstrip())
    return out


def _resource_rows(report: Report) -> list[list[str]]:
    rows = [["resource", "type", "estimate", "actual", "ratio"]]
    for r in _items(report["resources"])[: TOP * 2]:
        rows.append(
            [
                r["name"],
                _short_type(r["type"]),
                _m(r["estimate_usd"]),
                _m(r["actual_usd"]),
                _ratio(r["ratio"]),
            ]
        )
    totals = report["estimate_vs_actual"]
    rows.append(
        [
            f"stack {report['stack']}",
            "",
            _m(totals["estimate_usd"]),
            _m(totals["actual_usd"]),
            _ratio(totals["ratio"]),
        ]
    )
    return rows


def text(report: Report) -> str:
    """The terminal view."""
    export = report["export"]
    lines = [
        f"spend: stack {report['stack']}, {report['window']['start']} to {_last_day(report)} "
        f"({report['days']} days), projects {', '.join(report['projects'])}",
        f"export: {export['table']}",
        f"  {export['verdict']}: {export['message']}",
        "",
        *_table([[k, v] for k, v in _headline(report)], right=0, indent=""),
        "",
        "by service",
        *_table([[k, _m(v)] for k, v in list(report["by_service"].items())[:TOP]]),
    ]
    for key, values in report["by_label"].items():
        shown = ", ".join(f"{_label(k)} {_m(v)}" for k, v in list(values.items())[:TOP])
        lines.append(f"by {key}: {shown or '(none)'}")
    lines += ["", f"by SKU family (top {TOP})"]
    lines += _table(
        [[f["family"], f["service"], _m(f["net_cost"])] for f in report["by_sku_family"][:TOP]]
    )
    lines += ["", "no team label, by project and service"]
    lines += _table(
        [
            [u["project"], u["service"], _m(u["net_cost"])]
            for u in report["unlabelled"]["by_project_service"][:TOP]
        ]
    )
    totals = report["estimate_vs_actual"]
    if totals is not None:
        lines += ["", f"estimate vs actual (USD, {report['days']} days)"]
        lines += _table(_resource_rows(report), right=3)
        if totals["unmatched_usd"] is not None:
            lines.append(f"  not in the plan: {_m(totals['unmatched_usd'])} USD")
            lines += [
                f"    {u['resource']} ({u['service']}) {_m(u['actual_usd'])}"
                for u in _items(totals["unmatched"])
            ]
    lines += ["", *[f"note: {n}" for n in report["notes"]]]
    lines.append(
        "queries: "
        + ", ".join(f"{q['name']} {q['seconds']:.2f} s" for q in _items(report["queries"]))
    )
    return "\n".join(lines).replace("\n\n\n", "\n\n")


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def markdown(report: Report) -> str:
    """A summary for a pull request, an issue or the monthly review notes."""
    export = report["export"]
    icon = "✅" if export["verdict"] == "ok" else "⚠️"
    lines = [
        f"### Spend: `{report['stack']}`, {report['window']['start']} to {_last_day(report)}",
        "",
        f"{icon} {export['message']} (`{export['table']}`)",
        "",
        *_md_table(["", ""], [[k, v] for k, v in _headline(report)]),
        "",
        *_md_table(
            ["service", "net cost"],
            [[k, _m(v)] for k, v in list(report["by_service"].items())[:TOP]],
        ),
        "",
        *_md_table(
            ["team", "net cost"],
            [[_label(k), _m(v)] for k, v in report["by_label"]["team"].items()],
        ),
        "",
        *_md_table(
            ["project (no team label)", "service", "net cost"],
            [
                [u["project"], u["service"], _m(u["net_cost"])]
                for u in report["unlabelled"]["by_project_service"][:TOP]
            ],
        ),
    ]
    if report["estimate_vs_actual"] is not None:
        rows = _resource_rows(report)
        lines += ["", *_md_table(rows[0], rows[1:])]
    lines += [f"\n> {n}" for n in report["notes"]]
    return "\n".join(lines)
