"""Human and pull-request (markdown) views of a plan document, and the one spelling of a type.

Pure: a plan document in, text out. The human view is a table for people: the most expensive
resources first (ties by name; unpriced ones before all, since their cost is unknown), the free
ones ($0.00: IAM bindings, service accounts, ...) folded into one entry with their count and
kinds, and every line within the width it is given (the CLI passes the terminal's, or 120 when
the output is piped). When the table is too wide, TYPE gives way first (to its kind, `NodePool`,
in every row, then cut), then RESOURCE and REGION, and the key cost settings (key_settings.py)
last: they wrap onto continuation lines rather than being cut. Footers wrap to the same width.
layout.py does the fitting.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from governance.review.automation_lines import TITLE as AUTOMATION_TITLE
from governance.review.automation_lines import automation_lines
from governance.review.guardrail import limits_line
from governance.review.key_settings import key_settings
from governance.text import escape
from governance.text.docs_links import linked_markdown, linked_text
from governance.text.layout import Column, render
from governance.text.terminal import visible
from mlgov_policies.compat.spend_caps import BY_SERVICE, money_value
from mlgov_policies.props import as_list, as_mapping, dig, is_unknown
from mlgov_policies.vocabulary import SPEND_CAP_BUDGET, is_component

Doc = Mapping[str, Any]
Inputs = Mapping[str, Any]


def region_of(inputs: Inputs) -> str:
    """The location a resource lives in (zone, region or multi-region), or '-' if global."""
    for key in ("zone", "location", "region"):
        if isinstance(value := inputs.get(key), str) and value:
            return "unknown" if is_unknown(value) else value
    return "-"


def short_type(type_: str) -> str:
    """How plan and diff spell a type: `gcp:workbench/instance:Instance` -> `workbench/Instance`.

    Machine-readable output (`--json`) keeps the full type token.
    """
    parts = type_.split(":")
    if len(parts) == 3:
        return f"{parts[1].split('/')[0]}/{parts[2]}"
    return type_


def _usd(value: Any) -> str:
    return f"${value:,.2f}" if isinstance(value, int | float) else "-"


def settings_cell(r: Mapping[str, Any]) -> str:
    """A row's key cost settings, with an informational worst case where the resource has one."""
    cell = key_settings(r["type"], r.get("inputs") or {})
    if isinstance(worst := r.get("worst_case_monthly_usd"), int | float):
        # A quota's or a spend cap's ceiling: shown beside the estimate, never added to it.
        lag = " + enforcement lag" if r["type"] == SPEND_CAP_BUDGET else ""
        cell += f", worst case {_usd(worst)}/month{lag} (not in total)"
    return cell


CEILINGS_TITLE = "spend caps (Preview): the month's worst case for each capped service"
CEILINGS_NOTE = (
    "(not in the estimate; Google enforces on lagging cost estimates, and running work and "
    "storage still bill)"
)


def ceilings(doc: Doc) -> list[str]:
    """One line per spend cap (its service's worst case this month), then a note; [] if none.

    A cap bounds spend the estimate does not cover (model calls, requests), so plans and comments
    show it beside the estimate. It is a floor of the worst case: Google enforces on estimated
    cost data that lags usage, and work already running and storage keep billing.
    """
    lines: list[str] = []
    for r in doc.get("resources", []):
        if r.get("type") != SPEND_CAP_BUDGET:
            continue
        i = as_mapping(r.get("inputs"))
        services = as_list(dig(i, "budgetFilter", "services"))
        projects = as_list(dig(i, "budgetFilter", "projects"))
        service = BY_SERVICE.get(str(services[0])) if services else None
        worst = r.get("worst_case_monthly_usd")
        if not isinstance(worst, int | float):
            worst = money_value(dig(i, "amount", "specifiedAmount"))
        lines.append(
            f"{service.name if service else '?'} in {projects[0] if projects else '?'}: "
            f"at most {_usd(worst)}/month + enforcement lag ({r.get('name')})"
        )
    return [*lines, CEILINGS_NOTE] if lines else []


