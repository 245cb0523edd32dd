"""Every plan document mlgov prints, and docs/architecture.md's example, fit the schema."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import jsonschema
import pytest

from tests.conftest import REPO, STACKS

SCHEMA = json.loads((REPO / "governance" / "inputs" / "plan.schema.json").read_text())
ARCHITECTURE = REPO / "docs" / "architecture.md"  # where the plan document's contract is written
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def golden(stack: str) -> dict[str, Any]:
    return json.loads((REPO / "tests" / "golden" / f"plan.{stack}.json").read_text())


def contract_example() -> dict[str, Any]:
    """The plan document docs/architecture.md shows as the contract's example."""
    section = ARCHITECTURE.read_text(encoding="utf-8").split("## The plan document", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block is not None, "docs/architecture.md: the plan document section has no example"
    return json.loads(block.group(1))


def test_the_schema_is_a_valid_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("stack", STACKS)
def test_every_shipped_plan_validates(stack: str) -> None:
    # The goldens are exactly what `mlgov plan --json` prints (tests/golden pins that).
    assert list(VALIDATOR.iter_errors(golden(stack))) == []


def test_the_contract_example_validates() -> None:
    assert list(VALIDATOR.iter_errors(contract_example())) == []


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda d: d.pop("resources"), ""),  # a missing key is reported at its parent
        (lambda d: d["resources"][0].pop("name"), "resources.0"),
        (lambda d: d["resources"][0].update(monthly_usd="12"), "resources.0.monthly_usd"),
        (lambda d: d["cost"].pop("baseline_monthly_usd"), "cost"),
        (lambda d: d.update(currency="EUR"), "currency"),
    ],
)
def test_the_schema_can_fail(change: Any, path: str) -> None:
    doc = copy.deepcopy(golden("dev"))
    change(doc)
    errors = list(VALIDATOR.iter_errors(doc))
    assert [".".join(map(str, e.absolute_path)) for e in errors] == [path]
