"""Whether an owner approved each changed file that decides governance: pure.

The review state comes from GitHub (github.py writes it as an approvals document: who approved
the PR's head commit, and which of them belong to which owning team). A file counts as approved
when one of its owners (CODEOWNERS, owners.py), or a member of one of its owning teams, approved
the head commit and is not the PR's author. A file with no owner can never be approved, and an
unreadable review state approves nothing: both say why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from governance.review.judge.owners import OwnerRules, Owners

POLICY = "mlgov-governance-code-changed"
"""The finding a changed, unapproved governance file is reported as (mandatory in prod)."""


@dataclass(frozen=True)
class Approvals:
    """The review state of one PR head commit, as github.py read it."""

    head_sha: str = ""
    author: str = ""
    approved_by: tuple[str, ...] = ()
    teams: Mapping[str, tuple[str, ...]] | None = None
    unresolved_teams: Mapping[str, str] | None = None
    error: str = ""

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Approvals:
        """From an approvals document; anything malformed approves nothing (`error` says so)."""

        def names(value: object) -> tuple[str, ...]:
            items = cast(list[object], value) if isinstance(value, list) else []
            return tuple(str(x).lower() for x in items if isinstance(x, str))

        teams = _mapping(data.get("teams"))
        unresolved = _mapping(data.get("unresolved_teams"))
        return cls(
            head_sha=str(data.get("head_sha") or ""),
            author=str(data.get("author") or "").lower(),
            approved_by=names(data.get("approved_by")),
            teams={k.lower(): names(v) for k, v in teams.items()},
            unresolved_teams={k.lower(): str(v) for k, v in unresolved.items()},
            error=str(data.get("error") or ""),
        )


def _mapping(value: object) -> dict[str, object]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v for k, v in cast(Mapping[object, object], value).items()}


@dataclass(frozen=True)
class FileReview:
    """One changed governance file: its owners and the owners who approved it."""

    path: str
    owners: Owners
    approved_by: tuple[str, ...]

    @property
    def approved(self) -> bool:
        """Whether an owner approved the file."""
        return bool(self.approved_by)


@dataclass(frozen=True)
class CodeReview:
    """Every changed file that decides governance, and whether each has an owner's approval."""

    files: tuple[FileReview, ...]
    approvals: Approvals | None = None
    codeowners: str = ""
    """Where the owners came from (the base's CODEOWNERS path), or "" when it has none."""

    @property
    def changed(self) -> bool:
        """Whether the PR changes any file that decides governance."""
        return bool(self.files)

    @property
    def unapproved(self) -> tuple[FileReview, ...]:
        """The files no owner approved."""
        return tuple(f for f in self.files if not f.approved)

    @property
    def problem(self) -> str:
        """Why approvals could not count, or ""."""
        if self.approvals is None:
            return "the review state was not read"
        return self.approvals.error


def _approvers(owners: Owners, approvals: Approvals) -> tuple[str, ...]:
    if approvals.error:
        return ()
    people = {a for a in approvals.approved_by if a and a != approvals.author}
    direct = {u for u in owners.users if u in people}
    teams = approvals.teams or {}
    via_team = {
        f"{member} (@{team})"
        for team in owners.teams
        for member in teams.get(team, ())
        if member in people
    }
    return tuple(sorted(direct | via_team))


def review_code(paths: Sequence[str], rules: OwnerRules, approvals: Approvals | None) -> CodeReview:
    """The review of each changed governance file against the owners' approvals."""
    files = tuple(
        FileReview(
            path,
            owners := rules.of(path),
            _approvers(owners, approvals) if approvals is not None else (),
        )
        for path in paths
    )
    return CodeReview(files, approvals, rules.source)


def teams_needed(paths: Sequence[str], rules: OwnerRules) -> list[str]:
    """Every team that owns one of the paths (whose members' approvals must be looked up)."""
    return sorted({t for p in paths for t in rules.of(p).teams})