def cost_cell(resource: Mapping[str, Any]) -> str:
    """A row's $/month: `unpriced`, or the amount with `*` when it uses a fallback price."""
    if resource.get("unpriced"):
        return "unpriced"
    return _usd(resource.get("monthly_usd")) + ("*" if resource.get("price_fallbacks") else "")


def catalog_note(
    doc: Doc,
    each: str = "`--explain` shows each one's date",
    quote: Callable[[str], str] = str,
) -> str | None:
    """Which prices the amounts use: the catalog's date and the span of the prices' own dates.

    The catalog's date is its Billing export's (Compute Engine, disks, network, Cloud Storage);
    prices read from Google's pricing pages carry their own dates, so "catalog of <date>" alone
    would tell a reader the wrong age for most lines. `quote` renders each value the document
    gave (the PR comment escapes them: a document may come from a pull request).
    """
    catalog = as_mapping(doc.get("price_catalog"))
    if not catalog.get("date"):
        return None
    date, refreshed = str(catalog["date"]), catalog.get("refreshed")
    note = f"prices: catalog of {quote(date)}" + (
        f", refreshed {quote(str(refreshed))}" if refreshed else ""
    )
    dates = as_mapping(catalog.get("price_dates"))
    first, last = str(dates.get("first") or ""), str(dates.get("last") or "")
    if first and last and (first, last) != (date, date):
        span = quote(first) if first == last else f"{quote(first)} to {quote(last)}"
        refresh = "`mlgov prices refresh` updates them"
        return f"{note}; the prices used are dated {span} ({each}; {refresh})"
    return note + " (`mlgov prices refresh` updates it)"


def usage_note(doc: Doc) -> str | None:
    """What the total leaves out because only usage decides it (egress, operations, queries).

    With a usage file, which one priced the usage it declares (a reader comparing two runs must
    see that the totals rest on different usage).
    """
    cost = as_mapping(doc.get("cost"))
    declared = f"usage file: {cost['usage_file']}" if cost.get("usage_file") else None
    waiting = cost.get("depends_on_usage")
    if not isinstance(waiting, int) or waiting <= 0:
        return declared
    return (f"{declared}; " if declared else "") + (
        f"not in the total: {waiting} part(s) that depend on usage nobody declared (egress, "
        "operations, queries): `--explain` lists each with its unit price; a "
        "`--usage-file` prices them (docs/reference/costs.md#usage-file)"
    )


def commitment_note(doc: Doc) -> str | None:
    """Under a committed-use assumption: that the total is at committed-use prices, and at list.

    The total's own line says "estimated $X/month"; without this a reader takes it for list
    prices, which it is not.
    """
    cost = as_mapping(doc.get("cost"))
    commitment, listed = cost.get("commitment"), cost.get("list_monthly_usd")
    if not isinstance(commitment, str) or commitment in ("", "none"):
        return None
    at_list = f"; at list prices {_usd(listed)}/month" if isinstance(listed, int | float) else ""
    return (
        f"commitment {commitment}: on-demand machines at {commitment} committed-use prices for "
        f"every hour of the month{at_list}"
    )


def price_notes(doc: Doc) -> list[str]:
    """The catalog's date, what a reader of the total must know, how policies were chosen.

    Notes start with `*` as the total does when it has any (and a cell priced from the nearest
    location): the mark means "read the notes marked *".
    """
    notes = [n for n in (catalog_note(doc), commitment_note(doc), usage_note(doc)) if n is not None]
    notes += [f"* {n}" for n in as_list(as_mapping(doc.get("cost")).get("notes"))]
    from governance.review.policy_scope import policy_note  # the policy modules load on use

    if (policies := policy_note(doc)) is not None:
        notes.append(policies)
    return notes


