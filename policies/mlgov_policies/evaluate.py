"""Run every mlgov rule over plan-document resources, offline and without Pulumi.

This is what `python -m governance plan/check` calls (the CLI lives in governance/cli.py). The
same rules run inside CrossGuard through pack.py; tests/policies pins both paths to the same
findings. Pure: no pulumi, no pulumi_policy, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from mlgov_policies.config import PolicyConfig
from mlgov_policies.registry import ALL_RULES, STACK_RULES, Enforcement, rules_for_type
from mlgov_policies.rules import StackResource

STACK_TYPE = "pulumi:pulumi:Stack"


@dataclass(frozen=True, kw_only=True)
class Violation:
    """One policy finding on one resource (or on the stack as a whole)."""

    policy: str
    resource: str
    type: str
    enforcement: Enforcement
    message: str
    why: str
    remediation: str

    @property
    def mandatory(self) -> bool:
        """True when this finding must fail `plan`/`check` (exit code 1)."""
        return self.enforcement == "mandatory"

    def as_dict(self) -> dict[str, str]:
        """The plan document's violation entry (contract keys plus why and remediation)."""
        return {
            "policy": self.policy,
            "resource": self.resource,
            "type": self.type,
            "enforcement": self.enforcement,
            "message": self.message,
            "why": self.why,
            "remediation": self.remediation,
        }


def to_stack_resources(resources: Sequence[Mapping[str, Any]]) -> list[StackResource]:
    """Plan-document resource dicts as rule inputs; odd entries become empty, unknown resources."""
    converted: list[StackResource] = []
    for resource in resources:
        entry: Mapping[str, Any] = resource if isinstance(resource, Mapping) else {}  # pyright: ignore[reportUnnecessaryIsInstance]
        type_: object = entry.get("type")
        name: object = entry.get("name")
        inputs: object = entry.get("inputs")
        converted.append(
            StackResource(
                type=type_ if isinstance(type_, str) else "",
                name=name if isinstance(name, str) else "",
                props=cast(Mapping[str, Any], inputs) if isinstance(inputs, Mapping) else {},
            )
        )
    return converted


def evaluate_stack(
    resources: Sequence[StackResource], config: PolicyConfig, *, stack: str = ""
) -> list[Violation]:
    """All violations for already-converted resources, in a deterministic order.

    Order: by resource position (stack-wide findings last), then registry order, then the order
    the rule reported them.
    """
    order = {name: position for position, name in enumerate(ALL_RULES)}
    keyed: list[tuple[int, int, int, Violation]] = []
    for position, resource in enumerate(resources):
        for rule in rules_for_type(resource.type):
            for seq, message in enumerate(rule.check(resource.type, resource.props, config)):
                violation = _violation(rule.name, resource.name, resource.type, message)
                keyed.append((position, order[rule.name], seq, violation))
    stack_position = len(resources)
    for rule in STACK_RULES.values():
        for seq, (index, message) in enumerate(rule.check(resources, config)):
            if index is None:
                violation = _violation(rule.name, stack, STACK_TYPE, message)
                position = stack_position
            else:
                target = resources[index]
                violation = _violation(rule.name, target.name, target.type, message)
                position = index
            keyed.append((position, order[rule.name], seq, violation))
    keyed.sort(key=lambda item: item[:3])
    return [item[3] for item in keyed]


def evaluate_resources(
    resources: Sequence[Mapping[str, Any]], config: PolicyConfig, *, stack: str = ""
) -> list[Violation]:
    """All violations for plan-document resources ({"type", "name", "inputs", ...}).

    Unknown resource types are ignored; odd shapes never raise. `stack` names stack-wide
    findings (their type is "pulumi:pulumi:Stack").
    """
    return evaluate_stack(to_stack_resources(resources), config, stack=stack)


def _violation(policy: str, resource: str, type_: str, message: str) -> Violation:
    rule = ALL_RULES[policy]
    return Violation(
        policy=policy,
        resource=resource,
        type=type_,
        enforcement=rule.enforcement,
        message=message,
        why=rule.why,
        remediation=rule.remediation,
    )
