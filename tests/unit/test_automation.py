"""GovernanceFunctions under mocks: concrete camelCase inputs of every resource it creates."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pulumi
import pytest

from governance.components.action_settings import action_settings
from governance.components.automation import (
    GovernanceFunctions,
    GovernanceFunctionsArgs,
    function_permissions,
    functions_dir,
    source_files,
)
from governance.labels import base_labels
from governance.review.offline import RecordedResource, run_program, run_under_mocks
from governance.settings import Settings, settings_from_config
from tests.conftest import PROGRAM, REPO, STACKS, stack_config
from tests.unit.test_program import resources as program  # one cached run per stack

FUNCTIONS_DIR = REPO / "functions"

FUNCTION = "gcp:cloudfunctionsv2/function:Function"
JOB = "gcp:cloudscheduler/job:Job"
ROLE = "gcp:projects/iAMCustomRole:IAMCustomRole"
PROJECT_MEMBER = "gcp:projects/iAMMember:IAMMember"
FN_INVOKER = "gcp:cloudfunctionsv2/functionIamMember:FunctionIamMember"
RUN_INVOKER = "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
ACCOUNT = "gcp:serviceaccount/account:Account"
TOPIC = "projects/acme-ml-dev/topics/acme-dev-budget-alerts"
PRIMITIVE = {"roles/owner", "roles/editor", "roles/viewer"}

# Each stop is confirmed by its operation (functions/govern/operations.py); a VM an earlier stop
# left STOPPING is read again (instances.get).
STOP_PERMS = [
    "compute.instances.get",
    "compute.instances.list",
    "compute.instances.stop",
    "compute.zoneOperations.get",
    "notebooks.instances.list",
    "notebooks.instances.stop",
    "notebooks.operations.get",
    "tpu.nodes.list",
    "tpu.nodes.stop",
    "tpu.operations.get",
]
# The budget cap also reaches GKE (pools, NAP) and Vertex AI jobs (issue 12); it reads each
# pool's size from its instance groups and a cluster again after a label conflict (issue 19).
CAP_PERMS = [
    "aiplatform.customJobs.cancel",
    "aiplatform.customJobs.list",
    "aiplatform.hyperparameterTuningJobs.cancel",
    "aiplatform.hyperparameterTuningJobs.list",
    "compute.instanceGroupManagers.get",
    "container.clusters.get",
    "container.clusters.list",
    "container.clusters.update",
    "container.operations.get",
    # TPU queued resources still waiting for capacity are withdrawn.
    "tpu.queuedResources.delete",
    "tpu.queuedResources.list",
]
BUDGET_PERMS = sorted(STOP_PERMS + CAP_PERMS)
# Undeploying records each deployment on the endpoint first (endpoints.patch; .get again after a
# stale etag), so that `mlgov cap restore` can deploy it again.
UNDEPLOY_PERMS = [
    "aiplatform.endpoints.get",
    "aiplatform.endpoints.list",
    "aiplatform.endpoints.undeploy",
    "aiplatform.endpoints.update",
    "aiplatform.operations.get",  # each undeploy confirmed by its operation
]
BILLING_PERMS = ["resourcemanager.projects.deleteBillingAssignment", "resourcemanager.projects.get"]


def settings(stack: str, **automation: Any) -> Settings:
    config = stack_config(stack)
    if automation:
        raw = dict(config["mlgov:settings"])
        raw["automation"] = {**raw.get("automation", {}), **automation}
        config = {**config, "mlgov:settings": raw}
    return settings_from_config(config)


def build(s: Settings, source_dir: Path = FUNCTIONS_DIR) -> None:
    GovernanceFunctions(
        "gov",
        GovernanceFunctionsArgs(
            prefix=s.prefix,
            project=s.project,
            region=s.region,
            labels=base_labels(s.environment, s.labels),
            budget_topic_id=TOPIC,
            policy=pulumi.Output.from_input(action_settings(s, "budget-123")),
            allow_billing_disable=s.automation.allow_billing_disable and not s.is_prod,
            schedules=s.automation.schedules(),
            time_zone=s.automation.time_zone,
            http_timeout_seconds=s.automation.http_timeout_seconds,
            max_instances=s.automation.max_instances,
            scheduled_ingress=s.automation.scheduled_ingress,
            undeploy_endpoints=s.automation.undeploy_endpoints_at_cap,
            source_dir=source_dir,
        ),
    )


def by_name(resources: list[RecordedResource]) -> dict[str, RecordedResource]:
    return {r.name: r for r in resources}


@pytest.fixture(scope="module")
def dev_once() -> dict[str, RecordedResource]:
    """The dev stack's GovernanceFunctions under mocks, built once for the module's readers."""
    s = settings("dev")
    return by_name(run_under_mocks(lambda: build(s), {"gcp:project": s.project}, "test"))


@pytest.fixture
def dev(dev_once: dict[str, RecordedResource]) -> dict[str, RecordedResource]:
    """Each test's own copy: nothing one test does to it reaches the next."""
    return copy.deepcopy(dev_once)


