"""The shipped stacks under mocks: hardened defaults in what the program provisions.

GKE control plane (public only where the stack says so), internal ingress on the budget
function, no root on notebooks, function source archives never deleted while live; and the
policy rules that guard each find nothing.
"""

from __future__ import annotations

import pytest

from governance.review.offline import run_program
from governance.settings import settings_from_config
from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources
from tests.conftest import PROGRAM, STACKS, stack_config
from tests.unit.test_program import of_type, resources  # one cached run per stack

HARDENING_RULES = {
    "mlgov-gke-control-plane-private",
    "mlgov-functions-event-ingress-internal",
    "mlgov-workbench-root-access",
    "mlgov-storage-function-source-kept",
}


@pytest.mark.parametrize("stack", STACKS)
def test_control_plane_public_only_where_settings_say(stack: str) -> None:
    [cluster] = of_type(stack, "gcp:container/cluster:Cluster")
    public = stack == "dev"  # stacks/Pulumi.dev.yaml: control_plane: {public_endpoint: true}
    assert cluster["privateClusterConfig"]["enablePrivateEndpoint"] is (not public)
    assert cluster["privateClusterConfig"]["enablePrivateNodes"] is True
    dns = cluster["controlPlaneEndpointsConfig"]["dnsEndpointConfig"]
    assert dns == {"allowExternalTraffic": True}


@pytest.mark.parametrize("stack", STACKS)
def test_budget_function_internal_scheduled_functions_reachable(stack: str) -> None:
    functions = of_type(stack, "gcp:cloudfunctionsv2/function:Function")
    ingress = {
        f["buildConfig"]["entryPoint"]: f["serviceConfig"]["ingressSettings"] for f in functions
    }
    # The fan-out functions are pushed to by Pub/Sub: internal, as Eventarc's delivery is.
    pushed = (
        {"on_work_item": "ALLOW_INTERNAL_ONLY", "on_dead_letter": "ALLOW_INTERNAL_ONLY"}
        if settings_from_config(stack_config(stack)).automation.fan_out
        else {}
    )
    assert ingress == {
        "on_budget_alert": "ALLOW_INTERNAL_ONLY",
        "reap_idle_vms": "ALLOW_ALL",
        "reap_expired": "ALLOW_ALL",
        "reap_idle_gpus": "ALLOW_ALL",
        **pushed,
    }
    uris = {f["name"]: f"https://{f['name']}-mock-{f['location']}.a.run.app" for f in functions}
    jobs = [
        j for j in of_type(stack, "gcp:cloudscheduler/job:Job") if "oidcToken" in j["httpTarget"]
    ]
    assert len(jobs) == 3
    for job in jobs:
        target = job["httpTarget"]
        assert target["uri"] in uris.values()
        assert target["oidcToken"]["audience"] == target["uri"]


@pytest.mark.parametrize("stack", STACKS)
def test_notebooks_have_no_root(stack: str) -> None:
    notebooks = of_type(stack, "gcp:workbench/instance:Instance")
    assert notebooks
    for nb in notebooks:
        assert nb["gceSetup"]["metadata"]["notebook-disable-root"] == "true"
        assert "mlgov-root-access" not in nb["labels"]


@pytest.mark.parametrize("stack", STACKS)
def test_source_bucket_keeps_live_archives(stack: str) -> None:
    [source] = {
        f["buildConfig"]["source"]["storageSource"]["bucket"]
        for f in of_type(stack, "gcp:cloudfunctionsv2/function:Function")
    }
    [bucket] = [b for b in of_type(stack, "gcp:storage/bucket:Bucket") if b["name"] == source]
    assert bucket["versioning"] == {"enabled": True}
    deletes = [r for r in bucket["lifecycleRules"] if r["action"]["type"] == "Delete"]
    assert deletes
    for rule in deletes:
        assert rule["condition"]["withState"] == "ARCHIVED"


@pytest.mark.parametrize("stack", STACKS)
def test_hardening_rules_find_nothing(stack: str) -> None:
    config = PolicyConfig.from_mapping(settings_from_config(stack_config(stack)).policy_config())
    plan = [{"type": r.type, "name": r.name, "inputs": r.inputs} for r in resources(stack)]
    assert {
        v.policy for v in evaluate_resources(plan, config, stack=stack)
    } & HARDENING_RULES == set()


def test_hardening_rules_would_fire_on_the_same_stack_opened_up() -> None:
    # The guard is real: the prod stack with each default undone trips each rule once.
    config = stack_config("prod")
    raw = dict(config["mlgov:settings"])
    raw["gke"] = {
        **raw["gke"],
        "control_plane": {
            "public_endpoint": True,
            "authorized_networks": [{"cidr_block": "203.0.113.0/24"}],
        },
    }
    opened = run_program({**config, "mlgov:settings": raw}, "prod", PROGRAM)
    plan = [{"type": r.type, "name": r.name, "inputs": r.inputs} for r in opened]
    for r in plan:
        if r["type"] == "gcp:container/cluster:Cluster":
            r["inputs"].pop("masterAuthorizedNetworksConfig")
        if r["type"] == "gcp:cloudfunctionsv2/function:Function":
            r["inputs"]["serviceConfig"]["ingressSettings"] = "ALLOW_ALL"
        if r["type"] == "gcp:workbench/instance:Instance":
            r["inputs"]["gceSetup"]["metadata"].pop("notebook-disable-root")
        if r["type"] == "gcp:storage/bucket:Bucket":
            r["inputs"]["lifecycleRules"] = [
                {"action": {"type": "Delete"}, "condition": {"age": 30}}
            ]
    policy = PolicyConfig.from_mapping(settings_from_config(config).policy_config())
    found = {v.policy for v in evaluate_resources(plan, policy, stack="prod")}
    assert found & HARDENING_RULES == HARDENING_RULES