FREE_BELOW = 0.005  # an estimate that rounds to $0.00 is free
PLAIN_MARKER = "..."  # where a cell was cut, in plain (ASCII) output
MARKER = "…"
FREE_LINES = 2  # the folded free resources take at most this many lines
FOOTER_HINTS: tuple[str, ...] = (
    "`--explain [NAME]` shows how each amount is reached: quantity x unit price, the usage "
    "assumption behind each quantity, each price's date.",
    "`--json` prints every resource, free ones included, with its inputs and price.",
)
"""One line per way to see more about a row, printed under the totals."""


def is_free(resource: Mapping[str, Any]) -> bool:
    """A priced resource whose estimate rounds to $0.00 and that has no worst case to show."""
    monthly = resource.get("monthly_usd")
    return (
        not resource.get("unpriced")
        and isinstance(monthly, int | float)
        and abs(monthly) < FREE_BELOW
        and resource.get("worst_case_monthly_usd") is None
    )


def _by_cost(resource: Mapping[str, Any]) -> tuple[int, float, str]:
    monthly = resource.get("monthly_usd")
    amount = float(monthly) if isinstance(monthly, int | float) else 0.0
    return (0 if resource.get("unpriced") else 1, -amount, str(resource.get("name")))


def ordered(doc: Doc) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The rows worth a line, most expensive first (unpriced first of all), and the free ones.

    Component resources (`mlgov:index:*`) are neither: their children are the rows.
    """
    raw: Sequence[Mapping[str, Any]] = doc.get("resources") or []
    resources = [r for r in raw if not is_component(str(r.get("type")))]
    shown = sorted((r for r in resources if not is_free(r)), key=_by_cost)
    free = sorted((r for r in resources if is_free(r)), key=lambda r: str(r.get("name")))
    return shown, free


def free_summary(
    free: Sequence[Mapping[str, Any]], fits: Callable[[str], bool] | None = None
) -> str:
    """`52 free resources: 17 projects/IAMMember, 9 serviceaccount/Account, ...` (most first).

    With `fits`, kinds are dropped from the end until the line fits: `... and 12 more kinds`.
    """
    kinds = sorted(
        Counter(short_type(str(r.get("type"))) for r in free).items(),
        key=lambda kv: (-kv[1], kv[0]),
    )
    head = f"{len(free)} free {'resource' if len(free) == 1 else 'resources'}: "
    listed = [f"{n} {kind}" for kind, n in kinds]
    for shown in range(len(listed), 0, -1):
        rest = len(listed) - shown
        line = head + ", ".join(listed[:shown]) + (f" and {rest} more kinds" if rest else "")
        if fits is None or fits(line):
            return line
    return head + f"{len(listed)} kinds"


def _row(r: Mapping[str, Any]) -> tuple[str, str, str, str, str]:
    inputs: Mapping[str, Any] = r.get("inputs") or {}
    return (
        str(r["name"]),
        short_type(str(r["type"])),
        region_of(inputs),
        settings_cell(r),
        cost_cell(r),
    )


def _rows(doc: Doc) -> list[tuple[str, str, str, str, str]]:
    """Every non-component resource as a table row, in the document's order (markdown)."""
    raw: Sequence[Mapping[str, Any]] = doc.get("resources") or []
    return [_row(r) for r in raw if not is_component(str(r.get("type")))]


def _counts(doc: Doc) -> tuple[int, int]:
    violations: Sequence[Mapping[str, Any]] = doc.get("violations", [])
    mandatory = sum(1 for v in violations if v.get("enforcement") == "mandatory")
    return mandatory, len(violations) - mandatory


def _cost_line(doc: Doc) -> str:
    cost = doc.get("cost")
    if not isinstance(cost, Mapping):
        return "cost: not estimated"
    monthly, base = cost.get("monthly_usd"), cost.get("baseline_monthly_usd")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    # `*`: the total leaves something out or uses a fallback price; the notes marked * say what
    star = "*" if as_list(as_mapping(doc.get("cost")).get("notes")) else ""
    line = f"estimated {_usd(monthly)}/month{star}"
    if isinstance(monthly, int | float) and isinstance(base, int | float) and base > 0:
        saved = base - monthly
        line += (
            f" (ungoverned baseline {_usd(base)}/month; governance saves "
            f"{_usd(saved)}, {saved / base:.0%})"
        )
    return line


