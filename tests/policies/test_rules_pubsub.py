"""mlgov-pubsub-work-topic-publisher: only the dispatchers may publish work items.

Cases for mlgov_policies/rules/pubsub.py over the known-good stack. Fan-out is off there (no
function names MLGOV_WORK_TOPIC), so each case first turns it on for the budget function, whose
account (acme-prod-gov) is then the one dispatcher.
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, s
from policy_fixtures import WORK_TOPIC

RULE = "mlgov-pubsub-work-topic-publisher"
ENV = "serviceConfig.environmentVariables.MLGOV_WORK_TOPIC"
FAN_OUT = s("budget-fn", ENV, WORK_TOPIC)
OTHER = "serviceAccount:someone@acme-ml-prod.iam.gserviceaccount.com"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # Pulumi's unknown at preview time

CASES: tuple[Case, ...] = (
    Case("dispatcher-publishes", None, (FAN_OUT,)),
    Case(
        "another-publisher",
        RULE,
        (FAN_OUT, s("work-publisher", "member", OTHER)),
        resource="work-publisher",
    ),
    Case(
        "the-editor-role",
        RULE,
        (
            FAN_OUT,
            s("work-publisher", "role", "roles/pubsub.editor"),
            s("work-publisher", "member", OTHER),
        ),
        resource="work-publisher",
    ),
    Case(
        # The project of the work topic (not the budget topic's: that is billing.py's finding).
        "project-wide-publisher-even-to-the-dispatcher",
        RULE,
        (
            s("budget-fn", ENV, "projects/acme-ml-work/topics/acme-prod-work"),
            s("work-publisher", "topic", "projects/acme-ml-work/topics/acme-prod-work"),
            s("gov-role-binding", "project", "acme-ml-work"),
            s("gov-role-binding", "role", "roles/pubsub.publisher"),
        ),
        resource="gov-role-binding",
    ),
    Case(
        "custom-project-role-that-publishes",
        RULE,
        (
            s("budget-fn", ENV, "projects/acme-ml-work/topics/acme-prod-work"),
            s("work-publisher", "topic", "projects/acme-ml-work/topics/acme-prod-work"),
            s("gov-role", "project", "acme-ml-work"),
            s("gov-role", "permissions", ["compute.instances.stop", "pubsub.topics.publish"]),
            s("gov-role-binding", "project", "acme-ml-work"),
            s("gov-role-binding", "role", "projects/acme-ml-work/roles/acmeProdGov"),
        ),
        resource="gov-role-binding",
    ),
    Case("without-fan-out-nobody-is-checked", None, (s("work-publisher", "member", OTHER),)),
    Case(
        "a-dispatcher-account-known-only-after-apply",
        None,
        (
            FAN_OUT,
            s("budget-fn", "serviceConfig.serviceAccountEmail", UNKNOWN),
            s("budget-fn", "eventTrigger.serviceAccountEmail", UNKNOWN),
            s("work-publisher", "member", OTHER),
        ),
    ),
    Case(
        "a-grant-on-another-topic",
        None,
        (
            FAN_OUT,
            s("work-publisher", "topic", "acme-prod-other"),
            s("work-publisher", "member", OTHER),
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
