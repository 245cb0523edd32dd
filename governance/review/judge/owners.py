"""Who owns a file: the base revision's CODEOWNERS, matched as GitHub matches it.

GitHub reads the first of `.github/CODEOWNERS`, `CODEOWNERS` and `docs/CODEOWNERS` on the base
branch; the last pattern that matches a path decides its owners, and a pattern with no owners
leaves the path unowned. The patterns are matched by the `codeowners` library (a port of the Go
matcher GitHub's rules are documented with). Owners are `@user`, `@org/team` or an e-mail; only
users and teams can approve a review.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codeowners import CodeOwners

LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


@dataclass(frozen=True)
class Owners:
    """One path's owners: GitHub user logins and `org/team` slugs (without `@`)."""

    users: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()
    line: int | None = None
    """The CODEOWNERS line that decided them (None: no pattern matched)."""

    @property
    def any(self) -> bool:
        """Whether someone can approve the path."""
        return bool(self.users or self.teams)

    def names(self) -> list[str]:
        """`@user` and `@org/team`, as CODEOWNERS writes them."""
        return [f"@{u}" for u in self.users] + [f"@{t}" for t in self.teams]


class OwnerRules:
    """A CODEOWNERS file (empty text: nobody owns anything)."""

    def __init__(self, text: str, source: str = "") -> None:
        self.source = source
        self._rules = CodeOwners(text)

    def of(self, path: str) -> Owners:
        """The owners of `path` (relative, POSIX)."""
        owners, line, _, _ = self._rules.matching_line(path)
        users = tuple(o[1].removeprefix("@").lower() for o in owners if o[0] == "USERNAME")
        teams = tuple(o[1].removeprefix("@").lower() for o in owners if o[0] == "TEAM")
        return Owners(users, teams, line)


def find_codeowners(root: Path) -> tuple[str, str]:
    """(text, path relative to `root`) of the repository's CODEOWNERS; ("", "") when none."""
    for name in LOCATIONS:
        path = root / name
        if path.is_file():
            return path.read_text(encoding="utf-8", errors="replace"), name
    return "", ""
