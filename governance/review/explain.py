"""`--explain [NAME]`: every resource's cost, line by line, as quantity x unit price = amount.

Pure: a plan document (evaluated, so its rows carry `cost_lines`; see cost_lines.py) in, text
out. Each charge line names its catalog key, location, pricing model and the price's date; a
part whose price depends on undeclared usage shows its unit price and the usage-file key to
declare; an unpriced part says why. Without NAME every resource with a cost line is shown, free
ones folded into one line at the end; with NAME only that resource (Pulumi or GCP name). The plan
table itself is render.py's.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from governance.errors import CliError
from governance.review.assumption_text import REFERENCE, assumptions, usage_file_text
from governance.review.render import region_of, short_type
from governance.text.terminal import visible
from mlgov_policies.vocabulary import is_component

Row = Mapping[str, Any]


def _usd(value: float) -> str:
    return f"-${-value:,.2f}" if value < 0 else f"${value:,.2f}"


def _qty(value: float) -> str:
    """A quantity or unit price in plain decimals (no exponent), at most 6 significant digits."""
    if value == 0 or abs(value) >= 1e6:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.6g}" if "e" not in f"{value:.6g}" else f"{value:,.0f}"
    digits = f"{value:.6g}"
    if "e" not in digits:
        return digits
    exponent = int(digits.split("e")[1])
    return f"{value:.{min(-exponent + 5, 12)}f}".rstrip("0").rstrip(".")


# Catalog series priced per hour of one vCPU or one GPU carry the unit "hour"; a reader of
# "2,920 hour x $0.05/hour" cannot tell that the 2,920 are vCPU-hours, so the text says so.
def _per_vcpu(key: str) -> bool:
    return key.endswith(".vcpu")


def _per_gpu(key: str) -> bool:
    return key.startswith("gpu.")


_PER_HOUR_OF: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("vCPU", _per_vcpu),
    ("GPU", _per_gpu),
)
# the last word of a unit that reads as a count ("3 hours", "2 GiB-months"); GiB, TiB, "1k calls"
# and "factor" stay as they are
_COUNTED = frozenset({"hour", "month", "second", "request", "invocation", "notification"})


def reading_unit(line: Mapping[str, Any]) -> str:
    """The line's unit as a reader needs it: "vCPU-hour" where the catalog says only "hour"."""
    unit, key = str(line.get("unit") or ""), str(line.get("key") or "")
    if unit == "hour":
        for what, applies in _PER_HOUR_OF:
            if applies(key):
                return f"{what}-hour"
    return unit


def _counted(quantity: float, unit: str) -> str:
    """`quantity unit` with the unit's last word in the plural where a count needs it."""
    head, sep, last = unit.rpartition("-") if "-" in unit else unit.rpartition(" ")
    if last in _COUNTED and quantity != 1:
        unit = f"{head}{sep}{last}s"
    return f"{_qty(quantity)} {unit}".rstrip()


def _detail(line: Mapping[str, Any]) -> str:
    """How the quantity was reached, without repeating the quantity itself.

    A model's detail often starts with the quantity in a short unit ("730 h", "50 GiB (billed
    while it exists)"): beside "730 hour x $0.1/hour" that says it twice, so only what it
    adds is kept.
    """
    detail = str(line.get("detail") or "")
    quantity = _qty(float(line.get("quantity") or 0)).replace(",", "")
    same = re.fullmatch(rf"{re.escape(quantity)} [A-Za-z]+(?: \((.*)\))?", detail.replace(",", ""))
    if same:
        # what follows the quantity, as written (commas in it are not the quantity's)
        own = re.fullmatch(r"\S+ [A-Za-z]+(?: \((.*)\))?", detail)
        return (own.group(1) if own else same.group(1)) or ""
    # The detail is shown in parentheses: a trailing "(...)" of its own becomes ", ..." rather
    # than nesting ("(3 x 100 GiB, billed while it exists)").
    nested = re.fullmatch(r"(.*?) \((.*)\)", detail)
    return f"{nested.group(1)}, {nested.group(2)}" if nested else detail


