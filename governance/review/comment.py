"""The pull-request comment: every changed stack's governance changes, findings and cost diff.

`build_comment(stacks)` is pure: for each stack, its plan document at the PR head and at the PR
base (None for a new stack, judged on its own: govdiff/standalone.py), or why one side could not
be planned or judged, it writes the Markdown body the PR judge posts and later updates in place
(found again by `MARKER`, post_comment.py's). A stack is shown when its governance, cost or
findings change, or when it blocks the PR (a mandatory finding, a prod weakening nobody
acknowledged, a plan that failed at the head or the base, a plan that cannot be judged). Each
section starts with its verdict
(with the cost change under both sides' usage assumptions when the PR changes them), then
**Governance weakened** (govdiff/render.py), the findings, the other governance changes, the
cost changes (diff.py) and the resources with the $0 ones folded into one line. The PR judge's
**Code that decides governance changed** (judge/render.py) comes before the stacks. Everything
that comes from a stack or a plan is escaped (escape.py); the body fits GitHub's limit by
folding details (fit.py), and `Comment.full` is the unfolded report the workflow uploads.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from governance.costs.errors import CostError
from governance.errors import CliError
from governance.review import guardrail
from governance.review.cost_comment import cost_section
from governance.review.diff import (
    CENT,
    REPLACED_NOTE,
    RETAINED_NOTE,
    UNPRICED_NOTE,
    CostDiff,
    cents,
    diff_plans,
    plan_cost,
    totals_note,
)
from governance.review.govdiff import render as govrender
from governance.review.govdiff.review import Review, is_prod, no_changes, review
from governance.review.govdiff.standalone import standalone_changes
from governance.review.judge.approvals import CodeReview
from governance.review.judge.render import code_section
from governance.review.policy_scope import policy_note
from governance.review.post_comment import MARKER
from governance.review.render import (
    CEILINGS_TITLE,
    catalog_note,
    ceilings,
    cost_cell,
    region_of,
    settings_cell,
    short_type,
)
from governance.review.unjudgeable import partial_note
from governance.text import escape
from governance.text.docs_links import linked_markdown
from governance.text.fit import GITHUB_LIMIT, fit
from mlgov_policies.props import as_list, as_mapping
from mlgov_policies.vocabulary import is_component

Doc = Mapping[str, Any]
# Detail levels of a stack's section, from everything (0) to the least that is still complete.
FULL, NO_RESOURCES, FEW_COSTS, ADVISORY_GROUPED, MANDATORY_GROUPED, WEAKENED_GROUPED = range(6)
_COST_ROWS = {FEW_COSTS: 20, ADVISORY_GROUPED: 20, MANDATORY_GROUPED: 5, WEAKENED_GROUPED: 5}
_NAMES_SHOWN = 10


HEAD_FAILED, BASE_FAILED, REFUSED = "head", "base", "refused"


@dataclass(frozen=True)
class StackPlans:
    """One stack's plan documents at the PR head and base (None: a new stack, no base)."""

    stack: str
    head: Doc
    base: Doc | None = None
    error: str = ""
    """Why the stack could not be planned or judged, else ""."""
    failed: str = HEAD_FAILED
    """Which side `error` is about: the head's plan, the base's plan (a base that cannot be
    planned blocks, never reads as "no base"), or a plan refused as unjudgeable."""


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


def _empty(stack: str) -> Doc:
    return {"stack": stack, "resources": [], "cost": {"monthly_usd": 0, "baseline_monthly_usd": 0}}


def _names(names: Sequence[str], shown: int = _NAMES_SHOWN) -> str:
    listed = ", ".join(escape.code(n, 60) for n in names[:shown])
    more = len(names) - shown
    return listed + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True)
class AssumedDelta:
    """The cost change with both sides priced under one set of usage assumptions."""

    old: float
    """Head minus base, both with the base's assumptions."""
    old_base: float
    new: float
    """Head minus base, both with the head's assumptions."""
    new_base: float