# ---------------------------------------------------------------------------- functions
def test_four_functions_with_runtime_entry_point_and_source(dev):
    functions = {r.name: r.inputs for r in dev.values() if r.type == FUNCTION}
    assert sorted(functions) == [
        "gov-on-budget-alert",
        "gov-reap-expired",
        "gov-reap-idle-gpus",
        "gov-reap-idle-vms",
    ]
    archive = dev["gov-archive"].inputs["name"]
    for logical, inputs in functions.items():
        entry_point = logical.removeprefix("gov-").replace("-", "_")
        assert inputs["name"] == f"acme-dev-{entry_point.replace('_', '-')}"
        assert inputs["location"] == "us-central1"
        assert inputs["buildConfig"]["runtime"] == "python311"
        assert inputs["buildConfig"]["entryPoint"] == entry_point
        assert inputs["buildConfig"]["source"]["storageSource"] == {
            "bucket": "acme-ml-dev-mlgov-fn-source",
            "object": archive,
        }
        service = inputs["serviceConfig"]
        # Eventarc is internal traffic; the Scheduler-called functions keep the default.
        event = entry_point == "on_budget_alert"
        assert service["ingressSettings"] == ("ALLOW_INTERNAL_ONLY" if event else "ALLOW_ALL")
        assert service["maxInstanceCount"] == 1
        assert service["minInstanceCount"] == 0
        assert inputs["labels"]["workload"] == "governance"
        assert inputs["labels"]["managed-by"] == "mlgov"


def test_budget_function_listens_on_the_budget_topic_with_retries(dev):
    fn = dev["gov-on-budget-alert"].inputs
    assert fn["eventTrigger"] == {
        "eventType": "google.cloud.pubsub.topic.v1.messagePublished",
        "pubsubTopic": TOPIC,
        "retryPolicy": "RETRY_POLICY_RETRY",
        "serviceAccountEmail": "acme-dev-fn-trigger@acme-ml-dev.iam.gserviceaccount.com",
        "triggerRegion": "us-central1",
    }
    assert fn["serviceConfig"]["timeoutSeconds"] == 540
    for http in ("gov-reap-idle-vms", "gov-reap-expired", "gov-reap-idle-gpus"):
        assert "eventTrigger" not in dev[http].inputs
        assert dev[http].inputs["serviceConfig"]["timeoutSeconds"] == 900


def test_each_function_runs_as_its_own_account_with_its_own_role(dev):
    emails = set()
    for slug in ("on-budget-alert", "reap-idle-vms", "reap-expired", "reap-idle-gpus"):
        email = dev[f"gov-{slug}"].inputs["serviceConfig"]["serviceAccountEmail"]
        assert email == f"acme-dev-fn-{slug}@acme-ml-dev.iam.gserviceaccount.com"
        assert dev[f"gov-{slug}-sa"].inputs["accountId"] == f"acme-dev-fn-{slug}"
        role = dev[f"gov-{slug}-role"].inputs
        binding = dev[f"gov-{slug}-role-binding"].inputs
        assert binding == {
            "project": "acme-ml-dev",
            "role": f"projects/acme-ml-dev/roles/{role['roleId']}",
            "member": f"serviceAccount:{email}",
        }
        assert role["stage"] == "GA"
        emails.add(email)
    assert len(emails) == 4


def test_roles_hold_exactly_the_permissions_of_their_actions(dev):
    def perms(slug: str) -> list[str]:
        return dev[f"gov-{slug}-role"].inputs["permissions"]

    # dev opts in to billing unlink (automation.allow_billing_disable: true)
    assert perms("on-budget-alert") == sorted(BUDGET_PERMS + BILLING_PERMS)
    assert perms("reap-idle-vms") == [
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "recommender.computeInstanceIdleResourceRecommendations.list",
        "recommender.computeInstanceIdleResourceRecommendations.update",
    ]
    assert perms("reap-expired") == STOP_PERMS
    # It finds Workbench GPU VMs through Compute and stops them through Notebooks: no list.
    assert perms("reap-idle-gpus") == [
        "compute.instances.get",
        "compute.instances.list",
        "compute.instances.stop",
        "compute.zoneOperations.get",
        "monitoring.timeSeries.list",
        "notebooks.instances.stop",
        "notebooks.operations.get",
        "tpu.nodes.list",
        "tpu.nodes.stop",
        "tpu.operations.get",
    ]