def line_text(line: Mapping[str, Any]) -> str:
    """One cost line as a person reads it (the same words the PR comment uses)."""
    kind = line.get("kind")
    what = str(line.get("what") or "")
    if kind == "charge":
        detail = _detail(line)
        where = ", ".join(str(line[k]) for k in ("key", "region", "pricing") if line.get(k)) + (
            f", price of {line['price_date']}" if line.get("price_date") else ""
        )
        if line.get("requested_region"):
            where += f", nearest priced location to {line['requested_region']}"
        unit = reading_unit(line)
        return (
            f"{what}: {_counted(float(line.get('quantity') or 0), unit)} x "
            f"${_qty(float(line.get('unit_usd') or 0))}/{unit} = "
            f"{_usd(float(line.get('usd') or 0))}{f' ({detail})' if detail else ''}   [{where}]"
        )
    if kind == "usage":
        return (
            f"{what}: depends on usage: ${_qty(float(line.get('unit_usd') or 0))}/"
            f"{reading_unit(line)} [{line.get('key')}, {line.get('region')}, price of "
            f"{line.get('price_date')}]; declare `{line.get('usage_key')}` in the usage file"
        )
    if kind == "adjustment":
        text = str(line.get("text", "")).removeprefix("baseline ")
        return f"{text}: {_usd(float(line.get('usd') or 0))}"
    return str(line.get("text", "")).removeprefix("baseline ")


def _lines(row: Row, key: str) -> list[Mapping[str, Any]]:
    raw: Any = row.get(key) or []
    return cast(list[Mapping[str, Any]], raw)


def _total(lines: Sequence[Mapping[str, Any]]) -> float:
    return max(sum(float(x.get("usd") or 0) for x in lines
                   if x.get("kind") in ("charge", "adjustment")), 0.0)  # fmt: skip


def resource_text(row: Row) -> list[str]:
    """One resource: a heading with its totals, then its governed and baseline lines."""
    governed, baseline = _lines(row, "cost_lines"), _lines(row, "baseline_cost_lines")
    inputs = cast(Mapping[str, Any], row.get("inputs") or {})
    monthly = row.get("monthly_usd")
    amount = "unpriced" if row.get("unpriced") else _usd(float(monthly or 0)) + "/month"
    out = [f"{row['name']} ({short_type(str(row['type']))}, {region_of(inputs)}): {amount}"]
    out += [f"    {line_text(x)}" for x in governed]
    if baseline:
        texts = [line_text(x) for x in baseline]
        # the parts that depend on usage are said once, on the governed bill
        if texts == [line_text(x) for x in governed if x.get("kind") != "usage"]:
            out.append(f"  ungoverned baseline: the same, {_usd(_total(baseline))}/month")
        else:
            out.append(f"  ungoverned baseline {_usd(_total(baseline))}/month:")
            out += [f"    {t}" for t in texts]
    return out


