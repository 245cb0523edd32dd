"""Errors the cost estimator raises; the CLI turns each into a one-line message and exit 2."""

from __future__ import annotations


class CostError(Exception):
    """A plan or catalog cannot be priced; the message names what and why."""


class CatalogError(CostError):
    """The catalog has no price for something a resource uses (never a silent zero)."""


class UnknownResourceType(CostError):
    """The estimator does not know a resource type, so it cannot say what it costs."""

    def __init__(self, type_: str, name: str, message: str | None = None) -> None:
        super().__init__(
            message
            or f"no cost estimator for resource type {type_!r} (resource {name!r}); "
            "add a cost model (governance/costs/resources/) to governance/costs/registry.py, "
            "or declare it free there with a reason"
        )
        self.type_ = type_
        self.name = name


def add_context(err: CostError, prefix: str) -> CostError:
    """The same kind of error with `prefix` in front of its message."""
    if isinstance(err, UnknownResourceType):
        return UnknownResourceType(err.type_, err.name, f"{prefix}{err}")
    return type(err)(f"{prefix}{err}")