def test_endpoint_undeploy_permissions_only_with_the_opt_in(under_mocks):
    s = settings("dev", undeploy_endpoints_at_cap=True)
    recorded = by_name(under_mocks(lambda: build(s), {"gcp:project": s.project}))
    budget = recorded["gov-on-budget-alert-role"].inputs["permissions"]
    assert budget == sorted(BUDGET_PERMS + BILLING_PERMS + UNDEPLOY_PERMS)
    for slug in ("reap-idle-vms", "reap-expired", "reap-idle-gpus"):
        assert not set(UNDEPLOY_PERMS) & set(recorded[f"gov-{slug}-role"].inputs["permissions"])


@pytest.mark.parametrize("stack", ["staging", "prod"])
def test_billing_unlink_permission_only_where_allowed(under_mocks, stack):
    s = settings(stack)
    recorded = by_name(under_mocks(lambda: build(s), {"gcp:project": s.project}))
    roles = [r.inputs["permissions"] for r in recorded.values() if r.type == ROLE]
    assert len(roles) == 4
    assert all("resourcemanager.projects.deleteBillingAssignment" not in p for p in roles)
    assert recorded["gov-on-budget-alert-role"].inputs["permissions"] == BUDGET_PERMS


def test_function_permissions_drop_billing_only_for_the_budget_function():
    assert function_permissions("on_budget_alert", allow_billing_disable=False) == tuple(
        BUDGET_PERMS
    )
    for ep in ("reap_idle_vms", "reap_expired", "reap_idle_gpus"):
        assert function_permissions(ep, allow_billing_disable=True) == function_permissions(
            ep, allow_billing_disable=False
        )


def test_no_primitive_roles_and_no_public_members(dev):
    for r in dev.values():
        role = r.inputs.get("role")
        member = r.inputs.get("member", "")
        assert role not in PRIMITIVE, r.name
        assert member not in {"allUsers", "allAuthenticatedUsers"}, r.name
        if member:
            assert member.startswith("serviceAccount:acme-dev-fn-"), r.name


# ---------------------------------------------------------------------------- invokers and jobs
def test_scheduler_jobs_call_function_urls_with_oidc(dev):
    jobs = {r.name: r.inputs for r in dev.values() if r.type == JOB}
    assert sorted(jobs) == [
        "gov-reap-expired-job",
        "gov-reap-idle-gpus-job",
        "gov-reap-idle-vms-job",
    ]
    schedules = {"reap-idle-vms": "0 * * * *", "reap-expired": "30 6 * * *"}
    schedules["reap-idle-gpus"] = "*/30 * * * *"
    scheduler = "acme-dev-fn-scheduler@acme-ml-dev.iam.gserviceaccount.com"
    for slug, cron in schedules.items():
        job = jobs[f"gov-{slug}-job"]
        # The function's Cloud Run URL (serviceConfig.uri, as the mocks compute it), where
        # same-project Scheduler calls count as internal traffic.
        url = f"https://acme-dev-{slug}-mock-us-central1.a.run.app"
        assert job["name"] == f"acme-dev-{slug}"
        assert job["region"] == "us-central1"
        assert job["schedule"] == cron
        assert job["timeZone"] == "Etc/UTC"
        assert job["attemptDeadline"] == "900s"
        assert job["httpTarget"]["uri"] == url
        assert job["httpTarget"]["httpMethod"] == "POST"
        assert job["httpTarget"]["oidcToken"] == {"serviceAccountEmail": scheduler, "audience": url}
        assert "oauthToken" not in job["httpTarget"]


