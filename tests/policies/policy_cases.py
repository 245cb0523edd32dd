"""One-change cases over the known-good stack, and how each is checked on both paths.

A `Case` names the rule it expects (None: the change is allowed) and the operations that turn
the known-good stack (policy_fixtures.py) into the stack under test. `check_case` holds the
offline evaluator to the expectation and the CrossGuard policy objects (pack.POLICIES, called
the way the analyzer calls them) to exactly the offline findings. Each
`test_rules_<service>.py` lists the cases of the rules in `mlgov_policies/rules/<service>.py`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from policy_fixtures import PROD_CONFIG, good_stack
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import unknown_checking_proxy

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources
from mlgov_policies.pack import POLICIES
from mlgov_policies.registry import ALL_RULES, crossguard_config

STACK = "prod"

Op = tuple[Any, ...]  # ("set", name, path, value) | ("del", name, path) | ("drop", name)


@dataclass(frozen=True)
class Case:
    id: str
    expected: str | None  # rule name, None: the change is allowed
    ops: tuple[Op, ...]
    config: dict[str, Any] = field(default_factory=lambda: dict(PROD_CONFIG))
    resource: str | None = None  # resource the finding lands on; default: first op's resource


def case_id(case: Case) -> str:
    return case.id


def apply(ops: tuple[Op, ...]) -> list[dict[str, Any]]:
    stack = good_stack()
    by_name = {r["name"]: r for r in stack}
    for op in ops:
        if op[0] == "drop":
            stack = [r for r in stack if r["name"] != op[1]]
            continue
        target = by_name[op[1]]["inputs"]
        *parents, last = op[2].split(".")
        for key in parents:
            target = target.setdefault(key, {})
        if op[0] == "set":
            target[last] = op[3]
        else:
            del target[last]
    return stack


def s(name: str, path: str, value: Any) -> Op:
    return ("set", name, path, value)


def d(name: str, path: str) -> Op:
    return ("del", name, path)


def cfg(**changes: Any) -> dict[str, Any]:
    return {**PROD_CONFIG, **changes}


def _urn(resource: dict[str, Any]) -> str:
    return f"urn:pulumi:{STACK}::mlgov::{resource['type']}::{resource['name']}"


def _opts() -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])


def run_pack(stack: list[dict[str, Any]], config: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(policy, resource, message) from every CrossGuard policy, as the analyzer would call it.

    Props arrive wrapped in pulumi_policy's unknown-checking proxy, each policy gets its own
    config from `crossguard_config`, stack policies get PolicyResource lists (pulumi_policy 1.21
    constructor signatures).
    """
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
    """(policy, resource, message) from the offline evaluator, sorted like `run_pack`."""
    violations = evaluate_resources(stack, PolicyConfig.from_mapping(config), stack=STACK)
    return sorted((v.policy, v.resource, v.message) for v in violations)


def check_case(case: Case) -> None:
    """The offline evaluator finds exactly the expected rule, and CrossGuard finds the same."""
    stack = apply(case.ops)
    violations = evaluate_resources(stack, PolicyConfig.from_mapping(case.config), stack=STACK)
    if case.expected is None:
        assert violations == []
    else:
        assert {v.policy for v in violations} == {case.expected}, [v.as_dict() for v in violations]
        target = case.resource if case.resource is not None else case.ops[0][1]
        assert target in {v.resource if v.resource != STACK else "" for v in violations}
        rule = ALL_RULES[case.expected]
        for violation in violations:
            assert violation.enforcement == rule.enforcement
            assert violation.why == rule.why
            assert violation.remediation == rule.remediation
            assert violation.message
    assert run_pack(stack, case.config) == run_offline(stack, case.config)
