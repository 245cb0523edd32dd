"""What a cost model is: a function from one plan resource and the plan's context to a `Quote`.

    def estimate(resource: Resource, ctx: PlanContext) -> Quote

Each priced resource type has one such function in resources/<type>.py, registered by type
token in registry.py. Shared arithmetic (machines, disks, expiry, office hours) lives in its own
small module; facts that span resources (which notebook has an office-hours schedule, which
tables a dataset holds) are computed once, in context.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from governance.costs.bill import Quote
from mlgov_policies.props import as_mapping, as_str

if TYPE_CHECKING:
    from governance.costs.context import PlanContext

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Resource:
    """One plan-document resource: its type token, Pulumi name and input properties."""

    type: str
    name: str
    inputs: Mapping[str, Any]

    @classmethod
    def from_plan(cls, raw: Mapping[str, Any]) -> Resource:
        """A resource from its plan-document shape ({"type", "name", "inputs"})."""
        return cls(
            str(raw.get("type", "")), str(raw.get("name", "")), as_mapping(raw.get("inputs"))
        )

    @property
    def gcp_name(self) -> str:
        """The physical GCP name (`inputs.name`), or the Pulumi name when it has none."""
        return as_str(self.inputs.get("name")) or self.name

    @property
    def labels(self) -> Mapping[str, Any]:
        """The resource's labels (empty when it has none)."""
        return as_mapping(self.inputs.get("labels"))

    def override(self, table: Mapping[str, T], default: T) -> T:
        """A per-resource assumption keyed by Pulumi name, else by GCP name, else `default`."""
        return table.get(self.name, table.get(self.gcp_name, default))


CostModel = Callable[[Resource, "PlanContext"], Quote]
"""Prices one resource type: `(resource, context) -> Quote` (see resources/)."""
