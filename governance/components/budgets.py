"""ProjectBudget: the stack's monthly budget and the Pub/Sub topic its alerts go to.

It owns the Pub/Sub topic (the budget guard function subscribes to it; see automation.py), the
publisher grant for Cloud Billing's budget service account, and the `gcp.billing.Budget` with
actual-spend and forecast thresholds, counting the project's spend, or with `scopes` the spend
of those folders/organizations (the Budget API's `resourceAncestors`). What happens when a
threshold is crossed is decided by the function in functions/, from the policy JSON the program
renders.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from governance.labels import Labels
from governance.naming import resource_name
from governance.settings.budget import CURRENCY, PERIOD
from mlgov_policies.vocabulary import BUDGET_PUBLISHER, component_type


@dataclass(frozen=True, kw_only=True)
class ProjectBudgetArgs:
    """What ProjectBudget needs."""

    prefix: str
    project: str
    project_number: str
    billing_account: str
    labels: Labels
    amount_usd: int
    # Fractions of the amount: actual spend, then forecast spend.
    thresholds: Sequence[float] = (0.5, 0.9, 1.0)
    forecast_thresholds: Sequence[float] = (1.0,)
    # Folders/organizations whose spend the budget counts instead of the project's (the
    # budget's cap then acts in them: action_settings.py).
    scopes: Sequence[str] = ()


def threshold_rules(
    thresholds: Sequence[float], forecast_thresholds: Sequence[float]
) -> list[gcp.billing.BudgetThresholdRuleArgs]:
    """Actual-spend thresholds first, then forecast ones, as fractions of the amount."""
    rules = [
        gcp.billing.BudgetThresholdRuleArgs(threshold_percent=t, spend_basis="CURRENT_SPEND")
        for t in thresholds
    ]
    rules += [
        gcp.billing.BudgetThresholdRuleArgs(threshold_percent=t, spend_basis="FORECASTED_SPEND")
        for t in forecast_thresholds
    ]
    return rules


class ProjectBudget(pulumi.ComponentResource):
    """A monthly budget for one project, alerting to a Pub/Sub topic the cap function listens on."""

    topic_id: pulumi.Output[str]
    budget_name: pulumi.Output[str]
    budget_id: pulumi.Output[str]

    def __init__(
        self, name: str, args: ProjectBudgetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("ProjectBudget"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        topic = gcp.pubsub.Topic(
            f"{name}-topic",
            name=resource_name(args.prefix, "budget-alerts"),
            project=args.project,
            message_retention_duration="86400s",
            labels=args.labels.for_workload("budget").as_dict(),
            opts=child,
        )
        publisher = gcp.pubsub.TopicIAMMember(
            f"{name}-publisher",
            project=args.project,
            topic=topic.name,
            role="roles/pubsub.publisher",
            member=BUDGET_PUBLISHER,
            opts=child,
        )
        budget = gcp.billing.Budget(
            f"{name}-budget",
            billing_account=args.billing_account,
            display_name=resource_name(args.prefix, "monthly"),
            # Filters narrow one another (each says "only this usage"), so a budget of scopes
            # names only them: with the project too it would count that one project alone.
            budget_filter=gcp.billing.BudgetBudgetFilterArgs(
                projects=None if args.scopes else [f"projects/{args.project_number}"],
                resource_ancestors=list(args.scopes) or None,
                credit_types_treatment="INCLUDE_ALL_CREDITS",
                calendar_period=PERIOD,
            ),
            amount=gcp.billing.BudgetAmountArgs(
                specified_amount=gcp.billing.BudgetAmountSpecifiedAmountArgs(
                    currency_code=CURRENCY, units=str(args.amount_usd)
                )
            ),
            threshold_rules=threshold_rules(args.thresholds, args.forecast_thresholds),
            all_updates_rule=gcp.billing.BudgetAllUpdatesRuleArgs(
                pubsub_topic=topic.id, schema_version="1.0"
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[publisher]),
        )
        self.topic_id = topic.id
        self.budget_name = budget.name
        # Notifications carry the budget id (the last segment of the name) as `budgetId`.
        self.budget_id = budget.name.apply(lambda n: n.rsplit("/", 1)[-1])
        self.register_outputs(
            {
                "topic_id": self.topic_id,
                "budget_name": self.budget_name,
                "budget_id": self.budget_id,
            }
        )
