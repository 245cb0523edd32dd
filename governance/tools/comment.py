"""The pull-request comment: every changed stack's cost diff and policy findings, in one body.

`render_comment(stacks)` is pure: for each stack, its plan document at the PR head and at the
PR base (None when the base could not be planned), it writes the whole Markdown body the PR job
posts and later updates in place (found again by `MARKER`). A stack is shown when its cost or
findings change, or when it has a mandatory finding (the job then fails and the comment says
why). Each section has the verdict, the findings, the cost changes (diff.py), the resources with
the $0 ones folded into one line as Infracost does, the catalog's date and every price taken
from another location. `mlgov comment` (cli) wraps it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from governance.tools.diff import CENT, CostDiff, diff_plans
from governance.tools.render import (
    CEILINGS_TITLE,
    ceilings,
    cost_cell,
    price_notes,
    region_of,
    settings_cell,
    short_type,
)
from mlgov_policies.vocabulary import is_component

MARKER = "<!-- mlgov-plan-comment -->"
Doc = Mapping[str, Any]


@dataclass(frozen=True)
class StackPlans:
    """One stack's plan documents at the PR head and base (None: no base plan)."""

    stack: str
    head: Doc
    base: Doc | None = None
    error: str = ""
    """Why the head could not be planned (invalid settings: exit 2), else ""."""


def _violations(doc: Doc | None) -> list[Mapping[str, Any]]:
    raw: Any = (doc or {}).get("violations") or []
    return cast(list[Mapping[str, Any]], raw)


def _finding_keys(doc: Doc | None) -> set[tuple[str, str, str]]:
    return {
        (str(v.get("policy")), str(v.get("resource")), str(v.get("message")))
        for v in _violations(doc)
    }


def _mandatory(doc: Doc | None) -> int:
    return sum(1 for v in _violations(doc) if v.get("enforcement") == "mandatory")


def _usd(value: float) -> str:
    return f"-${-value:,.2f}" if value < -CENT else f"${max(value, 0.0):,.2f}"


def _signed(value: float) -> str:
    return f"+${value:,.2f}" if value >= 0 else f"-${-value:,.2f}"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _empty(stack: str) -> Doc:
    return {"stack": stack, "resources": [], "cost": {"monthly_usd": 0, "baseline_monthly_usd": 0}}


@dataclass(frozen=True)
class _Section:
    plans: StackPlans
    diff: CostDiff

    @property
    def findings_changed(self) -> bool:
        return _finding_keys(self.plans.base) != _finding_keys(self.plans.head)

    @property
    def blocking(self) -> int:
        """Mandatory findings at the head (a plan that failed counts as one)."""
        return _mandatory(self.plans.head) + (1 if self.plans.error else 0)

    @property
    def shown(self) -> bool:
        p = self.plans
        changed = p.base is None or not self.diff.empty or self.findings_changed
        return changed or bool(self.blocking)


def _findings(doc: Doc) -> list[str]:
    found = sorted(_violations(doc), key=lambda v: v.get("enforcement") != "mandatory")
    if not found:
        return ["No policy findings."]
    rows = ["| | policy | resource | problem | fix |", "|---|---|---|---|---|"]
    for v in found:
        icon = ":x: mandatory" if v.get("enforcement") == "mandatory" else "advisory"
        rows.append(
            f"| {icon} | `{v.get('policy')}` | `{v.get('resource') or 'stack'}` | "
            f"{_cell(v.get('message'))} | {_cell(v.get('remediation', ''))} |"
        )
    return rows


def _changes(d: CostDiff, has_base: bool) -> list[str]:
    if not has_base:
        return ["No base plan to compare with (new stack, or the base did not plan): "
                "every resource is new."]  # fmt: skip
    if d.empty:
        return ["No cost change."]
    rows = [
        "| | resource | type | before | after | change |",
        "|---|---|---|---:|---:|---:|",
    ]
    for c in d.changes:
        before = "unpriced" if c.unpriced_before else _usd(c.before)
        after = "unpriced" if c.unpriced_after else _usd(c.after)
        rows.append(
            f"| {c.status} | `{c.name}` | {short_type(c.type)} | {before} | {after} | "
            f"{_signed(c.delta)} |"
        )
    rows.append(
        f"| | **total** | | **{_usd(d.base.monthly_usd)}** | **{_usd(d.head.monthly_usd)}** | "
        f"**{_signed(d.delta)}** |"
    )
    return rows


