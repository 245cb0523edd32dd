"""The offline evaluator (evaluate.py): a clean known-good stack, stack-wide findings, order.

Per-rule cases live in test_rules_<service>.py; this module checks what holds across rules.
"""

from __future__ import annotations

import pytest
from policy_cases import apply
from policy_fixtures import PROD_CONFIG, good_stack

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources
from mlgov_policies.registry import ALL_RULES, RULES


@pytest.mark.parametrize("environment", ["dev", "staging", "prod"])
def test_good_stack_has_no_violations(environment: str) -> None:
    config = PolicyConfig.from_mapping({**PROD_CONFIG, "environment": environment})
    assert evaluate_resources(good_stack(), config, stack="prod") == []


def test_good_stack_passes_with_default_config() -> None:
    # Defaults: no region (inferred), any machine type and tier, T4/L4 notebook GPUs.
    assert evaluate_resources(good_stack(), PolicyConfig()) == []


def test_stack_wide_finding_names_the_stack() -> None:
    (violation,) = evaluate_resources(
        apply((("drop", "budget"), ("drop", "spend-cap"), ("drop", "spend-cap-alerts"))),
        PolicyConfig.from_mapping(PROD_CONFIG),
        stack="prod",
    )
    assert violation.as_dict() == {
        "policy": "mlgov-budget-required",
        "resource": "prod",
        "type": "pulumi:pulumi:Stack",
        "enforcement": "mandatory",
        "message": "the stack has no gcp:billing/budget:Budget: nobody hears about overspend",
        "why": ALL_RULES["mlgov-budget-required"].why,
        "remediation": ALL_RULES["mlgov-budget-required"].remediation,
    }


def test_order_is_by_resource_then_rule_index() -> None:
    stack = good_stack()
    for resource in stack:
        resource["inputs"].pop("labels", None)
    # One resource with findings from several rules, resource and stack rules mixed.
    nb = next(r for r in stack if r["name"] == "nb-alice")
    nb["inputs"]["location"] = "europe-west4-a"
    nb["inputs"]["gceSetup"]["disablePublicIp"] = False
    config = PolicyConfig(region="us-central1")
    first = evaluate_resources(stack, config)
    assert first == evaluate_resources(stack, config)
    positions = [next(i for i, r in enumerate(stack) if r["name"] == v.resource) for v in first]
    assert positions == sorted(positions)
    index = [rule.name for rule in RULES]
    on_notebook = [v.policy for v in first if v.resource == "nb-alice"]
    assert on_notebook == [
        "mlgov-labels-required",
        "mlgov-workbench-no-public-ip",
        "mlgov-location-in-region",
    ]
    assert on_notebook == sorted(on_notebook, key=index.index)
