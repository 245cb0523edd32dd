"""GKE clusters: the cluster management fee, minus the free-tier credit for one zonal cluster.

Nodes are priced on their node pools. Auto-provisioned (NAP) pools are bounded by the cluster's
`resourceLimits` but not priced: the explanation says so. Which cluster gets the free tier is a
plan-wide fact (context.py).
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from mlgov_policies.props import as_bool, dig


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """The same fee governed and baseline; governance bounds NAP but does not price it."""
    q = Quote()
    fee = ctx.catalog.price("gke.cluster", "global")
    for b in (q.governed, q.baseline):
        b.charge("cluster management", fee, HOURS_PER_MONTH, "730 h")
        if res.name == ctx.free_tier_cluster:
            credit = ctx.catalog.price("gke.free_tier_credit", "global")
            b.adjust(
                -min(credit.usd, fee.usd * HOURS_PER_MONTH),
                f"minus GKE free tier ${credit.usd:g}/month ({credit.note})",
            )
    if as_bool(dig(res.inputs, "clusterAutoscaling", "enabled")) is True:
        q.governed.note("auto-provisioned node pools are not priced (bounded by resourceLimits)")
    return q