def _resources(doc: Doc) -> list[str]:
    raw: Any = doc.get("resources") or []
    resources = [r for r in cast(list[Mapping[str, Any]], raw) if not is_component(str(r["type"]))]
    free = [r for r in resources if r.get("monthly_usd") == 0 and not r.get("unpriced")]
    shown = sorted(
        (r for r in resources if r not in free),
        key=lambda r: (-(r.get("monthly_usd") or 0.0), str(r["name"])),
    )
    rows = [
        f"<details><summary>Resources: {len(shown)} with a cost, {len(free)} free</summary>",
        "",
        "| resource | type | region | key cost settings | $/month |",
        "|---|---|---|---|---:|",
    ]
    for r in shown:
        inputs = cast(Mapping[str, Any], r.get("inputs") or {})
        rows.append(
            f"| `{r['name']}` | {short_type(str(r['type']))} | {region_of(inputs)} | "
            f"{_cell(settings_cell(r))} | {cost_cell(r)} |"
        )
    if free:
        kinds = Counter(short_type(str(r["type"])) for r in free)
        summary = ", ".join(f"{t} x{n}" if n > 1 else t for t, n in sorted(kinds.items()))
        rows.append(f"| {len(free)} free resources | {_cell(summary)} | | | $0.00 |")
    return [*rows, "", "</details>"]


def _failed(s: _Section) -> list[str]:
    return [
        f"### :x: `{s.plans.stack}`: the stack could not be planned",
        "",
        "`mlgov plan` refused its settings (exit 2), so neither cost nor policies could run:",
        "",
        "```",
        s.plans.error.strip(),
        "```",
        "",
    ]


def _ceilings(doc: Doc) -> list[str]:
    # Spend caps cost $0 and would fold away with the free resources; their ceiling must show.
    caps = ceilings(doc)
    if not caps:
        return []
    title = f"**{CEILINGS_TITLE[0].upper()}{CEILINGS_TITLE[1:]}** {caps[-1]}"
    return [title, "", *(f"- {c}" for c in caps[:-1]), ""]


def _section(s: _Section) -> list[str]:
    if s.plans.error:
        return _failed(s)
    head, d = s.plans.head, s.diff
    mandatory = _mandatory(head)
    advisory = len(_violations(head)) - mandatory
    icon = ":x:" if mandatory else ":white_check_mark:"
    change = ""
    if s.plans.base is not None and not d.empty:
        before = d.base.monthly_usd
        pct = f", {d.delta / before:+.1%}" if before >= CENT else ""
        change = f" ({_signed(d.delta)}{pct})"
    out = [
        f"### {icon} `{s.plans.stack}`: {_usd(d.head.monthly_usd)}/month{change} · "
        f"{mandatory} mandatory, {advisory} advisory finding(s)",
        "",
        "**Policy findings**",
        "",
        *_findings(head),
        "",
        "**Cost changes**",
        "",
        *_changes(d, s.plans.base is not None),
        "",
        *_ceilings(head),
        *_resources(head),
        "",
    ]
    notes = price_notes(head)
    saved = d.head.baseline_monthly_usd - d.head.monthly_usd
    notes.append(
        f"ungoverned baseline {_usd(d.head.baseline_monthly_usd)}/month; governance saves "
        f"{_usd(saved)}/month"
    )
    out += [f"<sub>{n}</sub><br>" for n in notes]
    return [*out, ""]


def render_comment(stacks: Sequence[StackPlans]) -> str:
    """The whole PR comment (Markdown, starting with `MARKER`) for these stacks' plans."""
    sections = [
        _Section(p, diff_plans(p.base if p.base is not None else _empty(p.stack), p.head))
        for p in stacks
    ]
    shown = [s for s in sections if s.shown]
    quiet = [s.plans.stack for s in sections if not s.shown]
    mandatory = sum(s.blocking for s in sections)
    icon = ":x:" if mandatory else ":white_check_mark:"
    verdict = (
        f"{mandatory} mandatory finding(s) or failed plan(s): this PR cannot merge as is"
        if mandatory
        else "no mandatory findings"
    )
    out = [MARKER, "## mlgov plan: cost and policy check", "", f"{icon} {verdict}."]
    if shown:
        out.append(f"Stacks with changes: {', '.join(f'`{s.plans.stack}`' for s in shown)}.")
    if quiet:
        out.append(f"Unchanged (same cost and findings): {', '.join(f'`{q}`' for q in quiet)}.")
    out.append("")
    for s in shown:
        out += _section(s)
    out.append(
        "<sub>Estimates: list prices x the plan's usage assumptions (README: Cost estimates); "
        "spot prices change up to daily.</sub>"
    )
    return "\n".join(out) + "\n"
