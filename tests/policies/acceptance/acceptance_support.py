"""Shared helpers: the shipped program's inputs (recorded), one-property changes, running a rule."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from mlgov_policies.config import PolicyConfig
from mlgov_policies.registry import RULES as INDEX
from mlgov_policies.rule import ResourceRule

DATA = Path(__file__).resolve().parent / "data"
SHIPPED: list[dict[str, Any]] = json.loads((DATA / "shipped_inputs.json").read_text())["resources"]
# The acceptance rules, as the one rule index lists them (checks defined in acceptance/*.py).
RULES: tuple[ResourceRule, ...] = tuple(
    rule
    for rule in INDEX
    if isinstance(rule, ResourceRule)
    and rule.check.__module__.startswith("mlgov_policies.acceptance.")
)
BY_NAME: dict[str, ResourceRule] = {rule.name: rule for rule in RULES}
DELETE = object()


def shipped(stack: str, name: str) -> dict[str, Any]:
    """A deep copy of one shipped resource's inputs (camelCase, as `plan --json` printed them)."""
    for resource in SHIPPED:
        if (resource["stack"], resource["name"]) == (stack, name):
            return copy.deepcopy(resource["inputs"])
    raise KeyError((stack, name))


def changed(props: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    """A copy of `props` with one dotted path set (list items by index) or deleted (DELETE)."""
    result = copy.deepcopy(props)
    *parents, last = path.split(".")
    target: Any = result
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target.setdefault(key, {})
    if value is DELETE:
        del target[int(last) if isinstance(target, list) else last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return result


def run(rule: str, type_: str, props: dict[str, Any]) -> list[str]:
    """Messages of one rule on one resource (the rule must cover the type)."""
    found = BY_NAME[rule]
    assert type_ in found.types, (rule, type_)
    return list(found.check(type_, props, PolicyConfig()))
