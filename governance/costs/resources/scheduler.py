"""Cloud Scheduler jobs: a flat monthly price per job, after the free tier.

The free tier covers a few jobs per billing account; which of the plan's jobs it covers is a
plan-wide fact (context.py: the first N by name). Office-hours jobs also shape notebook costs;
that is the Workbench model's business (office_hours.py).
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """One job-month, or $0 for jobs the free tier covers; the baseline is the same."""
    q = Quote()
    price = ctx.catalog.price("scheduler.job", "global")
    for b in (q.governed, q.baseline):
        if res.name in ctx.free_scheduler_jobs:
            b.note("free tier: 3 jobs per billing account (first 3 jobs by name) = $0.00")
        else:
            b.charge("job", price, 1, "1 job")
    return q
