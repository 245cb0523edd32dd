"""Fit a PR comment into GitHub's 65,536 characters by folding details, never by cutting stacks.

A comment is a head, parts that can each render with less detail (`Foldable.render(level)`,
level 0 = everything), and a tail. `fit` starts with every part in full and, while the comment is
too long, folds the currently largest part one level further. Parts fold their least important
details first (resource tables, then cost rows, then advisory findings ...; comment.py decides);
what a reviewer must see (each stack's header, mandatory findings, weakening changes) is kept at
every level. Only if every part is at its last level and the comment is still too long are the
last parts replaced by their one-line summaries (`Foldable.summary()`), which no stack loses.
Size is counted in UTF-16 code units, as GitHub's limit is checked (an emoji counts twice).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

GITHUB_LIMIT = 65_536
"""Longest issue or PR comment body GitHub accepts, in characters."""


class Foldable(Protocol):
    """A part of a comment that can be shown with less detail."""

    @property
    def levels(self) -> int:
        """How many levels it renders at (0 .. levels-1)."""
        ...

    def render(self, level: int) -> str:
        """The part at one level of detail (0 = all)."""
        ...

    def summary(self) -> str:
        """One or two lines that still name the part and its verdict."""
        ...


def size(text: str) -> int:
    """Length as GitHub counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


@dataclass(frozen=True)
class Fitted:
    """The comment body and whether anything was folded away."""

    text: str
    folded: bool


def fit(head: str, parts: Sequence[Foldable], tail: str, limit: int = GITHUB_LIMIT) -> Fitted:
    """`head + parts + tail` within `limit`, folding the largest part first."""
    levels = [0] * len(parts)
    rendered = [p.render(0) for p in parts]
    sizes = [size(r) for r in rendered]
    fixed = size(head) + size(tail)
    while fixed + sum(sizes) > limit:
        foldable = [i for i, p in enumerate(parts) if levels[i] < p.levels - 1]
        if not foldable:
            break
        i = max(foldable, key=lambda j: sizes[j])
        levels[i] += 1
        rendered[i] = parts[i].render(levels[i])
        sizes[i] = size(rendered[i])
    folded = any(levels)
    # Last resort: from the end, parts give way to their summaries until the body fits.
    for i in reversed(range(len(parts))):
        if fixed + sum(sizes) <= limit:
            break
        rendered[i] = parts[i].summary()
        sizes[i] = size(rendered[i])
        folded = True
    return Fitted(head + "".join(rendered) + tail, folded)