@dataclass
class _Section:
    plans: StackPlans
    diff: CostDiff
    review: Review
    assumed: AssumedDelta | None = None
    """Set when the usage assumptions changed: the change under each side's assumptions."""
    _rendered: dict[int, str] = field(default_factory=dict[int, str])
    """Each level is rendered once: fitting asks for the same levels again."""

    levels = WEAKENED_GROUPED + 1

    @property
    def findings_changed(self) -> bool:
        return _finding_keys(self.plans.base) != _finding_keys(self.plans.head)

    @property
    def blocking(self) -> int:
        """Mandatory findings at the head, blocking weakenings, and a failed plan (one)."""
        if self.plans.error:
            return 1
        return _mandatory(self.plans.head) + len(self.review.blocking)

    @property
    def shown(self) -> bool:
        p = self.plans
        changed = p.base is None or not self.diff.empty or self.findings_changed
        governance = bool(self.review.changes or self.review.stale)
        return changed or governance or bool(self.blocking)

    # ---------------------------------------------------------------- pieces
    def _header(self) -> str:
        name = escape.code(self.plans.stack, 100, table=False)
        if self.plans.error:
            what = {
                HEAD_FAILED: "the stack could not be planned",
                BASE_FAILED: "the PR base could not be planned",
                REFUSED: "the plan cannot be judged",
            }[self.plans.failed]
            return f"### :x: {name}: {what}"
        d = self.diff
        change = ""
        if self.plans.base is not None and not d.empty:
            before = d.base.monthly_usd
            pct = f", {d.delta / before:+.1%}" if before >= CENT else ""
            change = f" ({_signed(d.delta)}{pct})"
        mandatory = self.blocking
        advisory = len(_violations(self.plans.head)) - _mandatory(self.plans.head)
        weakened = len(self.review.weakened)
        icon = ":x:" if mandatory else (":warning:" if weakened else ":white_check_mark:")
        governance = (
            f" · {weakened} governance weakening(s) of {len(self.review.changes)} change(s)"
            if self.review.changes
            else ""
        )
        return (
            f"### {icon} {name}: {_usd(d.head.monthly_usd)}/month{change}{self._assumed()} · "
            f"{mandatory} mandatory, {advisory} advisory finding(s){governance}"
        )

    def _assumed(self) -> str:
        """The headline's cost change under the base's and under the head's usage assumptions."""
        a = self.assumed
        if a is None:
            return ""

        def delta(value: float, before: float) -> str:
            pct = f", {value / before:+.1%}" if before >= CENT else ""
            return f"{_signed(value)}{pct}"

        return (
            f" · usage assumptions changed: {delta(a.old, a.old_base)} with the base's "
            f"assumptions, {delta(a.new, a.new_base)} with the head's"
        )

    def _failed(self) -> list[str]:
        why = {
            HEAD_FAILED: "The stack could not be planned at the PR head, so neither cost nor "
            "policies could run:",
            BASE_FAILED: "The PR base could not be planned, so nothing can be compared with it: "
            "the PR is blocked until the base plans again (a base that does not plan is never "
            "read as no base):",
            REFUSED: "This stack's plan cannot be judged (exit 2), so nothing was priced or "
            "compared:",
        }[self.plans.failed]
        return [self._header(), "", why, "", *escape.fence(self.plans.error), ""]

    def _findings(self, level: int) -> list[str]:
        found = sorted(
            _violations(self.plans.head), key=lambda v: v.get("enforcement") != "mandatory"
        )
        if not found:
            return ["No policy findings."]
        mandatory = [v for v in found if v.get("enforcement") == "mandatory"]
        advisory = [v for v in found if v.get("enforcement") != "mandatory"]
        rows = ["| | policy | resource | problem | fix |", "|---|---|---|---|---|"]
        listed = mandatory if level < MANDATORY_GROUPED else []
        grouped = [] if level < MANDATORY_GROUPED else list(mandatory)
        if level < ADVISORY_GROUPED:
            listed = listed + advisory
        else:
            grouped += advisory
        for v in listed:
            icon = ":x: mandatory" if v.get("enforcement") == "mandatory" else "advisory"
            rows.append(
                f"| {icon} | {escape.code(v.get('policy'))} | "
                f"{escape.code(v.get('resource') or 'stack', 100)} | "
                f"{escape.text(v.get('message'), 600)} | "
                f"{escape.text(v.get('remediation', ''), 300)} |"
            )
        if not grouped:
            return rows
        by_policy: dict[tuple[str, str], list[str]] = defaultdict(list)
        for v in grouped:
            key = (str(v.get("enforcement")), str(v.get("policy")))
            by_policy[key].append(str(v.get("resource") or "stack"))
        for (enforcement, policy), names in sorted(by_policy.items()):
            icon = ":x: mandatory" if enforcement == "mandatory" else "advisory"
            rows.append(
                f"| {icon} | {escape.code(policy)} | {len(names)} resource(s): "
                f"{_names(names)} | (grouped to fit; each message in the full report) | |"
            )
        return rows

    def _changes(self, level: int) -> list[str]:
        d = self.diff
        if self.plans.base is None:
            return ["A new stack (the PR base has no stack file for it): every resource is new."]
        if d.empty:
            return ["No cost change."]
        rows = [
            "| | resource | type | before | after | change |",
            "|---|---|---|---:|---:|---:|",
        ]
        cap = _COST_ROWS.get(level)
        shown = d.changes if cap is None else d.changes[:cap]
        for c in shown:
            before = "unpriced" if c.unpriced_before else _usd(c.before)
            after = "unpriced" if c.unpriced_after else _usd(c.after)
            rows.append(
                f"| {c.status} | {escape.code(c.name, 100)} | {escape.text(short_type(c.type))} | "
                f"{before} | {after} | {c.shown_delta} |"
            )
        if (hidden := len(d.changes) - len(shown)) > 0:
            rows.append(f"| | {hidden} more cost changes (full report) | | | | |")
        rows.append(
            f"| | **total** | | **{_usd(d.base.monthly_usd)}** | "
            f"**{_usd(d.head.monthly_usd)}** | **{_signed(d.delta)}** |"
        )
        if any(c.status == "replaced" for c in shown):
            rows += ["", f"<sub>{REPLACED_NOTE}.</sub>"]
        if any(c.status == "retained" for c in shown):
            rows += ["", f"<sub>{RETAINED_NOTE}.</sub>"]
        if any(c.unpriced_before or c.unpriced_after for c in shown):
            rows += ["", f"<sub>{UNPRICED_NOTE}.</sub>"]
        return rows

    def _resources(self, level: int) -> list[str]:
        raw: Any = self.plans.head.get("resources") or []
        resources = [
            r for r in cast(list[Mapping[str, Any]], raw) if not is_component(str(r["type"]))
        ]
        is_free = [r.get("monthly_usd") == 0 and not r.get("unpriced") for r in resources]
        free = [r for r, f in zip(resources, is_free, strict=True) if f]
        priced = len(resources) - len(free)
        if level >= NO_RESOURCES:
            return [
                f"Resources: {priced} with a cost, {len(free)} free (table in the full report).",
                "",
            ]
        shown = sorted(
            (r for r, f in zip(resources, is_free, strict=True) if not f),
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
                f"| {escape.code(r['name'], 100)} | {escape.text(short_type(str(r['type'])))} | "
                f"{escape.text(region_of(inputs), 60)} | {escape.text(settings_cell(r), 300)} | "
                f"{escape.text(cost_cell(r))} |"
            )
        if free:
            kinds = Counter(short_type(str(r["type"])) for r in free)
            summary = ", ".join(f"{t} x{n}" if n > 1 else t for t, n in sorted(kinds.items()))
            rows.append(
                f"| {len(free)} free resources | {escape.text(summary, 2000)} | | | $0.00 |"
            )
        return [*rows, "", "</details>", ""]

    def _ceilings(self) -> list[str]:
        # Spend caps cost $0 and fold away with the free resources; their ceiling must show.
        caps = ceilings(self.plans.head)
        if not caps:
            return []
        title = f"**{CEILINGS_TITLE[0].upper()}{CEILINGS_TITLE[1:]}** {escape.text(caps[-1])}"
        return [title, "", *(f"- {escape.text(c, 300)}" for c in caps[:-1]), ""]

    def _notes(self, level: int) -> list[str]:
        if level >= MANDATORY_GROUPED:
            return []
        head = self.plans.head
        notes: list[str] = []
        prices = catalog_note(head, "each cost line shows its date", lambda v: escape.text(v, 40))
        if prices is not None:
            notes.append(prices)
        notes += [
            f"\\* {escape.text(n, 400)}" for n in as_list(as_mapping(head.get("cost")).get("notes"))
        ]
        if (policies := policy_note(head)) is not None:
            notes.append(escape.text(policies, 600))
        d = self.diff
        saved = d.head.baseline_monthly_usd - d.head.monthly_usd
        notes.append(
            f"ungoverned baseline {_usd(d.head.baseline_monthly_usd)}/month; governance saves "
            f"{_usd(saved)}/month"
        )
        # what the totals above hold (a usage file's egress, a commitment's prices), from mlgov's
        # own words and the documents' numbers, so nothing to escape but the usage file's name
        notes.append(escape.text(totals_note(d.base, d.head), 600))
        return [f"<sub>{n}</sub><br>" for n in notes]

    # ---------------------------------------------------------------- Foldable
    def render(self, level: int) -> str:
        if level not in self._rendered:
            self._rendered[level] = linked_markdown(self._render(level))
        return self._rendered[level]

    def _render(self, level: int) -> str:
        if self.plans.error:
            return "\n".join(self._failed()) + "\n"
        r = self.review
        weakened_detail = (
            2 if level >= WEAKENED_GROUPED else (1 if level >= MANDATORY_GROUPED else 0)
        )
        weakened = (
            _grouped_weakenings(r)
            if level >= WEAKENED_GROUPED
            else govrender.weakened_markdown(r, weakened_detail)
        )
        other_detail = 0 if level < FEW_COSTS else (1 if level < ADVISORY_GROUPED else 2)
        governance_note = (
            [
                "A new stack: judged on its own against what every stack starts with "
                "(functions that act, no exemptions, the governance functions and a budget).",
                "",
            ]
            if self.plans.base is None
            else []
        )
        out = [
            self._header(),
            "",
            *weakened,
            *[line for s in govrender.stale_markdown(r) for line in (s, "")],
            "**Policy findings**",
            "",
            *self._findings(level),
            "",
            *governance_note,
            *govrender.other_markdown(r, other_detail),
            "**Cost changes**",
            "",
            *self._changes(level),
            "",
            *self._ceilings(),
            *self._resources(level),
            # each resource's folded cost lines (issue 21), folded away with the resource table
            *(cost_section(self.plans.head) if level < NO_RESOURCES else []),
            *self._notes(level),
            "",
        ]
        return "\n".join(out) + "\n"

    def summary(self) -> str:
        return (
            f"{self._header()}\n\n(Details did not fit in this comment: see the full report.)\n\n"
        )


