"""SpendCaps: the stack's spend-cap budgets, each paired with an alerts-only budget that publishes.

For each capped service: a `SpendCapBudget` (governance/spend_caps/provider.py, a dynamic
resource: pulumi-gcp cannot declare `spendCap`) on the stack's project and that service, and a
`gcp.billing.Budget` on the same project and service, counting the same way (gross cost, monthly,
thresholds 0.5/0.8/1.0) and publishing to the stack's budget topic. The pair exists because a
spend cap may not publish to Pub/Sub: the budget function hears the pair's notifications and
reports the cap's state (functions/govern/flows/spend_caps.py); it never stops or lifts anything.
The topic and its publisher grant are ProjectBudget's (budgets.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_gcp as gcp

from governance.naming import spend_cap_alerts_name, spend_cap_name
from governance.spend_caps.body import budget_filter, cap_body, money
from governance.spend_caps.provider import SpendCapBudget
from mlgov_policies.compat.spend_caps import SPEND_CAP_THRESHOLDS
from mlgov_policies.vocabulary import component_type


@dataclass(frozen=True, kw_only=True)
class SpendCap:
    """One cap: the service (`services/<id>`) and the monthly amount (account currency)."""

    service: str
    amount: float


@dataclass(frozen=True, kw_only=True)
class SpendCapsArgs:
    """What SpendCaps needs."""

    prefix: str
    project_number: str
    billing_account: str
    caps: Mapping[str, SpendCap]
    """By mlgov's service key (`vertex_ai`)."""
    topic_id: pulumi.Input[str]
    """The budget topic (ProjectBudget.topic_id) the alerts-only budgets publish to."""
    depends_on: Sequence[pulumi.Resource] = field(default_factory=tuple[pulumi.Resource, ...])
    """Wait for these (the ProjectBudget, whose publisher grant the topic needs)."""


class SpendCaps(pulumi.ComponentResource):
    """Spend-cap budgets on one project, each with its alerts-only budget on the budget topic."""

    cap_names: pulumi.Output[dict[str, str]]
    """Service key -> the spend cap's budget name (`billingAccounts/<id>/budgets/<id>`)."""
    alert_budget_ids: pulumi.Output[dict[str, str]]
    """Service key -> the paired budget's id (what its notifications carry as `budgetId`)."""

    def __init__(
        self, name: str, args: SpendCapsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("SpendCaps"), name, None, opts)
        names: dict[str, pulumi.Output[str]] = {}
        ids: dict[str, pulumi.Output[str]] = {}
        for key, cap in args.caps.items():
            role = key.replace("_", "-")
            amount = money(cap.amount)
            budget = SpendCapBudget(
                f"{name}-{role}",
                billing_account=args.billing_account,
                body=cap_body(
                    display_name=spend_cap_name(args.prefix, key),
                    project_number=args.project_number,
                    service=cap.service,
                    amount=cap.amount,
                ),
                opts=pulumi.ResourceOptions(parent=self),
            )
            alerts = gcp.billing.Budget(
                f"{name}-{role}-alerts",
                billing_account=args.billing_account,
                display_name=spend_cap_alerts_name(args.prefix, key),
                budget_filter=_filter_args(args.project_number, cap.service),
                # No currency: the cap's is the account's too, and both must agree with it.
                amount=gcp.billing.BudgetAmountArgs(
                    specified_amount=gcp.billing.BudgetAmountSpecifiedAmountArgs(
                        units=amount["units"], nanos=amount.get("nanos")
                    )
                ),
                threshold_rules=[
                    gcp.billing.BudgetThresholdRuleArgs(
                        threshold_percent=t, spend_basis="CURRENT_SPEND"
                    )
                    for t in SPEND_CAP_THRESHOLDS
                ],
                all_updates_rule=gcp.billing.BudgetAllUpdatesRuleArgs(
                    pubsub_topic=args.topic_id, schema_version="1.0"
                ),
                opts=pulumi.ResourceOptions(parent=self, depends_on=list(args.depends_on)),
            )
            names[key] = budget.name
            # Notifications carry the budget id (the last segment of the name) as `budgetId`.
            ids[key] = alerts.name.apply(lambda n: n.rsplit("/", 1)[-1])
        self.cap_names = pulumi.Output.all(**names).apply(dict)  # pyright: ignore[reportUnknownMemberType]
        self.alert_budget_ids = pulumi.Output.all(**ids).apply(dict)  # pyright: ignore[reportUnknownMemberType]
        self.register_outputs(
            {"cap_names": self.cap_names, "alert_budget_ids": self.alert_budget_ids}
        )


def _filter_args(project_number: str, service: str) -> gcp.billing.BudgetBudgetFilterArgs:
    # The pair counts exactly what its cap counts (gross, one project, one service, monthly), so
    # its notifications' costAmount / budgetAmount is the cap's own ratio.
    rendered = budget_filter(project_number, service)
    return gcp.billing.BudgetBudgetFilterArgs(
        projects=rendered["projects"],
        services=rendered["services"],
        credit_types_treatment=rendered["creditTypesTreatment"],
        calendar_period=rendered["calendarPeriod"],
    )
