"""A usage file resolved against one plan: each resource's validated declaration.

Its own module so the plan context (context.py) can hold one without importing usage_file.py,
which imports registry.py and through it every cost file, each of which imports the context:
an import circle through the whole of costs/. usage_file.py builds it (`declared_usage`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from governance.costs.model import Resource

__all__ = ["DeclaredUsage"]


class DeclaredUsage:
    """The usage file resolved against one plan: each resource's validated declaration."""

    def __init__(
        self,
        by_resource: Mapping[tuple[str, str], BaseModel],
        source: str = "",
        unmatched: Sequence[str] = (),
    ) -> None:
        self._by_resource = dict(by_resource)
        self.source = source
        self.unmatched = tuple(unmatched)
        """resource_usage names no resource of the plan has (a warning, not an error)."""

    def of(self, res: Resource) -> BaseModel | None:
        """The resource's declaration (type defaults merged with its own), or None."""
        return self._by_resource.get((res.type, res.name))

    def __len__(self) -> int:
        return len(self._by_resource)
