"""The organization-scale keys of MLGOV_POLICY, as docs/reference/functions.md writes them.

A JSON-level contract test: the example below is the documented one, and the functions' parser
must read it with the meaning the documentation gives it (test_policy_json.py holds what the
governance side renders to the same parser; `blast_radius` is covered there).
"""

from __future__ import annotations

import json

from govern.models import ActionPolicy, FanOutPolicy, ScopePolicy

CONTRACT_EXAMPLE = {
    "dry_run": True,
    "exempt_label": {"key": "mlgov-exempt", "value": "true"},
    "projects": {},
    "scopes": {
        "folders/123": {
            "environment": "prod",
            "labels": {"mlgov-governed": "true"},
            "allow_billing_disable": False,
        }
    },
    "budgets": {
        "b1": {
            "projects": [],
            "scopes": ["folders/123"],
            "stop_at": 1.0,
            "disable_billing_at": None,
        }
    },
    "fan_out": {"max_delivery_attempts": 5, "worker_instances": 100},
}


def test_the_contract_example_parses_with_its_meaning():
    policy = ActionPolicy.from_json(json.dumps(CONTRACT_EXAMPLE))
    assert policy.scopes == {
        "folders/123": ScopePolicy("prod", False, {"mlgov-governed": "true"}, ())
    }
    assert policy.budgets["b1"].projects == ()
    assert policy.budgets["b1"].scopes == ("folders/123",)
    assert policy.fan_out == FanOutPolicy(max_delivery_attempts=5, worker_instances=100)


def test_fan_out_and_its_keys_are_optional():
    example = {**CONTRACT_EXAMPLE, "fan_out": {}}
    assert ActionPolicy.from_json(json.dumps(example)).fan_out == FanOutPolicy(5, 100)
    del example["fan_out"]
    assert ActionPolicy.from_json(json.dumps(example)).fan_out == FanOutPolicy(5, 100)


def test_the_worker_never_has_more_instances_than_the_pacing_can_share():
    # governance sizes the worker; each worker process paces itself by that count
    # (functions/govern/pacing.py): every org-level quota must leave it a whole call a minute.
    from govern import pacing
    from governance.components.worker_sizing import MAX_INSTANCES, worker_size

    assert (
        min(int(q * pacing.SHARE) for q in pacing.ORG_QUOTAS_PER_MINUTE.values()) == MAX_INSTANCES
    )
    for projects in (1, 10_000, 50_000, 60_000):
        instances = worker_size(projects=projects).instances
        for quota in pacing.ORG_QUOTAS_PER_MINUTE:
            assert (pacing.calls_per_window(quota, instances) or 0) >= 1
