"""Run every mlgov rule over plan-document resources, offline and without Pulumi.

This is what `python -m governance plan/check` calls. The same rules run inside CrossGuard
through pack.py; tests/policies pins both paths to the same findings. Pure: no pulumi, no
pulumi_policy, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.registry import ALL_RULES, RULES, STACK_RULES, rules_for_type
from mlgov_policies.rule import Enforcement, StackResource

# Position of each rule in the index: findings on one resource come out in this order.
_ORDER = {rule.name: position for position, rule in enumerate(RULES)}


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


def evaluate_resources(
    resources: Sequence[Mapping[str, Any]], config: PolicyConfig, *, stack: str = ""
) -> list[Violation]:
    """All violations for plan-document resources ({"type", "name", "inputs", ...}).

    Unknown resource types are ignored; odd shapes never raise. `stack` names stack-wide
    findings (their type is the Pulumi stack's, `vocabulary.STACK`). Order: by resource
    position (stack-wide findings last), then index order of the rules, then the order a rule
    reported them.
    """
    converted = [_stack_resource(resource) for resource in resources]
    keyed: list[tuple[int, int, int, Violation]] = []
    for position, resource in enumerate(converted):
        for rule in rules_for_type(resource.type):
            for seq, message in enumerate(rule.check(resource.type, resource.props, config)):
                violation = _violation(rule.name, resource.name, resource.type, message)
                keyed.append((position, _ORDER[rule.name], seq, violation))
    for rule in STACK_RULES.values():
        for seq, (index, message) in enumerate(rule.check(converted, config)):
            if index is None:
                violation = _violation(rule.name, stack, v.STACK, message)
                position = len(converted)
            else:
                target = converted[index]
                violation = _violation(rule.name, target.name, target.type, message)
                position = index
            keyed.append((position, _ORDER[rule.name], seq, violation))
    keyed.sort(key=lambda item: item[:3])
    return [item[3] for item in keyed]


def _stack_resource(resource: Mapping[str, Any]) -> StackResource:
    """A plan-document resource as rule input; an odd entry becomes an empty, unknown resource."""
    entry: Mapping[str, Any] = resource if isinstance(resource, Mapping) else {}  # pyright: ignore[reportUnnecessaryIsInstance]
    type_: object = entry.get("type")
    name: object = entry.get("name")
    inputs: object = entry.get("inputs")
    return StackResource(
        type=type_ if isinstance(type_, str) else "",
        name=name if isinstance(name, str) else "",
        props=cast(Mapping[str, Any], inputs) if isinstance(inputs, Mapping) else {},
    )


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
