"""Budget and billing rules: a budget that alerts, wired to automation, never unlinking prod.

The budget rules are stack rules (they look for a budget, and for the function listening on its
topic, across all resources). The billing-disable rule reads the `MLGOV_POLICY` the governance
functions run with (DESIGN.md, contract 2).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, as_mapping, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule, StackResource, StackRule


def budget_required(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """The stack has a budget with thresholds that publishes to a Pub/Sub topic."""
    del config
    budgets = [i for i, r in enumerate(resources) if r.type == v.BUDGET]
    if not budgets:
        yield None, f"the stack has no {v.BUDGET}: nobody hears about overspend"
    for index in budgets:
        props = resources[index].props
        rules = dig(props, "thresholdRules")
        if not is_unknown(rules) and not as_list(rules):
            yield index, "thresholdRules is empty: the budget never alerts"
        topic = dig(props, "allUpdatesRule", "pubsubTopic")
        if not is_unknown(topic) and not as_str(topic):
            yield index, "allUpdatesRule.pubsubTopic is not set: automation cannot react"


BUDGET_REQUIRED = StackRule(
    name="mlgov-budget-required",
    check=budget_required,
    types=frozenset({v.BUDGET}),
    enforcement="mandatory",
    why="A budget with thresholds is the only signal that spend is running away; without a "
    "topic nothing can act on it.",
    remediation="Create a ProjectBudget with thresholdRules and allUpdatesRule.pubsubTopic.",
)


def _same_topic(a: str, b: str) -> bool:
    # "projects/p/topics/t" and a bare "t" both name topic t; compare full paths when both have one.
    if "/" in a and "/" in b:
        return a == b
    return a.rsplit("/", 1)[-1] == b.rsplit("/", 1)[-1]


def budget_topic_wired(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """When governance functions exist, a function listens on the budget's topic."""
    del config
    triggers: list[str] = []
    for resource in resources:
        if resource.type != v.FUNCTION_V2:
            continue
        topic = dig(resource.props, "eventTrigger", "pubsubTopic")
        if is_unknown(topic):
            return  # cannot tell which topic the function listens on until it exists
        if as_str(topic):
            triggers.append(topic)
    if not any(r.type == v.FUNCTION_V2 for r in resources):
        return
    for index, resource in enumerate(resources):
        if resource.type != v.BUDGET:
            continue
        topic = as_str(dig(resource.props, "allUpdatesRule", "pubsubTopic"))
        if topic is None:
            continue  # missing topic is budget_required's finding; unknown cannot be judged
        if not any(_same_topic(topic, trigger) for trigger in triggers):
            yield (
                index,
                (
                    f"budget topic '{topic}' is not any function's eventTrigger.pubsubTopic: "
                    "budget alerts reach no automation"
                ),
            )


BUDGET_TOPIC_WIRED = StackRule(
    name="mlgov-budget-topic-wired",
    check=budget_topic_wired,
    types=frozenset({v.BUDGET, v.FUNCTION_V2}),
    enforcement="mandatory",
    why="A budget that publishes to a topic no function listens on never stops anything.",
    remediation="Set the budget function's eventTrigger.pubsubTopic to the budget's "
    "allUpdatesRule.pubsubTopic.",
)


def disable_not_in_prod(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """No governance function may unlink billing from a production project."""
    del type_
    raw = dig(props, "serviceConfig", "environmentVariables", "MLGOV_POLICY")
    if raw is None or is_unknown(raw):
        return
    if not isinstance(raw, str):
        yield "serviceConfig.environmentVariables.MLGOV_POLICY is not a JSON string"
        return
    try:
        policy: object = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than Python recurses
        yield "serviceConfig.environmentVariables.MLGOV_POLICY is not valid JSON"
        return
    projects = as_mapping(dig(policy, "projects"))
    for project_id, project in sorted(projects.items()):
        if dig(project, "allow_billing_disable") is not True:
            continue
        environment = dig(project, "environment")
        if environment == "prod" or config.environment == "prod":
            yield (
                f"MLGOV_POLICY allows unlinking billing for prod project '{project_id}': that "
                "stops every service in the project"
            )


DISABLE_NOT_IN_PROD = ResourceRule(
    name="mlgov-billing-disable-not-in-prod",
    check=disable_not_in_prod,
    types=frozenset({v.FUNCTION_V2}),
    enforcement="mandatory",
    config_keys=("environment",),
    why="Unlinking billing stops every service in the project and may delete resources: "
    "never acceptable for production.",
    remediation="Set allow_billing_disable: false for prod projects; use stop_at to stop "
    "workloads instead.",
)
