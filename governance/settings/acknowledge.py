"""`acknowledge`: a stack's explicit decisions to accept weakening governance changes.

In prod, every change that weakens governance (governance/review/govdiff) is a mandatory finding
of the PR check unless the stack file names it here, with a reason a reviewer can read:

    acknowledge:
      - {change: policy.dry_run, reason: "INC-123: cap misfired on prod; dry run until fixed"}

`change` is the id the PR comment shows for the change. The plan document carries these as
`acknowledgements`, so `mlgov comment` and `mlgov diff` see them. An acknowledgement that names
no change of a PR is reported as stale (remove it once the change has merged). This module only
validates the shape; matching happens in govdiff/review.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Protocol

from pydantic import field_validator

from governance.settings.base import Model, Problem

MIN_REASON = 10
"""Shortest reason accepted: a ticket id and a few words, not `ok` or `.`."""
_CHANGE_ID = re.compile(r"[^\s`|<>]{1,300}")


class Acknowledgement(Model):
    """One weakening change the stack accepts, and why."""

    change: str
    reason: str

    @field_validator("change")
    @classmethod
    def _change(cls, value: str) -> str:
        if not _CHANGE_ID.fullmatch(value):
            raise ValueError(
                "must be a change id as the PR comment shows it, e.g. policy.dry_run "
                "(no spaces, at most 300 characters)"
            )
        return value

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str) -> str:
        text = " ".join(value.split())
        if len(text) < MIN_REASON or len(text) > 500:
            raise ValueError(
                f"must say why, in {MIN_REASON} to 500 characters (a ticket and a few words)"
            )
        return text


class _AcknowledgeStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def acknowledge(self) -> tuple[Acknowledgement, ...]: ...


def problems(s: _AcknowledgeStack) -> Iterator[Problem]:
    """The same change acknowledged twice."""
    seen: set[str] = set()
    for i, ack in enumerate(s.acknowledge):
        if ack.change in seen:
            yield f"acknowledge.{i}.change", f"{ack.change!r} is acknowledged twice; keep one"
        seen.add(ack.change)
