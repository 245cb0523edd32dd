"""AcceptanceRule: one cloud-acceptance check with the metadata the policy index needs.

Each service module (gpus.py, tpus.py, bigquery.py, scheduling.py, functions.py, scheduler.py)
defines its checks and, beside each, an `AcceptanceRule`; the package's `RULES` lists them all.
The fields mirror what the CrossGuard pack and the offline evaluator show (name, description,
why, remediation, enforcement, covered types), plus the Google document the rule enforces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mlgov_policies.config import PolicyConfig

ResourceCheck = Callable[[str, Mapping[str, Any], PolicyConfig], Iterator[str]]


@dataclass(frozen=True, kw_only=True)
class AcceptanceRule:
    """A mandatory rule: inputs the Google API would refuse at create time."""

    name: str
    check: ResourceCheck
    types: frozenset[str]
    why: str
    remediation: str
    source: str
    """`<doc title> <URL>` of the Google documentation the rule enforces."""
    enforcement: Literal["mandatory"] = "mandatory"
    config_keys: tuple[str, ...] = ()
    """PolicyConfig fields the rule reads: none, the cloud's rules do not vary per environment."""

    @property
    def description(self) -> str:
        """One-line description: the first line of the check's docstring."""
        doc = (self.check.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else self.name

    def as_dict(self) -> dict[str, object]:
        """JSON-ready metadata, the keys of the policy registry's entries plus `source`."""
        return {
            "name": self.name,
            "kind": "resource",
            "description": self.description,
            "why": self.why,
            "remediation": self.remediation,
            "enforcement": self.enforcement,
            "types": sorted(self.types),
            "config_keys": list(self.config_keys),
            "source": self.source,
        }
