"""`GovernanceChange`: one change to what governs a stack, and whether it weakens governance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["stack", "policy", "rule", "budget", "limit", "label", "schedule", "iam", "identity"]
"""What part of governance a change touches (the comment groups by it)."""

Scalar = str | float | bool | None
Value = Scalar | tuple[str, ...]
"""A governed value as compared: a scalar, or a sorted tuple for sets (zones, thresholds)."""


@dataclass(frozen=True, slots=True)
class GovernanceChange:
    """One governed value that differs between the base and the head plan."""

    kind: Kind
    path: str
    """Stable id of the change, e.g. `policy.dry_run` or `training-l4-spot.labels.mlgov-exempt`:
    what the comment shows and what `acknowledge: [{change: ...}]` names."""
    before: Value
    after: Value
    weakens: bool
    why: str
    """What the value governs, and for a weakening, what is lost."""
    resource: str = "stack"
    """The resource (logical name) the value belongs to, or `stack`/`functions`."""

    @property
    def id(self) -> str:
        """The change id an acknowledgement names (the path)."""
        return self.path

    def as_dict(self) -> dict[str, object]:
        """JSON form (tuples as lists)."""
        return {
            "id": self.path,
            "kind": self.kind,
            "resource": self.resource,
            "before": list(self.before) if isinstance(self.before, tuple) else self.before,
            "after": list(self.after) if isinstance(self.after, tuple) else self.after,
            "weakens": self.weakens,
            "why": self.why,
        }