def _kind(type_cell: str) -> str:
    """TYPE's shorter spelling, its kind: `container/NodePool` -> `NodePool`."""
    return type_cell.rsplit("/", 1)[-1]


# The plan table's columns and the order they give way in (layout.py stages): TYPE to 16 (its
# kind alone where the whole type does not fit: `NodePool`); the key cost settings to 40 (they
# wrap, nothing is lost); RESOURCE (cut in the middle: names share prefixes) to 16, REGION to a
# zone's length and TYPE to 8; only then the settings to 20, more lines each. $/MONTH is whole.
COLUMNS = (
    Column("RESOURCE", gives=((2, 16),), cut="middle"),
    Column("TYPE", gives=((0, 16), (2, 8)), shorter=_kind),
    Column("REGION", gives=((2, 14),)),
    Column("KEY COST SETTINGS", gives=((1, 40), (3, 20)), wrap=True),
    Column("$/MONTH", align="right"),
)


def _wrap(line: str, width: int | None, indent: str = "") -> list[str]:
    r"""A footer line on lines of at most `width` (continuations indented by `indent`).

    Control characters are made visible first: textwrap turns `\r`, `\v` and `\f` into spaces,
    which hid them in exactly the lines long enough to wrap (the stream shows them elsewhere).
    """
    line = linked_text(line)  # a cited docs page as its URL on the docs site
    if width is None or len(line) <= width:
        return [line]
    return textwrap.wrap(
        visible(line),
        width,
        subsequent_indent=indent,
        break_on_hyphens=False,
        break_long_words=True,
    )


def _findings(doc: Doc, width: int | None) -> list[str]:
    lines: list[str] = []
    for v in doc.get("violations", []):
        head = (
            f"[{v.get('enforcement', '?').upper()}] {v.get('policy')} on "
            f"{v.get('resource') or 'the stack'} ({short_type(str(v.get('type', '')))})"
        )
        lines += ["", *_wrap(head, width, "  ")]
        lines += _wrap(f"  what: {v.get('message')}", width, " " * 8)
        if v.get("why"):
            lines += _wrap(f"  why:  {v['why']}", width, " " * 8)
        if v.get("remediation"):
            lines += _wrap(f"  fix:  {v['remediation']}", width, " " * 8)
    return lines


def text(
    doc: Doc, width: int | None = None, *, plain: bool = False, heading: str | None = None
) -> str:
    """The human view: the resource table, totals, findings and the verdict, `width` wide.

    `width` None: no limit. `plain`: ASCII only (cuts shown as `...`), for pipes and files.
    `heading`: the first line (default: `mlgov plan for stack NAME`; `check` names its file).
    """
    marker = PLAIN_MARKER if plain else MARKER
    shown, free = ordered(doc)
    widths, table = render(COLUMNS, [_row(r) for r in shown], width, marker)
    first = heading if heading is not None else f"mlgov plan for stack {doc.get('stack') or '?'}"
    lines = [first, "", *table]
    if free:
        # One entry for the free rows: the summary spans the text columns, $0.00 in the cost's.
        cost_width = widths[-1]
        span = None if width is None else max(width - cost_width - 2, 20)
        summary = _wrap(
            free_summary(free, lambda line: len(_wrap(line, span, "  ")) <= FREE_LINES),
            span,
            "  ",
        )
        first = summary[0].ljust(sum(widths[:-1]) + 2 * (len(widths) - 2) if span is None else span)
        lines += [f"{first}  {cost_cell({'monthly_usd': 0.0}).rjust(cost_width)}", *summary[1:]]
    lines.append("")
    lines += _wrap(_cost_line(doc), width, "  ")
    if guard := limits_line(doc):
        lines += _wrap(guard, width, "  ")
    if caps := ceilings(doc):  # right under the estimate: what it cannot include, bounded
        lines += _wrap(f"{CEILINGS_TITLE}:", width, "  ")
        for cap in caps:
            lines += _wrap(f"  {cap}", width, "    ")
    if automation := automation_lines(doc):
        lines += _wrap(f"{AUTOMATION_TITLE}:", width, "  ")
        for line in automation:
            lines += _wrap(f"  {line}", width, "    ")
    for footer in (*price_notes(doc), *FOOTER_HINTS):
        lines += _wrap(footer, width, "  ")
    lines += _findings(doc, width)
    mandatory, advisory = _counts(doc)
    verdict = (
        f"FAIL: {mandatory} mandatory violation(s), {advisory} advisory"
        if mandatory
        else f"OK: no mandatory violations, {advisory} advisory"
    )
    lines += ["", verdict]
    return "\n".join(line.rstrip() for line in lines)


