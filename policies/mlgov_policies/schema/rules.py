"""The schema-validation rules, as the rule index lists them.

`VALID_INPUTS` checks every pulumi-gcp/pulumi-random resource's inputs against the installed SDK's
input types (validate.check); `KNOWN_TYPE` flags type tokens the installed SDK does not have (a
stack rule, because a resource rule only sees the types it lists). The checks live in validate.py
and the type data in catalog.py; registry.RULES lists both rules.
"""

from __future__ import annotations

from typing import Final

from mlgov_policies.rule import ResourceRule, StackRule
from mlgov_policies.schema import catalog, validate


def _source() -> str:
    versions = catalog.package_versions()
    described = ", ".join(
        f"{package} {versions.get(package, '?')}"
        for package in validate.DESCRIBED_PACKAGES.values()
    )
    return f"input types of the installed {described} (policies/mlgov_policies/schema/)"


SOURCE: Final = _source()

VALID_INPUTS: Final = ResourceRule(
    name="mlgov-schema-valid-inputs",
    check=validate.check,
    types=validate.covered_types(),
    enforcement="mandatory",
    why="An input the provider does not know, a missing required input, or a value of the wrong "
    "type or outside its documented values fails (or is silently dropped from) the deployment; "
    "checked offline, a typo in a nested block (`gceSetup.machineTyp`) shows up in the pull "
    "request instead of in `pulumi up`.",
    remediation="Fix the property the message names: spell it as the pulumi-gcp input type does "
    "(camelCase on the wire), give every required property, and use one of the listed values.",
    source=SOURCE,
)
KNOWN_TYPE: Final = StackRule(
    name="mlgov-schema-known-type",
    check=validate.check_types_known,
    types=frozenset({"gcp:*", "random:*"}),
    enforcement="advisory",
    why="A type token the installed SDK does not have is a resource no rule can check (renamed or "
    "removed in this pulumi-gcp version, e.g. gcp:tpu/node:Node, or a plan from another "
    "version).",
    remediation="Use the resource type the installed pulumi-gcp provides (the message suggests "
    "one), or regenerate the plan with the SDK version the project pins.",
    source=SOURCE,
)