def explain(doc: Mapping[str, Any], name: str | None = None) -> str:
    """The `--explain` text for a whole plan, or for the resource called `name`."""
    raw: Any = doc.get("resources") or []
    rows = [r for r in cast(list[Row], raw) if not is_component(str(r.get("type", "")))]
    if name:
        chosen = [r for r in rows if name in (r.get("name"), _gcp_name(r))]
        if not chosen:
            known = ", ".join(sorted(str(r.get("name")) for r in rows)[:20])
            raise CliError(f"--explain {name}: no resource of the plan has that name "
                           f"(resources: {known}{', ...' if len(rows) > 20 else ''})")  # fmt: skip
        rows = chosen
    out = [
        f"mlgov cost lines for stack {doc.get('stack') or '?'}",
        "each charge: quantity x unit price = amount a month (how the quantity was reached)",
        "  [catalog key, location, pricing model, the date of that price]",
        f"amounts: {doc.get('currency') or 'USD'} list prices for a 730-hour month; a quantity "
        "the resource's inputs do not give (hours running, GiB stored, calls) is a usage "
        "assumption, listed at the end",
        "depends on usage: only usage decides it; shown per unit and left out of the total until "
        "a usage file declares it",
        "unpriced: no price could be found (the line says why); left out of the total",
    ]
    free: list[str] = []
    for row in rows:
        if not name and not row.get("unpriced") and _is_free(row):
            free.append(str(row["name"]))
            continue
        out += ["", *resource_text(row)]
    if free:
        out += ["", f"$0.00 (no charge; `--explain NAME` says why): {', '.join(free)}"]
    cost = cast(Mapping[str, Any], doc.get("cost") or {})
    if not name and "monthly_usd" in cost:
        out += [
            "",
            f"total {_usd(float(cost['monthly_usd']))}/month "
            f"(ungoverned baseline {_usd(float(cost.get('baseline_monthly_usd') or 0))})",
        ]
        out += [f"  {n}" for n in _left_out(cost)]
    # Why the command exits as it does, before the assumptions (which end the text).
    return "\n".join([*out, *exit_reason(doc), "", *_assumption_lines(doc)])


def _left_out(cost: Mapping[str, Any]) -> list[str]:
    """What the total does not include, counted."""
    notes: list[str] = []
    waiting = cost.get("depends_on_usage")
    if isinstance(waiting, int) and waiting > 0:
        notes.append(
            f"not in it: {waiting} part(s) that depend on usage (the `depends on usage` lines)"
        )
    unpriced: Any = cost.get("unpriced") or []
    if unpriced:
        names = ", ".join(str(n) for n in cast(list[Any], unpriced))
        notes.append(f"not in it: {len(unpriced)} unpriced resource(s): {names}")
    return notes


def _assumption_lines(doc: Mapping[str, Any]) -> list[str]:
    """The usage assumptions in effect, then the usage file, wrapped for a terminal."""
    chosen, default = assumptions(doc)
    out = [f"usage assumptions (mlgov:settings.usage; every key: {REFERENCE}):"]
    if chosen:
        out += _wrapped("set by the stack: " + ", ".join(chosen))
    out += _wrapped("mlgov's defaults: " + ", ".join(default))
    return [*out, usage_file_text(doc)]


def _wrapped(text: str) -> list[str]:
    r"""An indented paragraph of at most 100 columns, control characters shown.

    As render.py does before wrapping: textwrap would turn `\r` into a space.
    """
    return textwrap.wrap(
        visible(text), 100, initial_indent="  ", subsequent_indent="    ",
        break_on_hyphens=False,
    )  # fmt: skip


def _gcp_name(row: Row) -> str:
    inputs = cast(Mapping[str, Any], row.get("inputs") or {})
    value = inputs.get("name")
    return value if isinstance(value, str) else ""


def _is_free(row: Row) -> bool:
    lines = _lines(row, "cost_lines")
    return row.get("monthly_usd") == 0 and all(
        x.get("kind") == "note" for x in [*lines, *_lines(row, "baseline_cost_lines")]
    )


def exit_reason(doc: Mapping[str, Any]) -> list[str]:
    """Why `--explain` exits as it does: each mandatory finding that makes it exit 1."""
    raw: Any = doc.get("violations") or []
    mandatory = [v for v in cast(list[Row], raw) if v.get("enforcement") == "mandatory"]
    if not mandatory:
        return ["", "exit 0: no mandatory finding (advisory findings do not fail)"]
    lines = ["", f"exit 1: {len(mandatory)} mandatory finding(s):"]
    for v in mandatory:
        what = visible(str(v.get("message") or ""))
        lines.append(
            f"  [{v.get('policy')}] on {visible(str(v.get('resource') or 'stack'))}: {what}"
        )
    return lines
