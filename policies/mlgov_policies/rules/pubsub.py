"""Pub/Sub rule: only the dispatchers may publish to the fan-out work topic.

A stack rule: the work topic is what the governance functions name in `MLGOV_WORK_TOPIC`, and the
dispatchers are the functions that name it (their `serviceConfig.serviceAccountEmail`). Who may
publish to the budget topic is billing.py's rule; grants to the public and basic roles are
iam.py's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_str, dig, is_unknown
from mlgov_policies.rule import StackResource, StackRule
from mlgov_policies.rules import iam
from mlgov_policies.rules.billing import PUBLISH_ROLES, custom_publish_roles, same_topic

WORK_TOPIC_ENV = "MLGOV_WORK_TOPIC"
_TOPIC_GRANTS = frozenset(
    {v.PUBSUB_TOPIC_IAM_MEMBER, v.PUBSUB_TOPIC_IAM_BINDING, v.PUBSUB_TOPIC_IAM_POLICY}
)
_PROJECT_GRANTS = frozenset({v.PROJECT_IAM_MEMBER, v.PROJECT_IAM_BINDING, v.PROJECT_IAM_POLICY})


def _dispatchers(resources: Sequence[StackResource]) -> tuple[set[str], set[str], bool]:
    """(work topics, dispatcher members, every dispatcher's account known)."""
    topics: set[str] = set()
    accounts: set[str] = set()
    known = True
    for r in resources:
        if r.type != v.FUNCTION_V2:
            continue
        topic = dig(r.props, "serviceConfig", "environmentVariables", WORK_TOPIC_ENV)
        if topic is None:
            continue
        if is_unknown(topic) or not as_str(topic):
            known = False
            continue
        topics.add(str(topic))
        email = dig(r.props, "serviceConfig", "serviceAccountEmail")
        if is_unknown(email) or not as_str(email):
            known = False
        else:
            accounts.add(f"serviceAccount:{email}")
    return topics, accounts, known


def work_topic_publisher(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """Only the dispatchers' accounts may publish to the fan-out work topic."""
    del config
    topics, dispatchers, known = _dispatchers(resources)
    if not topics:
        return
    projects = {t.split("/")[1] for t in topics if t.startswith("projects/")}
    custom = custom_publish_roles(resources)
    for index, r in enumerate(resources):
        if r.type in _TOPIC_GRANTS:
            topic = dig(r.props, "topic")
            if is_unknown(topic) or not any(same_topic(str(topic), t) for t in topics):
                continue
            if not known:
                continue  # a dispatcher's account is known after apply: cannot tell who it is
            for where, role, member in iam.members(r.type, r.props):
                if role not in PUBLISH_ROLES and role not in custom:
                    continue
                if member in dispatchers or member.lower() in iam.PUBLIC_MEMBERS_LOWER:
                    continue  # the public is mlgov-iam-no-public-members' finding
                yield (
                    index,
                    f"{where} grants {role} on work topic '{topic}' to '{member}', which is not "
                    "a dispatcher: a forged work item makes the worker stop that project's "
                    "workloads (or unlink its billing where allowed)",
                )
        elif r.type in _PROJECT_GRANTS:
            project = as_str(dig(r.props, "project"))
            if project and projects and project not in projects:
                continue
            for where, role, member in iam.members(r.type, r.props):
                if role not in PUBLISH_ROLES and role not in custom:
                    continue
                if member.lower() in iam.PUBLIC_MEMBERS_LOWER:
                    continue
                yield (
                    index,
                    f"{where} grants {role} on project '{project}' to '{member}': it can publish "
                    "to every topic there, the work topic included; grant publish on the work "
                    "topic alone, to the dispatchers",
                )


WORK_TOPIC_PUBLISHER = StackRule(
    name="mlgov-pubsub-work-topic-publisher",
    check=work_topic_publisher,
    types=frozenset({v.FUNCTION_V2}) | _TOPIC_GRANTS | _PROJECT_GRANTS,
    enforcement="mandatory",
    why="The worker (on_work_item) acts on whatever work item arrives, within the policy: a "
    "publisher other than the four dispatchers could make it stop any governed project's "
    "workloads, at any time, without a budget alert or a schedule.",
    remediation="Grant roles/pubsub.publisher on the work topic only to the service accounts of "
    "on_budget_alert, reap_idle_vms, reap_expired and reap_idle_gpus (mlgov's WorkQueue does), "
    "and no Pub/Sub publisher or editor role on the project.",
    source="Pub/Sub access control (topics.publish needs pubsub.topics.publish) "
    "https://cloud.google.com/pubsub/docs/access-control",
)
