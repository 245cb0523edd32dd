"""Errors of the cost estimator.

Per resource, the estimate turns each into a row without a price and a finding (estimate.py):
`NotOffered` and `Refused` are mandatory findings (the cloud would refuse the resource), any
other `CostError` an advisory "unpriced" one. Errors about the whole document (a catalog that cannot
be read, a budget amount that is not a number) reach the CLI: one line and exit 2.
"""

from __future__ import annotations


class CostError(Exception):
    """A plan or catalog cannot be priced; the message names what and why."""


class CatalogError(CostError):
    """The catalog has no price for something a resource uses (never a silent zero)."""


class NotOffered(CostError):
    """A machine type, GPU or TPU is not sold in the resource's region (creating it would fail)."""

    def __init__(self, what: str, region: str, offered_in: tuple[str, ...], source: str) -> None:
        where = ", ".join(offered_in[:8]) + (", ..." if len(offered_in) > 8 else "")
        super().__init__(
            f"{what} is not offered in region {region!r}"
            + (f" (offered in {where}" if where else " (offered nowhere the catalog knows")
            + (f"; source: {source})" if source else ")")
        )
        self.what = what
        self.region = region
        self.offered_in = offered_in
        self.source = source


class Refused(CostError):
    """An input value Google documents it refuses (a negative or out-of-range provisioned IOPS).

    The message names the input, the value, what Google accepts and the page that says so.
    """


class UnknownResourceType(CostError):
    """The estimator does not know a resource type, so it cannot say what it costs."""

    def __init__(self, type_: str, name: str, message: str | None = None) -> None:
        package = type_.split(":", 1)[0]
        if message is None and package not in ("gcp", "random", "mlgov") and ":" in type_:
            # A preview of another cloud's program (e.g. aws:): not a model mlgov lacks.
            message = (
                f"not priced by mlgov: {type_!r} (resource {name!r}) is a {package!r} resource; "
                "mlgov prices Google Cloud resources of pulumi-gcp (gcp:) only"
            )
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
