"""The prod rule: in prod, a weakening is a mandatory finding unless the stack acknowledges it.

`review(base, head)` compares the two plans (compare.py) and applies the head's acknowledgements
(the plan document's `acknowledgements`, from `mlgov:settings.acknowledge`): each names a change
id and a reason. An acknowledgement that names no change is stale (a warning: remove it, or it
would silently pass the same change next time). The stack is prod when either plan says so
(`policy_config.environment`), so moving a stack out of prod is itself reviewed as prod.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from governance.review.govdiff.change import GovernanceChange
from governance.review.govdiff.compare import governance_changes
from mlgov_policies.props import as_list, as_mapping, as_str

MANDATORY_POLICY = "mlgov-governance-weakened"
"""The finding a blocking weakening is reported as (comment and diff exit 1)."""
PROD = "prod"


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """A stack's explicit decision to accept one weakening change."""

    change: str
    reason: str


@dataclass(frozen=True)
class Review:
    """One stack's governance changes, its acknowledgements, and what blocks."""

    changes: tuple[GovernanceChange, ...]
    prod: bool
    acknowledgements: tuple[Acknowledgement, ...] = ()

    @property
    def weakened(self) -> tuple[GovernanceChange, ...]:
        """The changes that weaken governance."""
        return tuple(c for c in self.changes if c.weakens)

    @property
    def other(self) -> tuple[GovernanceChange, ...]:
        """The changes that do not weaken governance."""
        return tuple(c for c in self.changes if not c.weakens)

    def reason(self, change: GovernanceChange) -> str | None:
        """The acknowledgement's reason for this change, or None."""
        return next((a.reason for a in self.acknowledgements if a.change == change.id), None)

    @property
    def blocking(self) -> tuple[GovernanceChange, ...]:
        """Weakenings that are mandatory findings: in prod and not acknowledged."""
        if not self.prod:
            return ()
        return tuple(c for c in self.weakened if self.reason(c) is None)

    @property
    def stale(self) -> tuple[Acknowledgement, ...]:
        """Acknowledgements that name no change of this diff."""
        ids = {c.id for c in self.changes}
        return tuple(a for a in self.acknowledgements if a.change not in ids)

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "prod": self.prod,
            "changes": [
                {**c.as_dict(), **({"acknowledged": r} if (r := self.reason(c)) else {})}
                for c in self.changes
            ],
            "blocking": [c.id for c in self.blocking],
            "stale_acknowledgements": [
                {"change": a.change, "reason": a.reason} for a in self.stale
            ],
        }


def acknowledgements_of(doc: Mapping[str, Any]) -> tuple[Acknowledgement, ...]:
    """The plan document's acknowledgements (shape-checked by document.py)."""
    found: list[Acknowledgement] = []
    for item in as_list(doc.get("acknowledgements")):
        entry = as_mapping(item)
        change, reason = as_str(entry.get("change")), as_str(entry.get("reason"))
        if change and reason:
            found.append(Acknowledgement(change, reason))
    return tuple(found)


def _environment(doc: Mapping[str, Any] | None) -> str | None:
    """The stack's environment: `policy_config.environment`, else judged by the stack's name.

    A document without the key (a plan converted from another tool) is prod when its stack is
    named `prod` or `*-prod`, so losing the key never switches the prod rule off.
    """
    data = cast(Mapping[str, Any], doc or {})
    environment = as_str(as_mapping(data.get("policy_config")).get("environment"))
    if environment is not None:
        return environment
    stack = (as_str(data.get("stack")) or "").lower()
    return PROD if stack == PROD or stack.endswith(("-prod", "_prod", ".prod")) else None


def is_prod(*docs: Mapping[str, Any] | None) -> bool:
    """Whether any of the documents is a prod stack."""
    return any(_environment(d) == PROD for d in docs)


def review(base: Mapping[str, Any], head: Mapping[str, Any]) -> Review:
    """The governance changes from base to head, with the head's acknowledgements."""
    return Review(
        tuple(governance_changes(base, head)), is_prod(base, head), acknowledgements_of(head)
    )


def no_changes(head: Mapping[str, Any], changes: Sequence[GovernanceChange] = ()) -> Review:
    """A review with no comparison (no base plan): only the head's acknowledgements."""
    return Review(tuple(changes), is_prod(head), acknowledgements_of(head))