def test_invokers_on_function_and_cloud_run_service(dev):
    scheduler = "serviceAccount:acme-dev-fn-scheduler@acme-ml-dev.iam.gserviceaccount.com"
    trigger = "serviceAccount:acme-dev-fn-trigger@acme-ml-dev.iam.gserviceaccount.com"
    fn_invokers = {r.name: r.inputs for r in dev.values() if r.type == FN_INVOKER}
    run_invokers = {r.name: r.inputs for r in dev.values() if r.type == RUN_INVOKER}
    assert len(fn_invokers) == 3  # Eventarc needs run.invoker only
    assert len(run_invokers) == 4
    for slug in ("reap-idle-vms", "reap-expired", "reap-idle-gpus"):
        assert fn_invokers[f"gov-{slug}-fn-invoker"] == {
            "project": "acme-ml-dev",
            "location": "us-central1",
            "cloudFunction": f"acme-dev-{slug}",
            "role": "roles/cloudfunctions.invoker",
            "member": scheduler,
        }
    for slug in ("on-budget-alert", "reap-idle-vms", "reap-expired", "reap-idle-gpus"):
        run = run_invokers[f"gov-{slug}-run-invoker"]
        assert run["role"] == "roles/run.invoker"
        assert run["name"] == f"projects/acme-ml-dev/locations/us-central1/services/acme-dev-{slug}"
        assert run["member"] == (trigger if slug == "on-budget-alert" else scheduler)


# ---------------------------------------------------------------------------- policy env var
def test_policy_env_var_is_the_rendered_stack_policy(dev):
    s = settings("dev")
    for slug, budget in (("on-budget-alert", 480), ("reap-idle-vms", 840)):
        raw = dev[f"gov-{slug}"].inputs["serviceConfig"]["environmentVariables"]["MLGOV_POLICY"]
        policy = json.loads(raw)
        assert policy == {
            "dry_run": True,
            "exempt_label": {"key": "mlgov-exempt", "value": "true"},
            "projects": {
                "acme-ml-dev": {
                    "environment": "dev",
                    "zones": ["us-central1-a", "us-central1-b"],
                    "allow_billing_disable": True,
                }
            },
            "budgets": {
                "budget-123": {
                    "projects": ["acme-ml-dev"],
                    "stop_at": 1.0,
                    "disable_billing_at": 1.5,
                    "billing_account": s.billing_account,
                    "amount": float(s.budget.amount_usd),
                    "currency": "USD",
                    "period": "MONTH",
                }
            },
            "idle_gpu": {
                "max_utilization_percent": 5.0,
                "window_minutes": 60,
                "workloads": ["training", "notebook"],
            },
            "time_budget_seconds": budget,
            "idle_tpu": {
                "max_duty_cycle_percent": 5.0,
                "window_minutes": 60,
                "workloads": ["training", "notebook"],
            },
            "undeploy_endpoints": False,
            # Always rendered: a reaper kind added later simulates until the stack lists it.
            "blast_radius": {
                "max_stops_per_run": 100,
                "max_stop_percent": None,
                "max_error_rate": 0.05,
                "canary": [],
                "acting_reapers": ["reap_idle_vms", "reap_expired", "reap_idle_gpus"],
            },
        }
        assert raw == action_settings(s, "budget-123", time_budget_seconds=budget).model_dump_json()


# ---------------------------------------------------------------------------- source
def test_source_bucket_is_private_and_deletes_only_superseded_archives(dev):
    bucket = dev["gov-source"].inputs
    assert bucket["name"] == "acme-ml-dev-mlgov-fn-source"
    assert bucket["location"] == "US-CENTRAL1"
    assert bucket["uniformBucketLevelAccess"] is True
    assert bucket["publicAccessPrevention"] == "enforced"
    # Live archives stay as long as the functions name them; what Pulumi replaced becomes a
    # noncurrent version, deleted 30 days later.
    assert bucket["versioning"] == {"enabled": True}
    assert bucket["lifecycleRules"] == [
        {
            "action": {"type": "Delete"},
            "condition": {"withState": "ARCHIVED", "daysSinceNoncurrentTime": 30},
        },
        {"action": {"type": "AbortIncompleteMultipartUpload"}, "condition": {"age": 1}},
    ]
    assert bucket["labels"]["workload"] == "governance"


def test_scheduled_functions_may_be_internal_only(under_mocks):
    s = settings("staging", scheduled_ingress="ALLOW_INTERNAL_ONLY")
    recorded = by_name(under_mocks(lambda: build(s), {"gcp:project": s.project}))
    ingress = {
        r.name: r.inputs["serviceConfig"]["ingressSettings"]
        for r in recorded.values()
        if r.type == FUNCTION
    }
    assert set(ingress.values()) == {"ALLOW_INTERNAL_ONLY"}
    assert len(ingress) == 4


