"""parse/policy.py: the MLGOV_POLICY wire format, strict with named key paths.

Reached as parse.action_policy (what functions/main.py and governance's contract test call).
"""

from __future__ import annotations

import json
from datetime import date

import pytest

from govern import parse
from govern.models import IdleGpuPolicy, PolicyError
from tests.functions.conftest import BUDGET, DEV, policy_dict

DESIGN_EXAMPLE = {
    "dry_run": False,
    "exempt_label": {"key": "mlgov-exempt", "value": "true"},
    "projects": {
        "acme-ml-dev": {
            "environment": "dev",
            "zones": ["us-central1-a", "us-central1-b"],
            "allow_billing_disable": True,
        }
    },
    "budgets": {"b-1": {"projects": ["acme-ml-dev"], "stop_at": 1.0, "disable_billing_at": 1.2}},
}


def test_design_example_with_only_required_keys_gets_safe_defaults():
    policy = parse.action_policy(json.dumps(DESIGN_EXAMPLE))
    assert policy.dry_run is False
    assert policy.exempt_label == ("mlgov-exempt", "true")
    assert policy.projects["acme-ml-dev"].zones == ("us-central1-a", "us-central1-b")
    assert policy.budgets["b-1"].disable_billing_at == 1.2
    assert policy.idle_gpu == IdleGpuPolicy(5.0, 60, ("training", "notebook"))
    assert (
        policy.time_budget_seconds,
        policy.max_concurrency,
        policy.max_requests_per_second_per_project,
    ) == (45.0, 16, 10.0)


def test_dry_run_defaults_to_true():
    raw = dict(DESIGN_EXAMPLE)
    del raw["dry_run"]
    assert parse.action_policy(json.dumps(raw)).dry_run is True


def test_optional_keys_are_read():
    policy = parse.action_policy(
        json.dumps(
            policy_dict(
                idle_gpu={
                    "max_utilization_percent": 10,
                    "window_minutes": 30,
                    "workloads": ["training"],
                },
                time_budget_seconds=500,
                max_concurrency=32,
                max_requests_per_second_per_project=5,
            )
        )
    )
    assert policy.idle_gpu == IdleGpuPolicy(10.0, 30, ("training",))
    assert (
        policy.time_budget_seconds,
        policy.max_concurrency,
        policy.max_requests_per_second_per_project,
    ) == (500.0, 32, 5.0)


def _with(path: list[str], value):
    raw = json.loads(json.dumps(policy_dict()))
    node = raw
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return json.dumps(raw)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "MLGOV_POLICY: not set or empty"),
        ("", "MLGOV_POLICY: not set or empty"),
        ("{nope", "MLGOV_POLICY: not valid JSON"),
        ("[]", "MLGOV_POLICY: must be an object, got list"),
        (_with(["projects"], KeyError), "MLGOV_POLICY: missing required key(s) projects"),
        (_with(["dryrun"], True), "MLGOV_POLICY: unknown key(s) dryrun"),
        (_with(["dry_run"], "yes"), "MLGOV_POLICY.dry_run: must be true or false"),
        (
            _with(["exempt_label", "value"], ""),
            "MLGOV_POLICY.exempt_label.value: must be a non-empty string",
        ),
        (
            _with(["projects", DEV, "zones"], []),
            f"MLGOV_POLICY.projects.{DEV}.zones: must be a non-empty list",
        ),
        (
            _with(["projects", DEV, "allow_billing_disable"], "true"),
            f"MLGOV_POLICY.projects.{DEV}.allow_billing_disable: must be true or false",
        ),
        (
            _with(["budgets", BUDGET, "stop_at"], 0),
            f"MLGOV_POLICY.budgets.{BUDGET}.stop_at: must be a number > 0",
        ),
        (
            _with(["budgets", BUDGET, "stop_at"], True),
            f"MLGOV_POLICY.budgets.{BUDGET}.stop_at: must be a number > 0",
        ),
        (
            _with(["budgets", BUDGET, "disable_billing_at"], 0.5),
            f"MLGOV_POLICY.budgets.{BUDGET}.disable_billing_at: 0.5 is below stop_at 1",
        ),
        (
            _with(["budgets", BUDGET, "projects"], ["ghost"]),
            f"MLGOV_POLICY.budgets.{BUDGET}.projects[0]: 'ghost' is not in MLGOV_POLICY.projects",
        ),
        (
            _with(["idle_gpu"], {"window_minutes": 1.5}),
            "MLGOV_POLICY.idle_gpu.window_minutes: must be a whole number",
        ),
        (_with(["idle_gpu"], {"max_util": 3}), "MLGOV_POLICY.idle_gpu: unknown key(s) max_util"),
        (_with(["max_concurrency"], -1), "MLGOV_POLICY.max_concurrency: must be a number > 0"),
    ],
)
def test_invalid_policies_name_the_key(text, message):
    with pytest.raises(PolicyError) as err:
        parse.action_policy(text)
    assert str(err.value).startswith(message), str(err.value)


def test_disable_billing_may_be_null():
    assert (
        parse.action_policy(_with(["budgets", BUDGET, "disable_billing_at"], None))
        .budgets[BUDGET]
        .disable_billing_at
        is None
    )


def test_an_empty_policy_is_refused():
    with pytest.raises(PolicyError, match="MLGOV_POLICY: not set or empty"):
        parse.action_policy("  ")


def test_the_budget_keys_of_contract_2_are_read():
    budget = {
        **DESIGN_EXAMPLE["budgets"]["b-1"],
        "billing_account": "01D4EE-079462-DFD6EC",
        "amount": 1000.0,
        "currency": "USD",
        "period": "2026-10-15",
    }
    policy = parse.action_policy(json.dumps({**DESIGN_EXAMPLE, "budgets": {"b-1": budget}}))
    read = policy.budgets["b-1"]
    assert (read.billing_account, read.amount, read.currency) == (
        "01D4EE-079462-DFD6EC",
        1000.0,
        "USD",
    )
    assert read.period == date(2026, 10, 15)
    assert read.absent() == ()
    assert parse.action_policy(json.dumps(DESIGN_EXAMPLE)).budgets["b-1"].absent() == (
        "billing_account",
        "amount",
        "currency",
        "period",
    )


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("billing_account", "01d4ee-079462-dfd6ec", "must be like 01D4EE-079462-DFD6EC"),
        ("billing_account", None, "must be like 01D4EE-079462-DFD6EC"),
        ("amount", 0, "must be a number > 0"),
        ("amount", "1000", "must be a number > 0"),
        ("currency", "usd", "must be an ISO 4217 code"),
        ("period", "WEEK", "must be MONTH, QUARTER, YEAR or a custom period's start date"),
        ("period", 3, "must be a string"),
    ],
)
def test_bad_budget_keys_are_refused_with_their_path(key, value, problem):
    budget = {**DESIGN_EXAMPLE["budgets"]["b-1"], key: value}
    with pytest.raises(PolicyError, match=rf"^MLGOV_POLICY\.budgets\.b-1\.{key}: {problem}"):
        parse.action_policy(json.dumps({**DESIGN_EXAMPLE, "budgets": {"b-1": budget}}))
