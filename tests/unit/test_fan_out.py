"""Fan-out under mocks: the work queue, the worker and the folder/organization grants.

The prod stack turns fan-out on with a folder scope; staging does not. A dev variant with two
scopes (one allowing billing unlink) checks that unlinking is granted only where allowed.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from typing import Any

import pytest

from governance.components.automation import (
    PERMISSIONS,
    UNLINK_BILLING,
    function_permissions,
    scope_work_permissions,
)
from governance.components.worker_sizing import ACK_DEADLINE_S, worker_size
from governance.review.offline import RecordedResource, run_program
from governance.settings import settings_from_config
from tests.conftest import PROGRAM, stack_config

FUNCTION = "gcp:cloudfunctionsv2/function:Function"
TOPIC = "gcp:pubsub/topic:Topic"
SUBSCRIPTION = "gcp:pubsub/subscription:Subscription"
TOPIC_MEMBER = "gcp:pubsub/topicIAMMember:TopicIAMMember"
SUB_MEMBER = "gcp:pubsub/subscriptionIAMMember:SubscriptionIAMMember"
SA_MEMBER = "gcp:serviceaccount/iAMMember:IAMMember"
RUN_INVOKER = "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
PROJECT_ROLE = "gcp:projects/iAMCustomRole:IAMCustomRole"
ORG_ROLE = "gcp:organizations/iAMCustomRole:IAMCustomRole"
FOLDER_MEMBER = "gcp:folder/iAMMember:IAMMember"
ORG_MEMBER = "gcp:organizations/iAMMember:IAMMember"
DISPATCHERS = ("on_budget_alert", "reap_idle_vms", "reap_expired", "reap_idle_gpus")
PROD = settings_from_config(stack_config("prod"))
[PROD_FOLDER] = PROD.automation.scopes
ORG_ID = str(PROD.automation.organization).removeprefix("organizations/")
AGENT = f"serviceAccount:service-{PROD.project_number}@gcp-sa-pubsub.iam.gserviceaccount.com"


def _sa(project: str, slug: str, prefix: str = "acme-prod") -> str:
    return f"serviceAccount:{prefix}-fn-{slug}@{project}.iam.gserviceaccount.com"


@functools.cache
def _run(stack: str, variant: str = "") -> tuple[RecordedResource, ...]:
    config = copy.deepcopy(stack_config(stack))
    if variant == "two-scopes":
        raw = config["mlgov:settings"]
        raw["automation"] = {
            **raw.get("automation", {}),
            "fan_out": True,
            "organization": "organizations/9000",
            "scopes": {
                "folders/11": {"allow_billing_disable": True},
                "organizations/9000": {"labels": {"mlgov-governed": "true"}},
            },
        }
        raw["budget"] = {**raw["budget"], "scopes": ["folders/11", "organizations/9000"]}
    return tuple(run_program(config, stack, PROGRAM))


def _of(stack: str, type_: str, variant: str = "") -> dict[str, Mapping[str, Any]]:
    return {r.name: r.inputs for r in _run(stack, variant) if r.type == type_}


def _functions(stack: str, variant: str = "") -> dict[str, Mapping[str, Any]]:
    return {f["buildConfig"]["entryPoint"]: f for f in _of(stack, FUNCTION, variant).values()}


# ---------------------------------------------------------------------------- the work queue
def test_the_work_subscription_pushes_to_the_worker_with_oidc_and_dead_letters():
    fns = _functions("prod")
    worker_uri = "https://acme-prod-on-work-item-mock-europe-west4.a.run.app"
    dead_uri = "https://acme-prod-on-dead-letter-mock-europe-west4.a.run.app"
    assert fns["on_work_item"]["name"] == "acme-prod-on-work-item"
    subs = _of("prod", SUBSCRIPTION)
    push = subs["governance-work-push"]
    assert push["name"] == "acme-prod-work-push"
    assert push["topic"] == "acme-prod-work"
    assert push["ackDeadlineSeconds"] == ACK_DEADLINE_S == 600
    assert push["pushConfig"] == {
        "pushEndpoint": worker_uri,
        "oidcToken": {
            "serviceAccountEmail": "acme-prod-fn-push@acme-ml-prod.iam.gserviceaccount.com",
            "audience": worker_uri,
        },
    }
    assert push["deadLetterPolicy"] == {
        "deadLetterTopic": "projects/acme-ml-prod/topics/acme-prod-work-dead",
        "maxDeliveryAttempts": 20,
    }
    assert push["retryPolicy"] == {"minimumBackoff": "10s", "maximumBackoff": "600s"}
    assert push["expirationPolicy"] == {"ttl": ""}  # never deleted for inactivity
    dead = subs["governance-work-dead-push"]
    assert dead["topic"] == "acme-prod-work-dead"
    assert dead["pushConfig"]["pushEndpoint"] == dead_uri
    assert dead["pushConfig"]["oidcToken"]["audience"] == dead_uri
    assert "deadLetterPolicy" not in dead
    topics = {t["name"] for t in _of("prod", TOPIC).values()}
    assert {"acme-prod-work", "acme-prod-work-dead"} <= topics


def test_only_the_four_dispatchers_may_publish_work_items():
    grants = _of("prod", TOPIC_MEMBER).values()
    work = sorted(g["member"] for g in grants if g["topic"] == "acme-prod-work")
    assert work == sorted(_sa("acme-ml-prod", ep.replace("_", "-")) for ep in DISPATCHERS)
    assert all(
        g["role"] == "roles/pubsub.publisher" for g in grants if g["topic"] == "acme-prod-work"
    )


def test_the_pubsub_service_agent_can_move_dead_letters_and_mint_the_push_token():
    dead = [g for g in _of("prod", TOPIC_MEMBER).values() if g["topic"] == "acme-prod-work-dead"]
    assert dead == [
        {
            "project": "acme-ml-prod",
            "topic": "acme-prod-work-dead",
            "role": "roles/pubsub.publisher",
            "member": AGENT,
        }
    ]
    [sub] = _of("prod", SUB_MEMBER).values()
    assert (sub["subscription"], sub["role"], sub["member"]) == (
        "acme-prod-work-push",
        "roles/pubsub.subscriber",
        AGENT,
    )
    [token] = _of("prod", SA_MEMBER).values()
    assert token["serviceAccountId"] == (
        "projects/acme-ml-prod/serviceAccounts/acme-prod-fn-push@acme-ml-prod.iam.gserviceaccount.com"
    )
    assert (token["role"], token["member"]) == ("roles/iam.serviceAccountTokenCreator", AGENT)


def test_the_push_identity_may_invoke_the_two_pushed_functions_only():
    push = "serviceAccount:acme-prod-fn-push@acme-ml-prod.iam.gserviceaccount.com"
    invoked = sorted(g["name"] for g in _of("prod", RUN_INVOKER).values() if g["member"] == push)
    assert invoked == [
        "projects/acme-ml-prod/locations/europe-west4/services/acme-prod-on-dead-letter",
        "projects/acme-ml-prod/locations/europe-west4/services/acme-prod-on-work-item",
    ]


# ---------------------------------------------------------------------------- the functions
def test_dispatchers_get_the_work_topic_and_the_workers_do_not():
    fns = _functions("prod")
    for ep in DISPATCHERS:
        env = fns[ep]["serviceConfig"]["environmentVariables"]
        assert env["MLGOV_WORK_TOPIC"] == "projects/acme-ml-prod/topics/acme-prod-work"
    for ep in ("on_work_item", "on_dead_letter"):
        env = fns[ep]["serviceConfig"]["environmentVariables"]
        assert "MLGOV_WORK_TOPIC" not in env
        assert "eventTrigger" not in fns[ep]  # pushed by the subscription, not Eventarc
        assert fns[ep]["serviceConfig"]["ingressSettings"] == "ALLOW_INTERNAL_ONLY"


def test_the_worker_is_sized_from_the_quotas_and_stops_before_the_ack_deadline():
    size = worker_size()
    config = _functions("prod")["on_work_item"]["serviceConfig"]
    assert config["maxInstanceCount"] == size.instances == 157
    assert config["maxInstanceRequestConcurrency"] == size.concurrency == 80
    assert config["availableCpu"] == "1"  # more than one request at once needs a whole vCPU
    assert config["timeoutSeconds"] == 540 < ACK_DEADLINE_S
    policy = json.loads(config["environmentVariables"]["MLGOV_POLICY"])
    assert policy["fan_out"] == {"max_delivery_attempts": 20, "worker_instances": 157}
    assert policy["time_budget_seconds"] == 480
    assert policy["scopes"] == {
        PROD_FOLDER: {
            "environment": "prod",
            "allow_billing_disable": False,
            "labels": {"mlgov-governed": "true"},
        }
    }


def test_without_fan_out_nothing_of_it_is_deployed():
    fns = _functions("staging")
    assert set(fns) == set(DISPATCHERS)
    assert not any(
        "MLGOV_WORK_TOPIC" in f["serviceConfig"]["environmentVariables"] for f in fns.values()
    )
    assert not _of("staging", SUBSCRIPTION)
    assert not _of("staging", ORG_ROLE)
    assert not _of("staging", FOLDER_MEMBER)
    policy = json.loads(
        fns["on_budget_alert"]["serviceConfig"]["environmentVariables"]["MLGOV_POLICY"]
    )
    assert "fan_out" not in policy
    assert "scopes" not in policy


def test_project_roles_hold_what_each_function_calls_and_nothing_granted_elsewhere():
    roles = {r["roleId"]: r["permissions"] for r in _of("prod", PROJECT_ROLE).values()}
    worker = roles["acme_prod_fn_on_work_item"]
    assert worker == list(
        function_permissions(
            "on_work_item",
            allow_billing_disable=False,
            undeploy_endpoints=False,
            read_spend_caps=True,
        )
    )
    assert "resourcemanager.projects.deleteBillingAssignment" not in worker
    # The stack reads spend caps, but the worker never does: no projects.get for it either.
    assert "resourcemanager.projects.get" not in worker
    assert "resourcemanager.projects.get" in roles["acme_prod_fn_on_budget_alert"]
    assert "acme_prod_fn_on_dead_letter" not in roles  # logs only: no role at all
    for ep in DISPATCHERS:
        perms = roles[f"acme_prod_fn_{ep}"]
        assert "cloudasset.assets.searchAllResources" not in perms  # granted on the scope
        assert "pubsub.topics.publish" not in perms  # granted on the work topic
        assert "cloudasset.assets.searchAllResources" in PERMISSIONS[ep]


# ---------------------------------------------------------------------------- scope grants
def test_the_folder_grants_are_the_dispatch_and_work_roles_of_the_organization():
    roles = {r["roleId"]: r for r in _of("prod", ORG_ROLE).values()}
    assert set(roles) == {"acme_prod_fn_dispatch", "acme_prod_fn_work"}
    assert all(r["orgId"] == ORG_ID for r in roles.values())
    assert roles["acme_prod_fn_dispatch"]["permissions"] == ["cloudasset.assets.searchAllResources"]
    assert roles["acme_prod_fn_work"]["permissions"] == list(
        scope_work_permissions(undeploy_endpoints=False)
    )
    assert not set(UNLINK_BILLING) & set(roles["acme_prod_fn_work"]["permissions"])
    grants = sorted(
        (g["folder"], g["role"].rsplit("/", 1)[-1], g["member"])
        for g in _of("prod", FOLDER_MEMBER).values()
    )
    expected = [
        (PROD_FOLDER, "acme_prod_fn_dispatch", _sa("acme-ml-prod", ep.replace("_", "-")))
        for ep in DISPATCHERS
    ]
    expected.append((PROD_FOLDER, "acme_prod_fn_work", _sa("acme-ml-prod", "on-work-item")))
    assert grants == sorted(expected)
    assert all(
        g["role"].startswith(f"organizations/{ORG_ID}/roles/")
        for g in _of("prod", FOLDER_MEMBER).values()
    )
    assert not _of("prod", ORG_MEMBER)


def test_billing_unlink_is_granted_only_on_the_scope_that_allows_it():
    variant = "two-scopes"
    roles = {r["roleId"]: r["permissions"] for r in _of("dev", ORG_ROLE, variant).values()}
    assert roles["acme_dev_fn_work_unlink"] == sorted(UNLINK_BILLING)
    unlink_role = "organizations/9000/roles/acme_dev_fn_work_unlink"
    folder = [g for g in _of("dev", FOLDER_MEMBER, variant).values() if g["role"] == unlink_role]
    org = [g for g in _of("dev", ORG_MEMBER, variant).values() if g["role"] == unlink_role]
    assert [(g["folder"], g["member"]) for g in folder] == [
        ("folders/11", _sa("acme-ml-dev", "on-work-item", "acme-dev"))
    ]
    assert org == []  # the organization scope does not allow unlink
    org_grants = {g["role"].rsplit("/", 1)[-1] for g in _of("dev", ORG_MEMBER, variant).values()}
    assert org_grants == {"acme_dev_fn_dispatch", "acme_dev_fn_work"}
    assert all(g["orgId"] == "9000" for g in _of("dev", ORG_MEMBER, variant).values())
    policy = json.loads(
        _functions("dev", variant)["on_work_item"]["serviceConfig"]["environmentVariables"][
            "MLGOV_POLICY"
        ]
    )
    assert policy["scopes"]["folders/11"]["allow_billing_disable"] is True
    assert policy["scopes"]["organizations/9000"]["allow_billing_disable"] is False
    [budget] = policy["budgets"].values()
    assert budget["projects"] == []
    assert budget["scopes"] == ["folders/11", "organizations/9000"]
    assert budget["disable_billing_at"] == 1.5


def test_a_budget_of_scopes_counts_their_spend_not_the_stack_project():
    budgets = [
        b
        for b in _of("dev", "gcp:billing/budget:Budget", "two-scopes").values()
        if not b["budgetFilter"].get("services")
    ]
    [budget] = budgets
    assert budget["budgetFilter"]["resourceAncestors"] == ["folders/11", "organizations/9000"]
    assert "projects" not in budget["budgetFilter"]


@pytest.mark.parametrize("stack", ["prod", "staging"])
def test_no_basic_role_is_granted_anywhere(stack: str):
    for type_ in (FOLDER_MEMBER, ORG_MEMBER, TOPIC_MEMBER, SUB_MEMBER, SA_MEMBER):
        for grant in _of(stack, type_).values():
            assert grant["role"] not in {"roles/owner", "roles/editor", "roles/viewer"}


@pytest.mark.parametrize(("stack", "variant"), [("prod", ""), ("dev", "two-scopes")])
def test_the_program_passes_its_own_fan_out_rules(stack: str, variant: str):
    from mlgov_policies.config import PolicyConfig
    from mlgov_policies.evaluate import evaluate_resources

    resources = [{"type": r.type, "name": r.name, "inputs": r.inputs} for r in _run(stack, variant)]
    found = evaluate_resources(
        resources, PolicyConfig.from_mapping({"environment": stack}), stack=stack
    )
    rules = {"mlgov-pubsub-work-topic-publisher", "mlgov-iam-scope-least-privilege"}
    assert [f.as_dict() for f in found if f.policy in rules] == []
    # ...and they see what they check: another publisher on the work topic is found.
    publisher = next(r for r in resources if r["name"] == "governance-work-publisher-reap-expired")
    publisher["inputs"] = {
        **publisher["inputs"],
        "member": "serviceAccount:x@y.iam.gserviceaccount.com",
    }
    found = evaluate_resources(
        resources, PolicyConfig.from_mapping({"environment": stack}), stack=stack
    )
    assert [f.resource for f in found if f.policy in rules] == [publisher["name"]]
