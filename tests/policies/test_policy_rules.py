"""Every rule on the known-good stack and on one-change mutations of it (offline evaluator)."""

from __future__ import annotations

import pytest
from policy_cases import CASES, Case, apply
from policy_fixtures import PROD_CONFIG, good_stack

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources
from mlgov_policies.vocabulary import STACK as STACK_TYPE
from mlgov_policies.registry import ALL_RULES


@pytest.mark.parametrize("environment", ["dev", "staging", "prod"])
def test_good_stack_has_no_violations(environment: str) -> None:
    config = PolicyConfig.from_mapping({**PROD_CONFIG, "environment": environment})
    assert evaluate_resources(good_stack(), config, stack="prod") == []


def test_good_stack_passes_with_default_config() -> None:
    # Defaults: no region (inferred), any machine type and tier, T4/L4 notebook GPUs.
    assert evaluate_resources(good_stack(), PolicyConfig()) == []


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    violations = evaluate_resources(
        apply(case.ops), PolicyConfig.from_mapping(case.config), stack="prod"
    )
    if case.expected is None:
        assert violations == []
        return
    assert {v.policy for v in violations} == {case.expected}, [v.as_dict() for v in violations]
    target = case.resource if case.resource is not None else case.ops[0][1]
    assert target in {v.resource if v.resource != "prod" else "" for v in violations}
    rule = ALL_RULES[case.expected]
    for violation in violations:
        assert violation.enforcement == rule.enforcement
        assert violation.why == rule.why
        assert violation.remediation == rule.remediation
        assert violation.message


def test_every_rule_has_a_failing_and_a_passing_case() -> None:
    failing = {c.expected for c in CASES if c.expected}
    assert failing == set(ALL_RULES)


def test_stack_wide_finding_names_the_stack() -> None:
    (violation,) = evaluate_resources(
        apply((("drop", "budget"),)), PolicyConfig.from_mapping(PROD_CONFIG), stack="prod"
    )
    assert violation.as_dict() == {
        "policy": "mlgov-budget-required",
        "resource": "prod",
        "type": STACK_TYPE,
        "enforcement": "mandatory",
        "message": "the stack has no gcp:billing/budget:Budget: nobody hears about overspend",
        "why": ALL_RULES["mlgov-budget-required"].why,
        "remediation": ALL_RULES["mlgov-budget-required"].remediation,
    }


def test_messages_name_the_offending_value() -> None:
    stack = apply((("set", "nb-alice", "gceSetup.metadata.idle-timeout-seconds", "86400"),))
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert violation.resource == "nb-alice"
    assert violation.type == "gcp:workbench/instance:Instance"
    assert "86400s" in violation.message
    assert "120 min" in violation.message


def test_sql_open_network_message() -> None:
    stack = apply(
        (
            ("set", "metadata-db", "settings.ipConfiguration.ipv4Enabled", True),
            (
                "set",
                "metadata-db",
                "settings.ipConfiguration.authorizedNetworks",
                [{"value": "0.0.0.0/0"}],
            ),
        )
    )
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert "0.0.0.0/0" in violation.message
