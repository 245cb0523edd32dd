"""The governance diff on small plan documents: one governed value changed per case, both ways.

Each case edits the shipped prod plan (tests/golden) the way a PR could, and states whether the
change must weaken governance. The reverse edit is checked too, so a direction that flags both
ways (or neither) fails.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from governance.review.govdiff import governance_changes
from governance.review.govdiff.aspects import ASPECTS, is_default_account, judge

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
Doc = dict[str, Any]


def golden(stack: str = "prod") -> Doc:
    return json.loads((GOLDEN / f"plan.{stack}.json").read_text())


def resource(doc: Doc, name: str) -> Doc:
    return next(r for r in doc["resources"] if r["name"] == name)


def inputs(doc: Doc, name: str) -> Doc:
    return resource(doc, name)["inputs"]


def policy_edit(change: Callable[[Doc], None]) -> Callable[[Doc], None]:
    """Edit the MLGOV_POLICY of every governance function the same way."""

    def edit(doc: Doc) -> None:
        for r in doc["resources"]:
            env = r["inputs"].get("serviceConfig", {}).get("environmentVariables", {})
            if "MLGOV_POLICY" in env:
                policy = json.loads(env["MLGOV_POLICY"])
                change(policy)
                env["MLGOV_POLICY"] = json.dumps(policy)

    return edit


def _set(path: tuple[str, ...], value: Any) -> Callable[[Doc], None]:
    def change(policy: Doc) -> None:
        target = policy
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _nap_limit(kind: str, maximum: float | None) -> Callable[[Doc], None]:
    def edit(doc: Doc) -> None:
        limits = inputs(doc, "gke-cluster")["clusterAutoscaling"]["resourceLimits"]
        limits[:] = [x for x in limits if x["resourceType"] != kind]
        if maximum is not None:
            limits.append({"resourceType": kind, "minimum": 0.0, "maximum": maximum})

    return edit


def _drop(name: str) -> Callable[[Doc], None]:
    def edit(doc: Doc) -> None:
        doc["resources"] = [r for r in doc["resources"] if r["name"] != name]

    return edit


def _fan_out_off(doc: Doc) -> None:
    """The dispatchers stop naming the work topic (the scopes stay)."""
    for r in doc["resources"]:
        env = r["inputs"].get("serviceConfig", {}).get("environmentVariables", {})
        env.pop("MLGOV_WORK_TOPIC", None)


def _scope_to_org(policy: Doc) -> None:
    scopes = policy["scopes"]
    scopes["organizations/456789012345"] = scopes.pop(FOLDER)


def _drop_key(path: tuple[str, ...]) -> Callable[[Doc], None]:
    def change(policy: Doc) -> None:
        target = policy
        for key in path[:-1]:
            target = target[key]
        target.pop(path[-1])

    return change


BUDGET = "mock-budget-budget"
FOLDER = "folders/112233445566"  # stacks/Pulumi.prod.yaml
EVERY_CHANGE = {
    "policy.exempt_label",
    "budget-budget.allUpdatesRule.pubsubTopic",
    "governance-reap-expired-job.target",
}
# (case, edit of the base, change id, weakens when applied)
CASES: list[tuple[str, Callable[[Doc], None], str, bool]] = [
    ("stop later", policy_edit(_set(("budgets", BUDGET, "stop_at"), 1.5)),
     f"policy.budgets.{BUDGET}.stop_at", True),
    ("stop never", policy_edit(_set(("budgets", BUDGET, "stop_at"), None)),
     f"policy.budgets.{BUDGET}.stop_at", True),
    ("idle GPU threshold lower", policy_edit(_set(("idle_gpu", "max_utilization_percent"), 1.0)),
     "policy.idle_gpu.max_utilization_percent", True),
    ("idle window longer", policy_edit(_set(("idle_tpu", "window_minutes"), 600)),
     "policy.idle_tpu.window_minutes", True),
    ("zone dropped", policy_edit(_set(("projects", "acme-ml-prod", "zones"), ["europe-west4-a"])),
     "policy.projects.acme-ml-prod.zones", True),
    ("exempt label changed", policy_edit(_set(("exempt_label", "value"), "yes")),
     "policy.exempt_label", True),
    ("budget removed", _drop("budget-budget"), "budget-budget", True),
    ("budget amount up", lambda d: inputs(d, "budget-budget")["amount"]["specifiedAmount"].update(
        units="80000"), "budget-budget.amount", True),
    ("threshold dropped", lambda d: inputs(d, "budget-budget")["thresholdRules"].pop(0),
     "budget-budget.thresholdRules.CURRENT_SPEND", True),
    ("credits hide spend", lambda d: inputs(d, "budget-budget")["budgetFilter"].update(
        creditTypesTreatment="INCLUDE_ALL_CREDITS"), "", False),  # already the default: no change
    ("budget topic moved", lambda d: inputs(d, "budget-budget")["allUpdatesRule"].update(
        pubsubTopic="projects/x/topics/elsewhere"), "budget-budget.allUpdatesRule.pubsubTopic",
     True),
    ("services filter added", lambda d: inputs(d, "budget-budget")["budgetFilter"].update(
        services=["services/6F81-5844-456A"]), "budget-budget.budgetFilter.services", True),
    ("NAP CPU limit up", _nap_limit("cpu", 4096.0),
     "gke-cluster.clusterAutoscaling.resourceLimits.cpu", True),
    ("NAP accelerator added", _nap_limit("nvidia-h100-80gb", 8.0),
     "gke-cluster.clusterAutoscaling.resourceLimits.nvidia-h100-80gb", True),
    ("NAP profile balanced", lambda d: inputs(d, "gke-cluster")["clusterAutoscaling"].update(
        autoscalingProfile="BALANCED"), "gke-cluster.clusterAutoscaling.autoscalingProfile", True),
    ("pool max up", lambda d: inputs(d, "training-l4-spot")["autoscaling"].update(
        totalMaxNodeCount=64.0), "training-l4-spot.autoscaling.totalMaxNodeCount", True),
    ("pool min up", lambda d: inputs(d, "training-l4-spot")["autoscaling"].update(
        totalMinNodeCount=2.0), "training-l4-spot.autoscaling.totalMinNodeCount", True),
    ("pool on demand", lambda d: inputs(d, "training-l4-spot")["nodeConfig"].update(spot=False),
     "training-l4-spot.nodeConfig.spot", True),
    ("idle timeout removed",
     lambda d: inputs(d, "notebooks-oncall")["gceSetup"]["metadata"].pop("idle-timeout-seconds"),
     "notebooks-oncall.idle-timeout-seconds", True),
    ("job paused", lambda d: inputs(d, "governance-reap-idle-vms-job").update(paused=True),
     "governance-reap-idle-vms-job.paused", True),
    ("job removed", _drop("notebooks-oncall-stop"), "notebooks-oncall-stop", True),
    ("job target", lambda d: inputs(d, "governance-reap-expired-job")["httpTarget"].update(
        uri="https://example.invalid/"), "governance-reap-expired-job.target", True),
    ("job more often", lambda d: inputs(d, "governance-reap-expired-job").update(
        schedule="*/5 * * * *"), "governance-reap-expired-job.schedule", False),
    ("function grant removed", _drop("governance-reap-idle-vms-role-binding"),
     "governance-reap-idle-vms-role-binding", True),
    ("role loses a permission",
     lambda d: inputs(d, "governance-reap-idle-vms-role")["permissions"].pop(),
     "governance-reap-idle-vms-role.permissions", True),
    ("pool runs as default SA", lambda d: inputs(d, "training-l4-spot")["nodeConfig"].pop(
        "serviceAccount"), "training-l4-spot.nodeConfig.serviceAccount", True),
    ("expiry later", lambda d: inputs(d, "notebooks-oncall")["labels"].update(
        {"mlgov-expires-on": "2030-01-01"}), "notebooks-oncall.labels.mlgov-expires-on", False),
    ("environment lowered", lambda d: d["policy_config"].update(environment="dev"),
     "stack.environment", True),
    ("region moved", lambda d: d.update(region="us-central1"), "stack.region", False),
    # organization scale: scopes, fan-out and the reapers' blast radius
    ("scope dropped", policy_edit(_drop_key(("scopes", FOLDER))), "policy.scopes", True),
    ("label selector dropped", policy_edit(_drop_key(("scopes", FOLDER, "labels"))),
     f"policy.scopes.{FOLDER}.labels", True),
    ("label selector narrowed", policy_edit(_set(("scopes", FOLDER, "labels", "team"), "vision")),
     f"policy.scopes.{FOLDER}.labels", False),
    ("an organization instead of a folder", policy_edit(_scope_to_org),
     "policy.scope_organizations", True),
    ("unlink allowed in a scope", policy_edit(_set(("scopes", FOLDER, "allow_billing_disable"),
     True)), f"policy.scopes.{FOLDER}.allow_billing_disable", True),
    ("scope environment lowered", policy_edit(_set(("scopes", FOLDER, "environment"), "dev")),
     f"policy.scopes.{FOLDER}.environment", True),
    ("fan-out off for a scoped stack", _fan_out_off, "policy.fan_out", True),
    ("ceiling raised", policy_edit(_set(("blast_radius", "max_stops_per_run"), 1000)),
     "policy.blast_radius.max_stops_per_run", True),
    ("percent limit added", policy_edit(_set(("blast_radius", "max_stop_percent"), 10)),
     "policy.blast_radius.max_stop_percent", False),
    ("breaker later", policy_edit(_set(("blast_radius", "max_error_rate"), 0.2)),
     "policy.blast_radius.max_error_rate", True),
    ("canary removed", policy_edit(_set(("blast_radius", "canary"), [])),
     "policy.blast_radius.canary", True),
    ("fewer reapers act", policy_edit(_set(("blast_radius", "acting_reapers"), ["reap_expired"])),
     "policy.blast_radius.acting_reapers", False),
    ("every reaper acts, later kinds too", policy_edit(_drop_key(("blast_radius",
     "acting_reapers"))), "policy.blast_radius.acting_reapers", True),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "change_id", "weakens"), CASES, ids=[c[0] for c in CASES])
def test_one_change_each_way(case: str, edit, change_id: str, weakens: bool) -> None:
    base = golden()
    head = copy.deepcopy(base)
    edit(head)
    forward = {c.id: c for c in governance_changes(base, head)}
    if not change_id:
        assert forward == {}
        return
    assert change_id in forward, sorted(forward)
    assert forward[change_id].weakens is weakens, forward[change_id]
    assert forward[change_id].why
    if weakens:
        backward = {c.id: c for c in governance_changes(head, base)}
        # "any change weakens" rows (another target, topic, exempt label) weaken both ways
        assert backward[change_id].weakens is (change_id in EVERY_CHANGE), backward[change_id]


def test_the_same_policy_change_in_every_function_is_listed_once() -> None:
    base = golden()
    head = copy.deepcopy(base)
    policy_edit(_set(("dry_run",), True))(head)
    changes = governance_changes(base, head)
    assert [(c.id, c.before, c.after, c.weakens, c.resource) for c in changes] == [
        ("policy.dry_run", False, True, True, "functions")
    ]


def test_a_change_in_one_function_only_is_named_per_function() -> None:
    base = golden()
    head = copy.deepcopy(base)
    env = inputs(head, "governance-reap-expired")["serviceConfig"]["environmentVariables"]
    env["MLGOV_POLICY"] = json.dumps({**json.loads(env["MLGOV_POLICY"]), "dry_run": True})
    assert [c.id for c in governance_changes(base, head)] == [
        "governance-reap-expired.policy.dry_run"
    ]


def test_a_new_exempt_resource_is_more_exemptions_and_a_new_plain_one_is_not() -> None:
    base = golden()
    head = copy.deepcopy(base)
    pool = copy.deepcopy(resource(head, "training-l4-spot"))
    pool["name"] = "training-h100-spot"
    head["resources"].append(pool)
    assert [c.id for c in governance_changes(base, head)] == ["training-h100-spot"]  # shown only
    assert not governance_changes(base, head)[0].weakens
    pool["inputs"]["nodeConfig"]["resourceLabels"]["mlgov-exempt"] = "true"
    weakened = [c.id for c in governance_changes(base, head) if c.weakens]
    assert weakened == ["training-h100-spot.labels.mlgov-exempt"]


def test_a_removed_function_weakens_and_its_policy_is_not_listed_field_by_field() -> None:
    base = golden()
    head = copy.deepcopy(base)
    _drop("governance-reap-idle-gpus")(head)
    changes = governance_changes(base, head)
    assert [(c.id, c.weakens) for c in changes] == [("governance-reap-idle-gpus", True)]


def test_every_row_of_the_table_says_what_it_governs_and_what_a_weakening_loses() -> None:
    for key, aspect in ASPECTS.items():
        assert aspect.what, key
        if aspect.direction != "shown":
            assert aspect.loses, key
        if aspect.direction == "ranked":
            assert aspect.ranks, key


@pytest.mark.parametrize(
    ("key", "before", "after", "weakens"),
    [
        ("limit.pool_max", 4.0, "lots", True),  # cannot be judged: weakens
        ("schedule.cron", "0 * * * *", "not cron", True),
        ("label.expires_on", "2026-12-01", None, True),
        ("label.expires_on", None, "2026-12-01", False),
        ("label.expires_on", "2026-12-01", "someday", True),
        ("budget.filter", (), ("projects/1",), True),
        ("budget.filter", ("projects/1",), (), False),  # empty filter: all spend
        ("budget.credits", "EXCLUDE_ALL_CREDITS", None, True),
        ("stack.environment", "prod", "qa", True),  # unknown rank: weakens
        ("identity.account", "sa@p.iam.gserviceaccount.com", None, False),  # VM with no account
        ("identity.account_defaulted", "sa@p.iam.gserviceaccount.com", None, True),
        ("identity.account", "a@p.iam.gserviceaccount.com",
         "123456789012-compute@developer.gserviceaccount.com", True),
    ],
)  # fmt: skip
def test_judge_edge_cases(key: str, before: Any, after: Any, weakens: bool) -> None:
    assert judge(ASPECTS[key], before, after) is weakens


def test_default_account_forms() -> None:
    assert is_default_account("default", False)
    assert is_default_account("serviceAccount:1-compute@developer.gserviceaccount.com", False)
    assert not is_default_account("x-compute@developer.gserviceaccount.com", False)
    assert not is_default_account("1-compute@developer.gserviceaccount.com.evil.example", False)


def test_prod_is_read_from_the_policy_config_or_else_the_stack_name() -> None:
    from governance.review.govdiff.review import is_prod

    assert is_prod({"stack": "x", "policy_config": {"environment": "prod"}})
    assert not is_prod({"stack": "prod", "policy_config": {"environment": "dev"}})
    assert is_prod({"stack": "acme-prod", "resources": []})  # e.g. converted from a preview
    assert not is_prod({"stack": "production-like-dev", "resources": []})
    assert is_prod({"stack": "dev"}, {"stack": "x", "policy_config": {"environment": "prod"}})