def _md_cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def markdown_heading(doc: Doc, checked_file: str | None = None) -> str:
    """The Markdown view's title, after its verdict icon: a plan of a stack, or a check of a file.

    `checked_file`: the file `check` read (`-`: stdin); the text view's first line says the same
    (`mlgov check for FILE (stack NAME)`). The file and the stack come from the user's input (a
    preview of any program): shown as inline code (escape.py), never as Markdown.
    """
    stack = doc.get("stack")
    if checked_file is None:
        return f"mlgov plan: {escape.code(stack or '?', table=False)}"
    source = escape.code("stdin" if checked_file == "-" else checked_file, 200, table=False)
    named = f" (stack {escape.code(stack, 100, table=False)})" if stack else ""
    return f"mlgov check for {source}{named}"


def markdown(doc: Doc, *, checked_file: str | None = None) -> str:
    """The pull-request comment: verdict, cost, findings, then resources folded away.

    `checked_file`: the file `check` read, for a heading that names the check (markdown_heading).
    """
    mandatory, advisory = _counts(doc)
    rows = _rows(doc)
    icon = ":x:" if mandatory else ":white_check_mark:"
    out = [
        f"### {icon} {markdown_heading(doc, checked_file)}",
        "",
        f"**{len(rows)} resources** · {_cost_line(doc)} · "
        f"**{mandatory} mandatory**, {advisory} advisory finding(s)",
        "",
    ]
    if guard := limits_line(doc):
        out += [_md_cell(guard), ""]
    if caps := ceilings(doc):
        out += [f"**{CEILINGS_TITLE[0].upper()}{CEILINGS_TITLE[1:]}** {caps[-1]}", ""]
        out += [f"- {_md_cell(c)}" for c in caps[:-1]]
        out.append("")
    if automation := automation_lines(doc):
        out += [f"**{AUTOMATION_TITLE[0].upper()}{AUTOMATION_TITLE[1:]}**", ""]
        out += [f"- {_md_cell(line)}" for line in automation]
        out.append("")
    if doc.get("violations"):
        out += ["| enforcement | policy | resource | problem | fix |", "|---|---|---|---|---|"]
        out += [
            f"| {v.get('enforcement')} | `{v.get('policy')}` | `{v.get('resource') or 'stack'}` "
            f"| {_md_cell(str(v.get('message')))} | {_md_cell(str(v.get('remediation', '')))} |"
            for v in doc["violations"]
        ]
        out.append("")
    if doc.get("warnings"):
        out += ["**Settings that do nothing:**", ""]
        out += [f"- `{w.get('key')}`: {_md_cell(str(w.get('message')))}" for w in doc["warnings"]]
        out.append("")
    out += [
        "<details><summary>Resources</summary>",
        "",
        "| resource | type | region | key cost settings | $/month |",
        "|---|---|---|---|---|",
    ]
    out += [f"| `{n}` | {t} | {r} | {_md_cell(k)} | {c} |" for n, t, r, k, c in rows]
    out += ["", "</details>"]
    out += ["", *(f"<sub>{_md_cell(n)}</sub><br>" for n in price_notes(doc))]
    return linked_markdown("\n".join(out).rstrip())
