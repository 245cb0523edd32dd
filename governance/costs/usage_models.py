"""The usage models cost files register: each type's stack-wide knobs, and the ones all share.

A cost file whose type has knobs in `mlgov:settings.usage` defines them as a pydantic model
beside its cost model and registers it where it defines it:

    @usage_model(place=140)
    class QueueUsage(BaseModel): ...

assumptions.py composes every registered model into the one `UsageAssumptions`, and a cost model
reads its own knobs with `ctx.knobs(QueueUsage)` (context.py). This module imports no cost file
and no cost file is imported back through it, so registering adds no import circle; the list is
complete once registry.py (which imports every cost file) has been imported, which assumptions.py
makes sure of.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CommonUsage", "registered", "usage_model"]

U = TypeVar("U", bound=type[BaseModel])

# "module.QualName" -> (place, model). Keyed by name, not by class, so a module imported again
# (importlib.reload) replaces its model instead of claiming its place twice.
_MODELS: dict[str, tuple[int, type[BaseModel]]] = {}


class CommonUsage(BaseModel):
    """Assumptions every cost model shares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    as_of: date | None = Field(
        default=None,
        description="Date the month starts for `mlgov-expires-on` proration (default: today, UTC).",
    )
    default_region: str = Field(
        default="us-central1",
        description="Region used to price resources whose inputs name no location.",
    )
    commitment: Literal["none", "1y", "3y"] = Field(
        default="none",
        description="Price on-demand machines at 1- or 3-year committed-use prices (opt-in; "
        "billed all month); rows keep the list price beside it.",
    )


def usage_model(place: int) -> Callable[[U], U]:
    """Register a cost file's usage model; `place` orders its knobs after lower places.

    The order is what `plan --json` prints and what the usage table of docs/reference/costs.md
    lists (a test checks they agree), after the common knobs. A new model takes the next free
    place (the highest plus 10), so existing output keeps its order.

    Raises:
        ValueError: another model already has `place` (two orders would be a guess).
    """

    def register(model: U) -> U:
        key = f"{model.__module__}.{model.__qualname__}"
        for other, (taken, _) in _MODELS.items():
            if taken == place and other != key:
                raise ValueError(f"usage models {other} and {key} both claim place {place}")
        _MODELS[key] = (place, model)
        return model

    return register


def registered() -> tuple[type[BaseModel], ...]:
    """The usage models registered so far, by place (complete once registry.py is imported)."""
    return tuple(model for _, model in sorted(_MODELS.values(), key=lambda entry: entry[0]))
