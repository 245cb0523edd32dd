"""The comment's **Code that decides governance changed** section, and whether it blocks.

When a PR changes code (or config) that decides governance, its head plans were produced by that
code, so the comment can only vouch for them once an owner has read it: in a project with a prod
stack the change is a mandatory finding (`mlgov-governance-code-changed`) until an owner of every
such file approves the PR's head commit; elsewhere it is advisory. Every path and name from the
PR is escaped (governance/text/escape.py).
"""

from __future__ import annotations

from governance.review.judge.approvals import POLICY, CodeReview
from governance.text import escape

SHOWN = 40
"""Files listed in the comment (a PR changing more lists the unapproved ones first)."""


def _row(path: str, owners: list[str], approved_by: tuple[str, ...]) -> str:
    who = ", ".join(escape.text(o, 60) for o in owners) or "no owner (CODEOWNERS names none)"
    approved = ", ".join(escape.text(a, 60) for a in approved_by) or ":x: not yet"
    return f"| {escape.code(path, 200)} | {who} | {approved} |"


def code_section(review: CodeReview, prod: bool) -> tuple[list[str], int]:
    """The section's lines ([] when no such file changed) and how many findings block (0/1)."""
    if not review.changed:
        return [], 0
    waiting = review.unapproved
    blocking = 1 if prod and waiting else 0
    source = escape.code(review.codeowners) if review.codeowners else "no CODEOWNERS file"
    lines = [
        f"**Code that decides governance changed** ({len(review.files)} file(s); owners from "
        f"{source} at the PR base)",
        "",
    ]
    if not waiting:
        lines.append(":white_check_mark: an owner approved every file on this commit.")
    elif prod:
        lines.append(
            f":x: mandatory ({escape.code(POLICY)}): the head plans come from this PR's own code, "
            f"so they only count once an owner has read it: {len(waiting)} file(s) wait for an "
            "owner's approval of this commit."
        )
    else:
        lines.append(
            f":warning: advisory (no prod stack): {len(waiting)} file(s) have no owner's "
            "approval of this commit; the head plans come from this PR's own code."
        )
    if review.problem:
        lines.append(
            f"The review state could not be read ({escape.text(review.problem, 300)}): nothing "
            "counts as approved."
        )
    approvals = review.approvals
    for team, why in sorted((approvals.unresolved_teams or {}).items()) if approvals else []:
        lines.append(f"Team {escape.text('@' + team, 100)} could not be read: {escape.text(why)}")
    ordered = sorted(review.files, key=lambda f: (f.approved, f.path))
    lines += ["", "| file | owners | approved by |", "|---|---|---|"]
    lines += [_row(f.path, f.owners.names(), f.approved_by) for f in ordered[:SHOWN]]
    if len(ordered) > SHOWN:
        lines.append(f"| and {len(ordered) - SHOWN} more file(s) | | |")
    return [*lines, ""], blocking