def _grouped_weakenings(r: Review) -> list[str]:
    """Weakenings by what they lose, ids listed: the comment's last resort for huge PRs."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for c in r.weakened:
        status = (
            "acknowledged" if r.reason(c) is not None else ("mandatory" if r.prod else "advisory")
        )
        groups[(status, c.why)].append(c.id)
    rows = ["**Governance weakened**", "", "| | changes | what is lost |", "|---|---|---|"]
    for (status, why), ids in sorted(groups.items()):
        icon = ":x: mandatory" if status == "mandatory" else status
        rows.append(f"| {icon} | {len(ids)}: {_names(ids, 20)} | {escape.text(why)} |")
    return [*rows, "", "(Grouped to fit; the full report lists each change.)", ""]


@dataclass(frozen=True)
class Comment:
    """The PR comment (fitted), the full report, and how many things block the PR."""

    text: str
    full: str
    blocking: int
    folded: bool


def _section(p: StackPlans) -> _Section:
    if p.error:
        return _Section(p, diff_plans(_empty(p.stack), _empty(p.stack)), no_changes(p.head))
    base = p.base if p.base is not None else _empty(p.stack)
    governance = (
        review(p.base, p.head)
        if p.base is not None
        else no_changes(p.head, standalone_changes(p.head))  # a new stack, judged on its own
    )
    diff = diff_plans(base, p.head)
    if guarded := guardrail.judged(diff, p.base, p.head):
        # The cost guardrail's finding joins the head's findings: counted, listed and blocking
        # as any other mandatory one.
        p = replace(p, head={**p.head, "violations": [*_violations(p.head), *guarded]})
    return _Section(p, diff, governance, _assumed_delta(p, diff))


def _reassumed(doc: Doc, assumptions: Any) -> Doc:
    """The document priced again under other usage assumptions (its totals dropped)."""
    raw: Any = doc.get("resources") or []
    resources = [
        {k: v for k, v in cast(Mapping[str, Any], r).items() if k != "monthly_usd"}
        for r in cast(list[Any], raw)
    ]
    return {**{k: v for k, v in doc.items() if k != "cost"}, "resources": resources,
            "assumptions": assumptions}  # fmt: skip


def _assumed_delta(p: StackPlans, diff: CostDiff) -> AssumedDelta | None:
    """The change under each side's assumptions, when the PR changes them (else None)."""
    if p.base is None:
        return None
    old: Any = p.base.get("assumptions") or {}
    new: Any = p.head.get("assumptions") or {}
    if old == new:
        return None
    try:
        head_old = plan_cost(_reassumed(p.head, old), origin="head").monthly_usd
        base_new = plan_cost(_reassumed(p.base, new), origin="base").monthly_usd
    except (CostError, CliError):
        return None  # the other side's assumptions do not fit: the headline stays as it is
    return AssumedDelta(
        old=cents(head_old - diff.base.monthly_usd),
        old_base=diff.base.monthly_usd,
        new=cents(diff.head.monthly_usd - base_new),
        new_base=base_new,
    )


