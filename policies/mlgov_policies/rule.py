"""What a rule is: a check plus the metadata people and CrossGuard see, declared side by side.

A resource rule checks one resource's input properties: `check(type_token, props, config)`
yields one message per violation. A stack rule checks all resources at once:
`check(resources, config)` yields `(index | None, message)`, where `index` points into
`resources` (None: the stack as a whole). Checks never raise on odd or unknown values; they skip
what cannot be known at preview time. The rules themselves live in `rules/<service>.py`, their
literal index in registry.py; pack.py turns them into CrossGuard policies and evaluate.py runs
them offline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple

from mlgov_policies.config import PolicyConfig

Enforcement = Literal["mandatory", "advisory"]


class StackResource(NamedTuple):
    """One resource as a stack rule sees it."""

    type: str
    name: str
    props: Mapping[str, Any]
    own_region: tuple[str, str] | None = None
    """(region, where from): what its own provider or the stack config gives it, for another
    team's program read from a Pulumi file (None: not known, or mlgov's own stack)."""


ResourceCheck = Callable[[str, Mapping[str, Any], PolicyConfig], Iterator[str]]
StackCheck = Callable[[Sequence[StackResource], PolicyConfig], Iterator[tuple[int | None, str]]]


@dataclass(frozen=True, kw_only=True)
class _Rule:
    """What every rule declares: its check and the metadata people and CrossGuard see."""

    name: str
    """`mlgov-<service>-<rule>`: the CrossGuard policy name and the plan document's `policy`."""
    check: Callable[..., Iterator[object]]
    """Its docstring's first line is the rule's description."""
    why: str
    remediation: str
    enforcement: Enforcement
    types: frozenset[str]
    """Type tokens the rule looks at (CrossGuard still calls it for every resource)."""
    config_keys: tuple[str, ...] = ()
    """PolicyConfig fields the rule reads (they become its CrossGuard config schema)."""
    source: str = ""
    """`<doc title> <URL>` of the Google (or provider) documentation a cloud-acceptance or
    schema rule enforces; empty for mlgov's own cost rules. Findings quote it too."""
    kind: ClassVar[str]

    @property
    def description(self) -> str:
        """One-line description: the first line of the check's docstring."""
        doc = self.check.__doc__
        return doc.strip().splitlines()[0] if doc and doc.strip() else ""

    def as_dict(self) -> dict[str, object]:
        """JSON-ready metadata."""
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "why": self.why,
            "remediation": self.remediation,
            "enforcement": self.enforcement,
            "types": sorted(self.types),
            "config_keys": list(self.config_keys),
            "source": self.source,
        }


@dataclass(frozen=True, kw_only=True)
class ResourceRule(_Rule):
    """A rule over one resource's inputs."""

    check: ResourceCheck
    kind: ClassVar[str] = "resource"


@dataclass(frozen=True, kw_only=True)
class StackRule(_Rule):
    """A rule over all resources of the stack."""

    check: StackCheck
    kind: ClassVar[str] = "stack"


Rule = ResourceRule | StackRule


def shown(value: object) -> str:
    """A property value as a message shows it: `repr`, or "not set" for an absent value."""
    return "not set" if value is None else repr(value)
