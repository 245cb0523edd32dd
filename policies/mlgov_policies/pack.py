"""CrossGuard policies (POLICIES) built from the rule index; never constructs the PolicyPack.

The only module that imports pulumi_policy. Each rule becomes one Resource/StackValidationPolicy
with the rule's name, description, enforcement and remediation text, and a config schema made of
the PolicyConfig keys the rule reads. Property trees arrive wrapped in CrossGuard's
unknown-checking proxies; they are copied into plain values first, with unknowns kept as
sentinels, so a rule skips what is unknown instead of the whole policy erroring during preview.
policies/__main__.py serves POLICIES.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from mlgov_policies.config import CONFIG_SCHEMA, PolicyConfig
from mlgov_policies.registry import RULES
from mlgov_policies.rule import ResourceRule, Rule, StackResource, StackRule

_LEVEL = {"mandatory": EnforcementLevel.MANDATORY, "advisory": EnforcementLevel.ADVISORY}
_SEVERITY = {"mandatory": Severity.HIGH, "advisory": Severity.LOW}


def plain(value: Any) -> Any:
    """Deep copy of CrossGuard props into dicts/lists; unknown values become sentinel strings."""
    if isinstance(value, str | bytes):
        return value
    if isinstance(value, Mapping):
        mapping = cast(Mapping[Any, Any], value)
        copied: dict[Any, Any] = {}
        for key in mapping:
            try:
                item = mapping[key]
            except UnknownValueError as err:
                item = err.unknown_type_sentinel
            copied[key] = plain(item)
        return copied
    if isinstance(value, Sequence):
        sequence = cast(Sequence[Any], value)
        items: list[Any] = []
        for index in range(len(sequence)):
            try:
                item = sequence[index]
            except UnknownValueError as err:
                item = err.unknown_type_sentinel
            items.append(plain(item))
        return items
    return value


def _schema(rule: Rule) -> PolicyConfigSchema | None:
    if not rule.config_keys:
        return None
    return PolicyConfigSchema(properties={key: CONFIG_SCHEMA[key] for key in rule.config_keys})


def _resource_policy(rule: ResourceRule) -> ResourceValidationPolicy:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if args.resource_type not in rule.types:
            return  # CrossGuard calls every resource policy for every resource
        config = PolicyConfig.from_mapping(args.get_config())
        for message in rule.check(args.resource_type, plain(args.props), config):
            report_violation(message, None)

    return ResourceValidationPolicy(
        name=rule.name,
        description=rule.description,
        validate=validate,
        enforcement_level=_LEVEL[rule.enforcement],
        config_schema=_schema(rule),
        severity=_SEVERITY[rule.enforcement],
        remediation_steps=rule.remediation,
        tags=["mlgov", "cost"],
    )


def _stack_policy(rule: StackRule) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        config = PolicyConfig.from_mapping(args.get_config())
        resources = [
            StackResource(type=res.resource_type, name=res.name, props=plain(res.props))
            for res in args.resources
        ]
        for index, message in rule.check(resources, config):
            report_violation(message, None if index is None else args.resources[index].urn)

    return StackValidationPolicy(
        name=rule.name,
        description=rule.description,
        validate=validate,
        enforcement_level=_LEVEL[rule.enforcement],
        config_schema=_schema(rule),
        severity=_SEVERITY[rule.enforcement],
        remediation_steps=rule.remediation,
        tags=["mlgov", "cost"],
    )


POLICIES: list[Policy] = [
    _resource_policy(rule) if isinstance(rule, ResourceRule) else _stack_policy(rule)
    for rule in RULES
]
