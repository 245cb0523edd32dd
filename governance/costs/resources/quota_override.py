"""Service Usage consumer quota overrides: free, but a BigQuery query cap bounds a bill.

An override costs nothing. On BigQuery's `quota/query/usage` with the project-wide limit
(`/d/project`) it caps the bytes on-demand queries may process per day, so the most those
queries can cost in a month is: cap TiB/day x on-demand $/TiB x 30 days. That worst case is
shown as an informational ceiling (`Quote.ceiling_usd`), never added to the bill: a cap is a
limit, not a forecast. The per-user limit bounds one principal, not the project.
"""

from __future__ import annotations

from urllib.parse import unquote

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.inputs import number
from governance.costs.model import Resource
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_str

MIB_PER_TIB = 1024 * 1024
DAYS = 30  # a month of daily caps, as the issue states the worst case


def query_cap(res: Resource) -> tuple[str, float] | None:
    """(limit, TiB/day) of a BigQuery query-usage override, or None for any other override."""
    metric = unquote(as_str(res.inputs.get("metric")) or "")
    limit = unquote(as_str(res.inputs.get("limit")) or "")
    value = number(res.inputs.get("overrideValue"), -1.0)
    limits = (v.BQ_QUERY_QUOTA_PROJECT_LIMIT, v.BQ_QUERY_QUOTA_USER_LIMIT)
    if metric != v.BQ_QUERY_QUOTA_METRIC or limit not in limits or value < 0:
        return None
    return limit, value / MIB_PER_TIB


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """$0; for a project-wide query cap, the month's worst case as an informational ceiling."""
    q = Quote()
    cap = query_cap(res)
    if cap is None:
        q.governed.note("$0.00: quota overrides have no charge")
        return q
    limit, tib = cap
    if limit == v.BQ_QUERY_QUOTA_USER_LIMIT:
        q.governed.note(f"$0.00: per-user cap {tib:g} TiB/day (the project cap bounds the total)")
        return q
    # The quota is per project across locations; the US multi-region list price stands for all.
    price = ctx.catalog.price("bigquery.query.ondemand", "us")
    q.ceiling_usd = tib * price.usd * DAYS
    q.governed.note(
        f"worst case (informational, not in the total): {tib:g} TiB/day x "
        f"{price.key}[{price.region}] ${price.usd:g}/{price.unit} x {DAYS} days = "
        f"${q.ceiling_usd:,.2f}/month"
    )
    return q
