"""The schema rules as the rule index wires them: `check`, the mocked plan and CrossGuard.

The compliant stack is a shipped plan (tests/golden/plan.staging.json); each failing case changes
one property. The offline evaluator and the CrossGuard policy objects must find the same.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from policy_cases import run_offline, run_pack

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources
from mlgov_policies.registry import ALL_RULES, covered_types
from mlgov_policies.schema import catalog

ROOT = Path(__file__).resolve().parents[3]
WORKBENCH = "gcp:workbench/instance:Instance"
VALID = "mlgov-schema-valid-inputs"
KNOWN = "mlgov-schema-known-type"


def stack() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    document = json.loads((ROOT / "tests" / "golden" / "plan.staging.json").read_text())
    return copy.deepcopy(document["resources"]), document["policy_config"]


def schema_findings(resources: list[dict[str, Any]], config: dict[str, Any]) -> list[tuple]:
    found = evaluate_resources(resources, PolicyConfig.from_mapping(config), stack="staging")
    return [
        (v.policy, v.resource, v.enforcement, v.message)
        for v in found
        if v.policy in (VALID, KNOWN)
    ]


def notebook(resources: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in resources if r["type"] == WORKBENCH)


def test_rules_are_indexed_with_their_enforcement_and_source() -> None:
    version = catalog.package_versions()["pulumi-gcp"]
    valid, known = ALL_RULES[VALID], ALL_RULES[KNOWN]
    assert (valid.kind, valid.enforcement, known.kind, known.enforcement) == (
        "resource",
        "mandatory",
        "stack",
        "advisory",
    )
    assert valid.types == catalog.known_types()
    assert f"pulumi-gcp {version}" in valid.source
    assert valid.source == known.source
    # Schema validation sees every type; rule coverage still means a rule about meaning.
    assert "gcp:redis/instance:Instance" not in covered_types()


def test_shipped_plan_passes() -> None:
    resources, config = stack()
    assert schema_findings(resources, config) == []


def test_a_misspelt_nested_property_is_one_mandatory_finding() -> None:
    resources, config = stack()
    target = notebook(resources)
    target["inputs"]["gceSetup"]["machineTyp"] = target["inputs"]["gceSetup"].pop("machineType")
    version = catalog.package_versions()["pulumi-gcp"]
    assert schema_findings(resources, config) == [
        (
            VALID,
            target["name"],
            "mandatory",
            "'gceSetup.machineTyp': unknown property; did you mean 'machineType'? "
            f"(pulumi-gcp {version} input types)",
        )
    ]
    assert run_pack(resources, config) == run_offline(resources, config)


def test_a_missing_required_property_is_a_finding() -> None:
    resources, config = stack()
    table = next(r for r in resources if r["type"] == "gcp:bigquery/table:Table")
    del table["inputs"]["tableId"]
    [(policy, name, _, message)] = schema_findings(resources, config)
    assert (policy, name) == (VALID, table["name"])
    assert message.startswith("'tableId': required property is missing (pulumi-gcp ")


def test_an_unknown_type_token_is_an_advisory_finding_on_that_resource() -> None:
    resources, config = stack()
    target = notebook(resources)
    target["type"] = "gcp:notebooks/instance:Instance"
    version = catalog.package_versions()["pulumi-gcp"]
    found = schema_findings(resources, config)
    assert found == [
        (
            KNOWN,
            target["name"],
            "advisory",
            f"type 'gcp:notebooks/instance:Instance' is not in pulumi-gcp {version} "
            "(it has no module 'gcp:notebooks')",
        )
    ]
    assert run_pack(resources, config) == run_offline(resources, config)
