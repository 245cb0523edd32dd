"""Budget and billing rules: a budget that alerts, wired to automation, never unlinking prod.

The budget rules are stack rules (they look for a budget, for the function listening on its topic
and for who else may publish there, across all resources). The billing-disable rule reads the
`MLGOV_POLICY` the governance functions run with (docs/architecture.md#mlgov-policy). The spend-cap
rules are mlgov's own: a cap is paired with an alerts-only budget that publishes, and a cap that can
block the governance functions is pointed out; what Google refuses in a cap is
acceptance/spend_caps.py's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.compat import spend_caps as caps
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, as_mapping, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule, StackResource, StackRule
from mlgov_policies.rules import iam


def budget_required(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """The stack has a budget with thresholds that publishes to a Pub/Sub topic.

    With `budget_required` false (a program of one's own in a project budgeted elsewhere) a
    stack without a budget passes; a budget it does hold must still alert.
    """
    budgets = [i for i, r in enumerate(resources) if r.type == v.BUDGET]
    if not budgets and config.budget_required:
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
    config_keys=("budget_required",),
    why="A budget with thresholds is the only signal that spend is running away; without a "
    "topic nothing can act on it.",
    remediation="Create a ProjectBudget with thresholdRules and allUpdatesRule.pubsubTopic.",
)


def same_topic(a: str, b: str) -> bool:
    """Whether two topic names are the same topic (pubsub.py's rule uses it too)."""
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
        if not any(same_topic(topic, trigger) for trigger in triggers):
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


def _filter(props: Mapping[str, Any], key: str) -> tuple[str, ...]:
    return tuple(str(x) for x in as_list(dig(props, "budgetFilter", key)))


def spend_cap_paired(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """Each spend cap has an alerts-only budget on its project and service that publishes."""
    del config
    paired: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for r in resources:
        if r.type == v.BUDGET and as_str(dig(r.props, "allUpdatesRule", "pubsubTopic")):
            paired.add((_filter(r.props, "projects"), _filter(r.props, "services")))
    for index, r in enumerate(resources):
        if r.type != v.SPEND_CAP_BUDGET:
            continue
        scope = (_filter(r.props, "projects"), _filter(r.props, "services"))
        if any(is_unknown(x) for part in scope for x in part):
            continue
        if scope not in paired:
            yield (
                index,
                f"no {v.BUDGET} on projects {list(scope[0])} and services {list(scope[1])} "
                "publishes to Pub/Sub: a spend cap cannot, so automation never hears about it",
            )


SPEND_CAP_PAIRED = StackRule(
    name="mlgov-billing-spend-cap-paired",
    check=spend_cap_paired,
    types=frozenset({v.SPEND_CAP_BUDGET, v.BUDGET}),
    enforcement="mandatory",
    why="A spend cap may not publish to Pub/Sub (Budget API rule), so the budget function would "
    "never hear that a service is about to be blocked, or is blocked, in a project.",
    remediation="Pair the cap with a gcp.billing.Budget with the same budgetFilter projects and "
    "services whose allUpdatesRule.pubsubTopic is the stack's budget topic (mlgov's "
    "SpendCaps component does).",
)


# Services whose cap can block the governance functions themselves: Cloud Functions 2nd gen
# (what automation.py deploys) are Cloud Run services, billed as Cloud Run functions.
_AUTOMATION_SERVICES = frozenset(
    caps.SERVICES[key].service for key in ("cloud_run", "cloud_run_functions")
)


def spend_cap_blocks_automation(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """A cap on Cloud Run (functions) can block the stack's own governance functions."""
    del config
    if not any(r.type == v.FUNCTION_V2 for r in resources):
        return
    for index, r in enumerate(resources):
        if r.type != v.SPEND_CAP_BUDGET:
            continue
        for service in _filter(r.props, "services"):
            if service in _AUTOMATION_SERVICES:
                name = caps.BY_SERVICE[service].name
                yield (
                    index,
                    f"once this cap on {name} is enforced, Google blocks new usage of {name} in "
                    "its project, which can include the stack's own governance functions "
                    "(Cloud Functions 2nd gen run on Cloud Run): the budget function would not "
                    "run when it matters most",
                )


SPEND_CAP_BLOCKS_AUTOMATION = StackRule(
    name="mlgov-billing-spend-cap-blocks-automation",
    check=spend_cap_blocks_automation,
    types=frozenset({v.SPEND_CAP_BUDGET, v.FUNCTION_V2}),
    enforcement="advisory",
    why="A spend cap blocks new usage of its service across the whole project; the governance "
    "functions are that kind of usage, and they are what stops everything else at the budget.",
    remediation="Deploy the governance functions in another project than the capped one, or cap "
    "Cloud Run there with headroom above what the functions themselves cost.",
)


# Pub/Sub's predefined roles that carry pubsub.topics.publish:
# https://cloud.google.com/pubsub/docs/access-control#roles. The basic roles (Owner, Editor) carry
# it too; they are mlgov-iam-no-primitive-roles' finding for service accounts, and public members
# are mlgov-iam-no-public-members', so this rule does not report them a second time.
PUBLISH_ROLES = frozenset({"roles/pubsub.publisher", "roles/pubsub.editor", "roles/pubsub.admin"})
PUBLISH_PERMISSION = "pubsub.topics.publish"
_TOPIC_GRANTS = frozenset(
    {v.PUBSUB_TOPIC_IAM_MEMBER, v.PUBSUB_TOPIC_IAM_BINDING, v.PUBSUB_TOPIC_IAM_POLICY}
)
_PROJECT_GRANTS = frozenset({v.PROJECT_IAM_MEMBER, v.PROJECT_IAM_BINDING, v.PROJECT_IAM_POLICY})


def custom_publish_roles(resources: Sequence[StackResource]) -> set[str]:
    """Names (`projects/P/roles/ID` and the bare id) of the stack's custom roles that publish."""
    found: set[str] = set()
    for r in resources:
        if r.type != v.PROJECT_CUSTOM_ROLE:
            continue
        if PUBLISH_PERMISSION in as_list(dig(r.props, "permissions")):
            role_id, project = as_str(dig(r.props, "roleId")), as_str(dig(r.props, "project"))
            if role_id:
                found.add(role_id)
                if project:
                    found.add(f"projects/{project}/roles/{role_id}")
    return found


def budget_topic_publisher(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """Only Cloud Billing may publish to the budget topic."""
    del config
    topics = {
        t
        for r in resources
        if r.type == v.BUDGET and (t := as_str(dig(r.props, "allUpdatesRule", "pubsubTopic")))
    }
    if not topics:
        return
    projects = {t.split("/")[1] for t in topics if t.startswith("projects/")}
    custom = custom_publish_roles(resources)
    for index, r in enumerate(resources):
        if r.type in _TOPIC_GRANTS:
            topic = dig(r.props, "topic")
            if is_unknown(topic) or not any(same_topic(str(topic), t) for t in topics):
                continue
            scope = f"budget topic '{topic}'"
        elif r.type in _PROJECT_GRANTS:
            project = as_str(dig(r.props, "project"))
            if project and projects and project not in projects:
                continue
            scope = f"project '{project}' (every topic, the budget topic included)"
        else:
            continue
        for where, role, member in iam.members(r.type, r.props):
            if member == v.BUDGET_PUBLISHER or member.lower() in iam.PUBLIC_MEMBERS_LOWER:
                continue
            if role not in PUBLISH_ROLES and role not in custom:
                continue
            yield (
                index,
                f"{where} grants {role} on {scope} to '{member}': anyone who can publish there "
                "can fake a budget notification, and the cap then stops workloads (or unlinks "
                "billing where allowed)",
            )


BUDGET_TOPIC_PUBLISHER = StackRule(
    name="mlgov-billing-budget-topic-publisher",
    check=budget_topic_publisher,
    types=frozenset({v.BUDGET}) | _TOPIC_GRANTS | _PROJECT_GRANTS,
    enforcement="mandatory",
    why="The cap function acts on whatever arrives on the budget topic. Cloud Billing publishes "
    "budget notifications as billing-budget-alert@system.gserviceaccount.com (connecting a "
    "topic to a budget grants it the publisher role); any other publisher could forge one.",
    remediation="Grant roles/pubsub.publisher on the budget topic only to "
    "serviceAccount:billing-budget-alert@system.gserviceaccount.com; give other publishers "
    "their own topic.",
    source="Budget API NotificationsRule.pubsubTopic (the caller needs "
    "pubsub.topics.setIamPolicy: the budget grants its publisher) "
    "https://cloud.google.com/billing/docs/reference/budget/rest/v1/billingAccounts.budgets; "
    "https://cloud.google.com/billing/docs/how-to/budgets-programmatic-notifications",
)
