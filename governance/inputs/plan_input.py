"""What one input file yields: the plan document to check, and, for a preview, the plan before it.

`check` evaluates `plan`; `diff FILE` of a single preview compares `before` with `plan`. Files
in mlgov's own format have no `before` (a plan document is one state, not a change).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

from governance.inputs.document import PlanDocument

OWN_FORMAT = "mlgov plan document"


@dataclass(frozen=True)
class PlanInput:
    """A plan document read from one file, in whichever format the file was."""

    plan: PlanDocument
    format: str = OWN_FORMAT
    read_before: Callable[[], PlanDocument] | None = field(default=None, repr=False, compare=False)
    """Builds `before` (a preview's: `check` never needs it, so it is built on first use)."""

    @cached_property
    def before(self) -> PlanDocument | None:
        """The plan before the change, for a preview (its own before/after); None otherwise."""
        return self.read_before() if self.read_before is not None else None

    @property
    def converted(self) -> bool:
        """Whether the file was one of Pulumi's formats (so nothing in it was evaluated yet)."""
        return self.format != OWN_FORMAT


def as_object(value: Any) -> dict[str, Any]:
    """A JSON object as a typed dict; anything else as an empty one (for optional parts)."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def first_names(names: list[str], shown: int = 5) -> str:
    """The first `shown` names, comma-separated, with ", ..." when there are more."""
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")


def warning(source: str, message: str) -> dict[str, str]:
    """A plan-document warning about the input file (`mlgov: warning: FILE: ...` on stderr)."""
    return {"key": source, "message": message}
