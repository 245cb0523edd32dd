"""Cloud Load Balancing: forwarding rules by the hour, data processed, proxy instances.

Forwarding rules (https://cloud.google.com/load-balancing/pricing, catalog `lb.*`): the first five
of a project are one hourly charge, each further rule has its own. mlgov counts the plan's rules
per pricing group (global rules, and regional rules per region) in plan order (context.py): the
first rule of a group carries the charge for up to five, the next four say they are included,
the sixth on pay the per-rule price. Inbound data processed by the load balancer is usage
(`monthly_ingress_data_gb`). Target proxies bill proxy instances (Envoy-based load balancers:
regional and cross-region) and the data they process, both usage (`monthly_proxy_instances`,
the average proxy instances running; `monthly_data_processed_gb`): declared or "depends on usage".
The baseline is the same.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from mlgov_policies import vocabulary as v

BUNDLED_RULES = 5  # rules the first hourly charge covers


class RuleDeclared(BaseModel):
    """A forwarding rule's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_ingress_data_gb: float | None = Field(
        default=None, ge=0, description="GiB a month the load balancer processes inbound."
    )


class ProxyDeclared(BaseModel):
    """A target proxy's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_proxy_instances: float | None = Field(
        default=None, ge=0, description="Average proxy instances running over the month."
    )
    monthly_data_processed_gb: float | None = Field(
        default=None, ge=0, description="GiB a month the proxy processes."
    )


def _data(q: Quote, ctx: PlanContext, gib: float | None, usage_key: str) -> None:
    price = ctx.catalog.price("lb.data_processed", "global")
    for b in (q.governed, q.baseline):
        if gib is None:
            b.depends_on_usage("data processed", price, usage_key)
        else:
            b.charge("data processed", price, gib, f"{gib:g} GiB")


def forwarding_rule(res: Resource, ctx: PlanContext) -> Quote:
    """The rule's share of the hourly charge by its place in its group, plus data processed."""
    q = Quote()
    rank = ctx.rule_rank.get((res.type, res.name), 1)
    group = "global" if res.type == v.COMPUTE_GLOBAL_FORWARDING_RULE else "regional"
    cat = ctx.catalog
    for b in (q.governed, q.baseline):
        if rank == 1:
            b.charge(
                "forwarding rules",
                cat.price("lb.forwarding_rule.first5", "global"),
                HOURS_PER_MONTH,
                f"{HOURS_PER_MONTH:g} h (one charge for the plan's first {BUNDLED_RULES} "
                f"{group} rules)",
            )
        elif rank <= BUNDLED_RULES:
            b.note(f"forwarding rule: {group} rule {rank} of the plan, included in the first "
                   f"{BUNDLED_RULES} rules' charge")  # fmt: skip
        else:
            b.charge(
                "forwarding rule",
                cat.price("lb.forwarding_rule.additional", "global"),
                HOURS_PER_MONTH,
                f"{HOURS_PER_MONTH:g} h ({group} rule {rank} of the plan)",
            )
    _data(q, ctx, ctx.usage_of(res, RuleDeclared).monthly_ingress_data_gb,
          "monthly_ingress_data_gb")  # fmt: skip
    return q


def target_proxy(res: Resource, ctx: PlanContext) -> Quote:
    """Declared proxy instances x 730 h, plus data processed."""
    q = Quote()
    d = ctx.usage_of(res, ProxyDeclared)
    region = ctx.region(res.inputs, "region")
    price = ctx.catalog.price("lb.proxy_instance", region)
    for b in (q.governed, q.baseline):
        if d.monthly_proxy_instances is None:
            b.depends_on_usage("proxy instances", price, "monthly_proxy_instances",
                               "per proxy instance-hour")  # fmt: skip
        else:
            b.charge(
                "proxy instances",
                price,
                d.monthly_proxy_instances * HOURS_PER_MONTH,
                f"{d.monthly_proxy_instances:g} instances x {HOURS_PER_MONTH:g} h",
            )
    _data(q, ctx, d.monthly_data_processed_gb, "monthly_data_processed_gb")
    return q
