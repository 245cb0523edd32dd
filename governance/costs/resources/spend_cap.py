"""Spend-cap budgets: free, but each bounds the month's spend on one service in one project.

A budget has no charge. A spend cap (Cloud Billing, Preview) blocks new usage of its service in
its project once the month's gross estimated spend passes the amount, so that amount is the
month's worst case for the service there: shown as an informational ceiling
(`Quote.ceiling_usd`), never added to the bill, exactly as a query quota's. It is a floor of the
worst case, not a guarantee: Google enforces on estimated cost data that lags actual usage, work
already running and storage keep billing, and none of that is bounded; every note says so. The
amount is in the billing account's currency, which the stack's budget states as USD (Google
refuses a budget in any other currency than the account's).
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource
from mlgov_policies.compat.spend_caps import BY_SERVICE, money_value
from mlgov_policies.props import as_list, dig

LAG_NOTE = (
    "plus what accrues before Google enforces it (enforcement follows estimated cost data, "
    "which lags usage) and what caps never stop (work already running, storage)"
)


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """$0; the cap's amount as the month's worst case for its service in its project."""
    del ctx
    q = Quote()
    amount = money_value(dig(res.inputs, "amount", "specifiedAmount"))
    if amount is None:
        q.governed.note("$0.00: budgets have no charge (cap amount unreadable: no ceiling shown)")
        return q
    services = [str(s) for s in as_list(dig(res.inputs, "budgetFilter", "services"))]
    projects = [str(p) for p in as_list(dig(res.inputs, "budgetFilter", "projects"))]
    service = BY_SERVICE[services[0]].name if services and services[0] in BY_SERVICE else "?"
    q.ceiling_usd = amount
    q.governed.note(
        f"$0.00: budgets have no charge; worst case (informational, not in the total): "
        f"{service} in {projects[0] if projects else '?'} is capped at ${amount:,.2f}/month, "
        f"{LAG_NOTE}"
    )
    return q