def build_comment(
    stacks: Sequence[StackPlans],
    report_url: str | None = None,
    limit: int = GITHUB_LIMIT,
    code: CodeReview | None = None,
) -> Comment:
    """The PR comment for these stacks' plans, fitted into `limit`, and the full report.

    `code` (the judge's review of the changed files that decide governance) adds its section;
    unapproved files block when any stack is prod.
    """
    sections = [_section(p) for p in stacks]
    shown = [s for s in sections if s.shown]
    quiet = [s.plans.stack for s in sections if not s.shown]
    prod = any(is_prod(s.plans.base, s.plans.head) for s in sections)
    code_lines, code_blocking = code_section(code, prod) if code is not None else ([], 0)
    blocking = sum(s.blocking for s in sections) + code_blocking
    weakened = sum(len(s.review.weakened) for s in sections)
    icon = ":x:" if blocking else ":white_check_mark:"
    verdict = (
        f"{blocking} mandatory finding(s), unacknowledged prod weakening(s), unapproved "
        "governance code or failed plan(s): this PR cannot merge as is"
        if blocking
        else "no mandatory findings"
    )
    head = [MARKER, "## mlgov plan: governance, cost and policy check", "", f"{icon} {verdict}."]
    partial = [n for s in sections if (n := partial_note(s.plans.head)) is not None]
    if partial:
        # Said first, before anything a reader could take for the whole stack's verdict.
        names = ", ".join(
            escape.code(s.plans.stack, 100, table=False)
            for s in sections
            if partial_note(s.plans.head) is not None
        )
        # mlgov's own words around a count partial_note read as an int: nothing to escape.
        head.insert(0, f":warning: {partial[0]} ({names}).")
    if weakened:
        head.append(
            f":warning: {weakened} change(s) weaken governance: see **Governance weakened**."
        )
    if shown:
        names = ", ".join(escape.code(s.plans.stack, 100, table=False) for s in shown)
        head.append(f"Stacks with changes: {names}.")
    if quiet:
        names = ", ".join(escape.code(q, 100, table=False) for q in quiet)
        head.append(f"Unchanged (same governance, cost and findings): {names}.")
    head.append("")
    head += code_lines
    tail = [
        "<sub>Estimates: catalog prices x the plan's usage assumptions (docs/reference/costs.md); "
        "spot prices change up to daily.</sub>"
    ]
    full = linked_markdown(
        "\n".join(head) + "\n" + "".join(s.render(FULL) for s in shown) + "\n".join(tail) + "\n"
    )
    link = _report_link(report_url)
    head_text = linked_markdown("\n".join(head) + "\n")
    tail_text = linked_markdown("\n".join([*link, *tail]) + "\n")
    fitted = fit(head_text, shown, tail_text, limit)
    if fitted.folded:
        note = (
            "Details were folded to fit GitHub's comment limit; the full report has them all.\n\n"
        )
        fitted = fit(head_text + note, shown, tail_text, limit)
    text = fitted.text
    return Comment(text, full, blocking, fitted.folded)


def _report_link(url: str | None) -> list[str]:
    # Only an https URL is linked (the workflow passes the artifact's); anything else is shown
    # as text, never as a link.
    if not url:
        return []
    if url.startswith("https://") and not any(c in url for c in " <>()[]`\"'\n"):
        return [f"Full report (every resource, finding and change): [workflow artifact]({url})", ""]
    return [f"Full report: {escape.text(url, 200)}", ""]


def render_comment(stacks: Sequence[StackPlans], report_url: str | None = None) -> str:
    """The whole PR comment (Markdown, starting with `MARKER`) for these stacks' plans."""
    return build_comment(stacks, report_url).text
