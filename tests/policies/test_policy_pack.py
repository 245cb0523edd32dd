"""The CrossGuard objects (pack.POLICIES) find exactly what the offline evaluator finds.

Policies are called the way the analyzer calls them: props wrapped in pulumi_policy's
unknown-checking proxy, per-policy config from `crossguard_config`, stack policies with
PolicyResource lists (pulumi_policy 1.21 constructor signatures).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from policy_cases import CASES, Case, apply
from policy_fixtures import PROD_CONFIG, good_stack
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
    proxy,
)
from pulumi_policy.proxy import UNKNOWN_BOOLEAN_VALUE, UNKNOWN_STRING_VALUE, unknown_checking_proxy

from mlgov_policies import props
from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources
from mlgov_policies.pack import POLICIES
from mlgov_policies.registry import ALL_RULES, crossguard_config

STACK = "prod"


def _urn(resource: dict[str, Any]) -> str:
    return f"urn:pulumi:{STACK}::mlgov::{resource['type']}::{resource['name']}"


def _opts() -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])


def run_pack(stack: list[dict[str, Any]], config: dict[str, Any]) -> list[tuple[str, str, str]]:
    pack_config = crossguard_config(PolicyConfig.from_mapping(config))
    by_urn = {_urn(r): r["name"] for r in stack}
    found: list[tuple[str, str, str]] = []
    for policy in POLICIES:
        policy_config = pack_config.get(policy.name)
        if isinstance(policy, ResourceValidationPolicy):
            for resource in stack:
                args = ResourceValidationArgs(
                    resource["type"],
                    unknown_checking_proxy(copy.deepcopy(resource["inputs"])),
                    _urn(resource),
                    resource["name"],
                    _opts(),
                    None,
                    policy_config,
                )
                policy.validate(
                    args,
                    lambda message, urn=None, n=resource["name"], p=policy.name: found.append(
                        (p, n, message)
                    ),
                )
        else:
            assert isinstance(policy, StackValidationPolicy)
            resources = [
                PolicyResource(
                    r["type"],
                    unknown_checking_proxy(copy.deepcopy(r["inputs"])),
                    _urn(r),
                    r["name"],
                    _opts(),
                    None,
                    None,
                    [],
                    {},
                )
                for r in stack
            ]
            policy.validate(
                StackValidationArgs(resources, policy_config),
                lambda message, urn=None, p=policy.name: found.append(
                    (p, by_urn[urn] if urn else STACK, message)
                ),
            )
    return sorted(found)


def run_offline(stack: list[dict[str, Any]], config: dict[str, Any]) -> list[tuple[str, str, str]]:
    violations = evaluate_resources(stack, PolicyConfig.from_mapping(config), stack=STACK)
    return sorted((v.policy, v.resource, v.message) for v in violations)


def test_pack_has_one_policy_per_rule_with_metadata() -> None:
    assert [p.name for p in POLICIES] == list(ALL_RULES)
    for policy in POLICIES:
        rule = ALL_RULES[policy.name]
        assert policy.description == rule.description
        assert policy.remediation_steps == rule.remediation
        assert policy.enforcement_level is not None
        assert policy.enforcement_level.value == rule.enforcement
        if rule.config_keys:
            assert policy.config_schema is not None
            assert set(policy.config_schema.properties) == set(rule.config_keys)


def test_good_stack_is_clean_in_crossguard() -> None:
    assert run_pack(good_stack(), PROD_CONFIG) == []


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_pack_matches_offline(case: Case) -> None:
    stack = apply(case.ops)
    offline = run_offline(stack, case.config)
    assert run_pack(stack, case.config) == offline
    assert {p for p, _, _ in offline} == ({case.expected} if case.expected else set())


def test_default_pack_config_is_the_default_policy_config() -> None:
    stack = apply((("set", "nb-alice", "gceSetup.metadata.idle-timeout-seconds", "14400"),))
    # No --policy-pack-config: every policy gets None and falls back to PolicyConfig().
    found = run_pack(stack, {})
    assert ("mlgov-workbench-idle-shutdown", "nb-alice") in {(p, n) for p, n, _ in found}


def test_unknown_sentinels_match_pulumi_policy() -> None:
    expected = {
        getattr(proxy, name)
        for name in dir(proxy)
        if name.startswith("UNKNOWN_") and name.endswith("_VALUE")
    }
    assert expected == props.UNKNOWN_SENTINELS


@pytest.mark.parametrize(
    ("name", "path", "sentinel"),
    [
        ("nb-alice", "gceSetup.metadata.idle-timeout-seconds", UNKNOWN_STRING_VALUE),
        ("nb-alice", "gceSetup.metadata", UNKNOWN_STRING_VALUE),
        ("nb-alice", "gceSetup.disablePublicIp", UNKNOWN_BOOLEAN_VALUE),
        ("nb-alice", "labels", UNKNOWN_STRING_VALUE),
        ("nb-alice", "labels.team", UNKNOWN_STRING_VALUE),
        ("budget", "allUpdatesRule.pubsubTopic", UNKNOWN_STRING_VALUE),
        ("budget-fn", "eventTrigger.pubsubTopic", UNKNOWN_STRING_VALUE),
        ("budget-fn", "serviceConfig.environmentVariables.MLGOV_POLICY", UNKNOWN_STRING_VALUE),
        ("budget-fn", "serviceConfig.serviceAccountEmail", UNKNOWN_STRING_VALUE),
        ("metadata-db", "settings.ipConfiguration", UNKNOWN_STRING_VALUE),
        ("gpu-pool", "nodeConfig.spot", UNKNOWN_BOOLEAN_VALUE),
        ("reap-invoker", "member", UNKNOWN_STRING_VALUE),
        ("reap-idle", "httpTarget.uri", UNKNOWN_STRING_VALUE),
        ("tpu", "zone", UNKNOWN_STRING_VALUE),
    ],
)
def test_unknown_values_are_skipped_not_raised(name: str, path: str, sentinel: str) -> None:
    stack = apply((("set", name, path, sentinel),))
    assert run_pack(stack, PROD_CONFIG) == []
    assert run_offline(stack, PROD_CONFIG) == []
