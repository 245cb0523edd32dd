"""WorkQueue: the Pub/Sub pieces of fan-out (docs/architecture.md#fan-out), one item per project.

It owns the work topic the dispatchers publish to, the push subscription that delivers each item
to `on_work_item` (OIDC, the longest ack deadline Pub/Sub allows, backoff, a bounded number of
attempts), the dead-letter topic and its push subscription to `on_dead_letter`, and the grants
that make them work: publish on the work topic for the four dispatchers' accounts and nobody else
(policies: mlgov-pubsub-work-topic-publisher), and the Pub/Sub service agent's rights to move an
item to the dead-letter topic. The functions themselves, and how the worker is sized
(worker_sizing.py), are automation.py's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from governance.components.worker_sizing import ACK_DEADLINE_S
from governance.naming import resource_name
from mlgov_policies.vocabulary import component_type

PUBLISHER = "roles/pubsub.publisher"
SUBSCRIBER = "roles/pubsub.subscriber"
# Pub/Sub mints the push OIDC token as the push account; for projects created before April 2021
# its service agent needs this on that account (Authentication for push subscriptions).
TOKEN_CREATOR = "roles/iam.serviceAccountTokenCreator"  # noqa: S105 - a role name
# Redelivery backoff: Pub/Sub's documented range is 0-600 s; at most 600 s between attempts.
MIN_BACKOFF = "10s"
MAX_BACKOFF = "600s"
# An item nobody could deliver for a day is stale: a newer alert or run has dispatched again.
WORK_RETENTION = "86400s"
# Dead letters are the evidence of what was never done: kept a week (Pub/Sub's default).
DEAD_RETENTION = "604800s"
DEAD_ACK_DEADLINE_S = 60  # on_dead_letter only logs


def work_topic_name(prefix: str) -> str:
    """The work topic's name (`<prefix>-work`)."""
    return resource_name(prefix, "work")


def work_topic_path(prefix: str, project: str) -> str:
    """`projects/P/topics/<prefix>-work`: the dispatchers' MLGOV_WORK_TOPIC.

    Written out (rather than the topic's `id` output) so the policies know, at preview time,
    which topic the dispatchers publish to.
    """
    return f"projects/{project}/topics/{work_topic_name(prefix)}"


def pubsub_service_agent(project_number: str) -> str:
    """The member of the project's Pub/Sub service agent, which moves dead letters."""
    return f"serviceAccount:service-{project_number}@gcp-sa-pubsub.iam.gserviceaccount.com"


@dataclass(frozen=True, kw_only=True)
class WorkQueueArgs:
    """What WorkQueue needs: names, the endpoints it pushes to and who may publish."""

    prefix: str
    project: str
    project_number: str
    labels: Mapping[str, str]
    max_delivery_attempts: int
    worker_uri: pulumi.Input[str]  # on_work_item's run.app URL
    dead_letter_uri: pulumi.Input[str]  # on_dead_letter's run.app URL
    push_account: gcp.serviceaccount.Account  # the identity of the OIDC push
    dispatchers: Mapping[str, pulumi.Input[str]]  # entry point -> IAM member


