"""parse/policy.py, organization scale: `scopes`, `budgets.<id>.scopes` and `fan_out`.

Strict like the rest of the policy: unknown keys and bad values are refused with their key path.
"""

from __future__ import annotations

import json

import pytest

from govern.models import ActionPolicy, FanOutPolicy, PolicyError, ScopePolicy
from govern.parse import action_policy
from tests.functions.conftest import BUDGET, budget_dict, policy_dict

FOLDER = "folders/123"
SCOPE = {"environment": "prod", "allow_billing_disable": False}


def _parse(**extra) -> ActionPolicy:
    return action_policy(json.dumps(policy_dict(**extra)))


def test_scopes_and_a_budget_over_them_parse():
    policy = _parse(
        scopes={
            FOLDER: {
                **SCOPE,
                "labels": {"mlgov-governed": "true"},
                "vertex_regions": ["us-central1", "europe-west4"],
            },
            "organizations/456": {"environment": "dev", "allow_billing_disable": True},
        },
        budgets={BUDGET: budget_dict(projects=[], scopes=[FOLDER])},
    )
    assert policy.scopes[FOLDER] == ScopePolicy(
        "prod", False, {"mlgov-governed": "true"}, ("us-central1", "europe-west4")
    )
    assert policy.scopes["organizations/456"] == ScopePolicy("dev", True)
    assert policy.budgets[BUDGET].projects == ()
    assert policy.budgets[BUDGET].scopes == (FOLDER,)


def test_without_the_new_keys_nothing_changes():
    policy = _parse()
    assert policy.scopes == {}
    assert policy.fan_out == FanOutPolicy(5, 100)
    assert policy.budgets[BUDGET].scopes == ()


def test_fan_out_is_read():
    policy = _parse(fan_out={"max_delivery_attempts": 7, "worker_instances": 40})
    assert policy.fan_out == FanOutPolicy(7, 40)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"scopes": {"folder/123": SCOPE}}, "MLGOV_POLICY.scopes.folder/123: not folders/<number>"),
        ({"scopes": {"folders/abc": SCOPE}}, "MLGOV_POLICY.scopes.folders/abc: not folders"),
        ({"scopes": {"projects/p": SCOPE}}, "MLGOV_POLICY.scopes.projects/p: not folders"),
        ({"scopes": {FOLDER: {"environment": "prod"}}}, "missing required key(s) allow_billing"),
        ({"scopes": {FOLDER: {**SCOPE, "label": {}}}}, f"scopes.{FOLDER}: unknown key(s) label"),
        (
            {"scopes": {FOLDER: {**SCOPE, "labels": {"Team": "x"}}}},
            f"scopes.{FOLDER}.labels.Team: not a GCP label key",
        ),
        (
            {"scopes": {FOLDER: {**SCOPE, "labels": {"team": True}}}},
            f"scopes.{FOLDER}.labels.team: must be a GCP label value",
        ),
        (
            {"scopes": {FOLDER: {**SCOPE, "vertex_regions": ["us-central1-a"]}}},
            f"scopes.{FOLDER}.vertex_regions[0]: 'us-central1-a' is not a region",
        ),
        ({"scopes": []}, "MLGOV_POLICY.scopes: must be an object keyed by folders"),
        (
            {"budgets": {BUDGET: budget_dict(scopes=[FOLDER])}},
            f"budgets.{BUDGET}.scopes[0]: '{FOLDER}' is not in MLGOV_POLICY.scopes",
        ),
        (
            {"budgets": {BUDGET: budget_dict(projects=[])}},
            f"budgets.{BUDGET}.projects: empty and the budget names no scopes",
        ),
        (
            {"scopes": {FOLDER: SCOPE}, "budgets": {BUDGET: budget_dict(scopes=[])}},
            f"budgets.{BUDGET}.scopes: must be a non-empty list",
        ),
        ({"fan_out": {"max_delivery_attempts": 4}}, "fan_out.max_delivery_attempts: must be 5 to"),
        ({"fan_out": {"max_delivery_attempts": 101}}, "max_delivery_attempts: must be 5 to 100"),
        ({"fan_out": {"worker_instances": 0}}, "fan_out.worker_instances: must be a number > 0"),
        ({"fan_out": {"worker_instances": 2.5}}, "fan_out.worker_instances: must be a whole"),
        ({"fan_out": {"workers": 3}}, "MLGOV_POLICY.fan_out: unknown key(s) workers"),
    ],
)
def test_bad_scopes_and_fan_out_are_refused_with_their_key_path(extra, message):
    with pytest.raises(PolicyError) as err:
        _parse(**extra)
    assert message in str(err.value)
