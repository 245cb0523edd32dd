"""The governance diff for people: Markdown for the PR comment, plain text for `mlgov diff`.

Weakening changes always come first and in full (each with its id, the value before and after,
what is lost, and its acknowledgement or why it blocks), because a reviewer must see each one and
prod must name each one to accept it. Other changes fold as the comment needs room (`detail`:
0 = a table, 1 = ids only, 2 = counts per kind). Every value from a stack goes through
governance/text/escape.py.
"""

from __future__ import annotations

from collections import Counter

from governance.review.govdiff.change import GovernanceChange, Value
from governance.review.govdiff.read import PRESENT
from governance.review.govdiff.review import MANDATORY_POLICY, Review
from governance.text import escape

FOLDED = 1
IDS_SHOWN = 100
COUNTED = 2
_VALUE_LIMIT = (120, 60, 40)


def shown(value: Value, other: Value = None) -> str:
    """A governed value as words: `not set`, `true`, `240`, `a, b`.

    `other` is the value on the other side: where one side is a resource being there (PRESENT),
    the missing side reads `absent` (a pool removed is not a setting left unset).
    """
    if value is None:
        return "absent" if other == PRESENT else "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ", ".join(value) if value else "(none)"
    return str(value)


def _status(review: Review, change: GovernanceChange) -> str:
    reason = review.reason(change)
    if reason is not None:
        return f":white_check_mark: acknowledged: {escape.text(reason, 200)}"
    if review.prod:
        return f":x: mandatory ({escape.code(MANDATORY_POLICY)})"
    return ":warning: weakens (not prod: advisory)"


def _cells(change: GovernanceChange, detail: int) -> str:
    limit = _VALUE_LIMIT[min(detail, len(_VALUE_LIMIT) - 1)]
    return (
        f"{escape.code(change.id)} | {escape.text(shown(change.before, change.after), limit)} | "
        f"{escape.text(shown(change.after, change.before), limit)} | {escape.text(change.why)} |"
    )


def weakened_markdown(review: Review, detail: int = 0) -> list[str]:
    """The **Governance weakened** block: every weakening change, in full; [] when none."""
    changes = review.weakened
    if not changes:
        return []
    rows = [
        "**Governance weakened**",
        "",
        "| | change id | before | after | what is lost |",
        "|---|---|---|---|---|",
        *(f"| {_status(review, c)} | {_cells(c, detail)}" for c in changes),
        "",
    ]
    if blocking := review.blocking:
        example = escape.code(
            f'acknowledge: [{{change: {blocking[0].id}, reason: "<ticket>: <why>"}}]', table=False
        )
        rows += [
            f"This is a prod stack: each weakening above blocks the PR until the stack file "
            f"accepts it under `mlgov:settings` with a reason, e.g. {example}.",
            "",
        ]
    return rows


def stale_markdown(review: Review) -> list[str]:
    """A warning per acknowledgement that names no change of this PR."""
    return [
        f":warning: acknowledgement {escape.code(a.change, table=False)} names no change in this "
        "PR: remove it from `acknowledge` (left in place it would pass the same change unseen "
        "next time)."
        for a in review.stale
    ]


def other_markdown(review: Review, detail: int = 0) -> list[str]:
    """Changes that do not weaken governance: a table, ids only, or counts per kind."""
    changes = review.other
    if not changes:
        return []
    head = f"<details><summary>Other governance changes: {len(changes)}</summary>"
    if detail >= COUNTED:
        kinds = Counter(c.kind for c in changes)
        summary = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        return [f"Other governance changes (none weakens): {summary} (full report).", ""]
    if detail >= FOLDED:
        ids = ", ".join(escape.code(c.id, 80, table=False) for c in changes[:IDS_SHOWN])
        more = len(changes) - IDS_SHOWN
        ids += f" and {more} more (full report)" if more > 0 else ""
        return [head, "", ids, "", "</details>", ""]
    return [
        head,
        "",
        "| change id | before | after | what it governs |",
        "|---|---|---|---|",
        *(f"| {_cells(c, 0)}" for c in changes),
        "",
        "</details>",
        "",
    ]


def text_lines(review: Review) -> list[str]:
    """Plain text for `mlgov diff`: weakening changes, then the others, then stale ones."""
    if not review.changes and not review.stale:
        return ["no governance change"]
    lines: list[str] = []
    if review.weakened:
        lines.append("Governance weakened:")
        for c in review.weakened:
            reason = review.reason(c)
            mark = (
                f"acknowledged: {reason}"
                if reason is not None
                else ("MANDATORY (prod)" if review.prod else "advisory")
            )
            before, after = shown(c.before, c.after), shown(c.after, c.before)
            lines.append(f"  ! {c.id}: {before} -> {after} [{mark}]")
            lines.append(f"      {c.why}")
    if review.other:
        lines.append("Other governance changes:")
        lines += [
            f"  ~ {c.id}: {shown(c.before, c.after)} -> {shown(c.after, c.before)}"
            for c in review.other
        ]
    lines += [f"stale acknowledgement: {a.change} names no change" for a in review.stale]
    return lines