class WorkQueue(pulumi.ComponentResource):
    """The work topic, its push subscription with a dead-letter topic, and who may publish."""

    topic_path: str
    subscription_name: pulumi.Output[str]
    dead_letter_topic: pulumi.Output[str]

    def __init__(
        self, name: str, args: WorkQueueArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("WorkQueue"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        agent = pubsub_service_agent(args.project_number)
        labels = dict(args.labels)
        topic = gcp.pubsub.Topic(
            f"{name}-topic",
            name=work_topic_name(args.prefix),
            project=args.project,
            labels=labels,
            opts=child,
        )
        dead = gcp.pubsub.Topic(
            f"{name}-dead-topic",
            name=resource_name(args.prefix, "work-dead"),
            project=args.project,
            labels=labels,
            opts=child,
        )
        for entry_point, member in sorted(args.dispatchers.items()):
            gcp.pubsub.TopicIAMMember(
                f"{name}-publisher-{entry_point.replace('_', '-')}",
                project=args.project,
                topic=topic.name,
                role=PUBLISHER,
                member=member,
                opts=child,
            )
        dead_publisher = gcp.pubsub.TopicIAMMember(
            f"{name}-dead-publisher",
            project=args.project,
            topic=dead.name,
            role=PUBLISHER,
            member=agent,
            opts=child,
        )
        project = args.project
        token = gcp.serviceaccount.IAMMember(
            f"{name}-push-token-creator",
            # The account's full name, from its email (known under mocks and at apply alike).
            service_account_id=args.push_account.email.apply(
                lambda e: f"projects/{project}/serviceAccounts/{e}"
            ),
            role=TOKEN_CREATOR,
            member=agent,
            opts=child,
        )
        push_email = args.push_account.email
        subscription = gcp.pubsub.Subscription(
            f"{name}-push",
            name=resource_name(args.prefix, "work-push"),
            project=args.project,
            topic=topic.name,
            labels=labels,
            # The longest Pub/Sub allows; the worker stops at 540 s, so an item still running is
            # never handed to a second worker.
            ack_deadline_seconds=ACK_DEADLINE_S,
            message_retention_duration=WORK_RETENTION,
            push_config=gcp.pubsub.SubscriptionPushConfigArgs(
                push_endpoint=args.worker_uri,
                oidc_token=gcp.pubsub.SubscriptionPushConfigOidcTokenArgs(
                    service_account_email=push_email, audience=args.worker_uri
                ),
            ),
            dead_letter_policy=gcp.pubsub.SubscriptionDeadLetterPolicyArgs(
                dead_letter_topic=dead.id, max_delivery_attempts=args.max_delivery_attempts
            ),
            retry_policy=gcp.pubsub.SubscriptionRetryPolicyArgs(
                minimum_backoff=MIN_BACKOFF, maximum_backoff=MAX_BACKOFF
            ),
            # An empty ttl: never expires. The default deletes a subscription after 31 days
            # without activity, and a budget alert can be months apart.
            expiration_policy=gcp.pubsub.SubscriptionExpirationPolicyArgs(ttl=""),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[dead_publisher, token]),
        )
        # Forwarding to the dead-letter topic acknowledges the item on this subscription.
        gcp.pubsub.SubscriptionIAMMember(
            f"{name}-push-subscriber",
            project=args.project,
            subscription=subscription.name,
            role=SUBSCRIBER,
            member=agent,
            opts=child,
        )
        gcp.pubsub.Subscription(
            f"{name}-dead-push",
            name=resource_name(args.prefix, "work-dead-push"),
            project=args.project,
            topic=dead.name,
            labels=labels,
            ack_deadline_seconds=DEAD_ACK_DEADLINE_S,
            message_retention_duration=DEAD_RETENTION,
            push_config=gcp.pubsub.SubscriptionPushConfigArgs(
                push_endpoint=args.dead_letter_uri,
                oidc_token=gcp.pubsub.SubscriptionPushConfigOidcTokenArgs(
                    service_account_email=push_email, audience=args.dead_letter_uri
                ),
            ),
            retry_policy=gcp.pubsub.SubscriptionRetryPolicyArgs(
                minimum_backoff=MIN_BACKOFF, maximum_backoff=MAX_BACKOFF
            ),
            expiration_policy=gcp.pubsub.SubscriptionExpirationPolicyArgs(ttl=""),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[token]),
        )
        self.topic_path = work_topic_path(args.prefix, args.project)
        self.subscription_name = subscription.name
        self.dead_letter_topic = dead.id
        self.register_outputs(
            {
                "topic_path": self.topic_path,
                "subscription_name": self.subscription_name,
                "dead_letter_topic": self.dead_letter_topic,
            }
        )
