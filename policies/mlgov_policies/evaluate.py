"""Run every mlgov rule over plan-document resources, offline and without Pulumi.

This is what `python -m governance plan/check` calls. The same rules run inside CrossGuard
through pack.py; tests/policies pins both paths to the same findings. Pure: no pulumi, no
pulumi_policy, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.registry import ALL_RULES, RULES, STACK_RULES, rules_for_type
from mlgov_policies.rule import Enforcement, StackResource

if TYPE_CHECKING:
    from mlgov_policies.pack_config import Level

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
    resources: Sequence[Mapping[str, Any]],
    config: PolicyConfig,
    *,
    stack: str = "",
    levels: Mapping[str, Level] | None = None,
) -> list[Violation]:
    """All violations for plan-document resources ({"type", "name", "inputs", ...}).

    Unknown resource types are ignored; odd shapes never raise. `stack` names stack-wide
    findings (their type is the Pulumi stack's, `vocabulary.STACK`). `levels` (selection.py)
    sets a rule's enforcement, `disabled` not running it; a rule it leaves out runs at its own.
    Order: by resource position (stack-wide findings last), then index order of the rules, then
    the order a rule reported them.
    """
    level: dict[str, Level] = {r.name: r.enforcement for r in RULES}
    level.update(levels or {})
    converted = [_stack_resource(resource) for resource in resources]
    keyed: list[tuple[int, int, int, Violation]] = []
    for position, resource in enumerate(converted):
        for rule in rules_for_type(resource.type):
            enforcement = level[rule.name]
            if enforcement == "disabled":
                continue
            for seq, message in enumerate(rule.check(resource.type, resource.props, config)):
                violation = _violation(rule.name, enforcement, resource, message)
                keyed.append((position, _ORDER[rule.name], seq, violation))
    for rule in STACK_RULES.values():
        enforcement = level[rule.name]
        if enforcement == "disabled":
            continue
        for seq, (index, message) in enumerate(rule.check(converted, config)):
            if index is None:
                whole = StackResource(type=v.STACK, name=stack, props={})
                violation = _violation(rule.name, enforcement, whole, message)
                position = len(converted)
            else:
                violation = _violation(rule.name, enforcement, converted[index], message)
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
        own_region=_own_region(entry.get("provider_region")),
    )


def _own_region(value: object) -> tuple[str, str] | None:
    """A document's `provider_region` ({"region", "from"}) as (region, from), if well formed."""
    if not isinstance(value, Mapping):
        return None
    entry = cast(Mapping[str, Any], value)
    region, where = entry.get("region"), entry.get("from")
    if isinstance(region, str) and region and isinstance(where, str):
        return region, where
    return None


def _violation(
    policy: str, enforcement: Enforcement, resource: StackResource, message: str
) -> Violation:
    rule = ALL_RULES[policy]
    return Violation(
        policy=policy,
        resource=resource.name,
        type=resource.type,
        enforcement=enforcement,
        message=message,
        why=rule.why,
        remediation=rule.remediation,
    )
