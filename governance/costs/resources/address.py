"""Global addresses: internal ranges (private service access for Cloud SQL) cost nothing.

External static IPs have no price in the catalog yet, so they are an error rather than a
guessed zero.
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.errors import CostError
from governance.costs.model import Resource
from mlgov_policies.props import as_str


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """$0 for an INTERNAL range; CostError for an external address."""
    if (as_str(res.inputs.get("addressType")) or "EXTERNAL") != "INTERNAL":
        raise CostError(f"global address {res.name!r}: external static IPs are not priced")
    q = Quote()
    q.governed.note("internal (VPC peering) range: no charge")
    return q