def test_archive_holds_functions_without_caches(tmp_path):
    src = tmp_path / "functions"
    (src / "govern" / "__pycache__").mkdir(parents=True)
    (src / "main.py").write_text("x = 1\n")
    (src / "requirements.txt").write_text("functions-framework\n")
    (src / "govern" / "models.py").write_text("y = 2\n")
    (src / "govern" / "__pycache__" / "models.cpython-311.pyc").write_bytes(b"\0")
    (src / "govern" / "stale.pyc").write_bytes(b"\0")
    assert list(source_files(src)) == ["govern/models.py", "main.py", "requirements.txt"]
    assert functions_dir() == FUNCTIONS_DIR  # a checkout deploys its own functions/
    assert "main.py" in source_files(FUNCTIONS_DIR)
    assert not any("__pycache__" in p for p in source_files(FUNCTIONS_DIR))


def test_code_change_renames_the_archive(under_mocks, tmp_path):
    s = settings("dev")
    src = tmp_path / "functions"
    shutil.copytree(FUNCTIONS_DIR, src, ignore=shutil.ignore_patterns("__pycache__"))

    def archive_name() -> str:
        recorded = by_name(under_mocks(lambda: build(s, src), {"gcp:project": s.project}))
        return recorded["gov-archive"].inputs["name"]

    first = archive_name()
    assert first == archive_name()  # deterministic: no redeploy without a change
    (src / "__pycache__").mkdir(exist_ok=True)
    (src / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"junk")
    assert archive_name() == first  # bytecode is not code
    (src / "main.py").write_text((src / "main.py").read_text() + "\n# changed\n")
    second = archive_name()
    assert second != first
    assert second.startswith("functions-") and second.endswith(".zip")


# ---------------------------------------------------------------------------- whole program
@pytest.mark.parametrize("stack", STACKS)
def test_program_deploys_functions_wired_to_the_budget(stack):
    recorded = program(stack)
    s = settings(stack)
    functions = [r.inputs for r in recorded if r.type == FUNCTION]
    assert len(functions) == (6 if s.automation.fan_out else 4)
    [budget] = [
        r.inputs
        for r in recorded
        if r.type == "gcp:billing/budget:Budget" and not r.inputs["budgetFilter"].get("services")
    ]
    [listener] = [f for f in functions if "eventTrigger" in f]
    assert listener["eventTrigger"]["pubsubTopic"] == budget["allUpdatesRule"]["pubsubTopic"]
    policy = json.loads(listener["serviceConfig"]["environmentVariables"]["MLGOV_POLICY"])
    assert policy["dry_run"] is s.automation.dry_run
    assert list(policy["budgets"]) == ["mock-budget-budget"]
    # The function checks each notification against the budget the program deployed.
    rendered = policy["budgets"]["mock-budget-budget"]
    assert rendered["billing_account"] == budget["billingAccount"] == s.billing_account
    assert rendered["amount"] == float(budget["amount"]["specifiedAmount"]["units"])
    assert rendered["currency"] == budget["amount"]["specifiedAmount"]["currencyCode"]
    assert rendered["period"] == budget["budgetFilter"]["calendarPeriod"]
    billing_allowed = stack == "dev"
    assert policy["projects"][s.project]["allow_billing_disable"] is billing_allowed
    unlink = [
        r.name
        for r in recorded
        if r.type == ROLE
        and "resourcemanager.projects.deleteBillingAssignment" in r.inputs["permissions"]
    ]
    assert unlink == (["governance-on-budget-alert-role"] if billing_allowed else [])
    assert len([r for r in recorded if r.type == JOB and r.name.startswith("governance-")]) == 3


def test_program_without_automation_deploys_no_functions():
    config = stack_config("staging")
    raw = dict(config["mlgov:settings"])
    raw["automation"] = {"enabled": False}
    recorded = run_program({**config, "mlgov:settings": raw}, "staging", PROGRAM)
    assert not [r for r in recorded if r.type in (FUNCTION, ACCOUNT) and "fn-" in r.name]
    assert not [r for r in recorded if r.name.startswith("governance")]


@pytest.mark.parametrize("stack", STACKS)
def test_program_passes_the_policy_rules(stack):
    from mlgov_policies.config import PolicyConfig
    from mlgov_policies.evaluate import evaluate_resources

    s = settings(stack)
    resources = [{"type": r.type, "name": r.name, "inputs": r.inputs} for r in program(stack)]
    violations = evaluate_resources(resources, PolicyConfig.from_mapping(s.policy_config()))
    assert [v for v in violations if v.resource.startswith("governance")] == []
