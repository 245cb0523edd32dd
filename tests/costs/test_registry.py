"""The registry covers every resource type the shipped stacks create, priced or free with a reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cost_plans import full_plan

from governance.costs.registry import FREE, PRICED, free_reason

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def shipped_types() -> set[str]:
    """Every type token in the shipped stacks' plan documents (tests/golden)."""
    types: set[str] = set()
    for path in sorted(GOLDEN.glob("plan.*.json")):
        types |= {r["type"] for r in json.loads(path.read_text(encoding="utf-8"))["resources"]}
    return types


def test_shipped_stacks_are_found():
    types = shipped_types()
    assert "gcp:workbench/instance:Instance" in types
    assert len(types) > 30


@pytest.mark.parametrize("type_", sorted(shipped_types() | {r["type"] for r in full_plan()}))
def test_every_shipped_type_is_priced_or_free_with_a_reason(type_):
    assert type_ in PRICED or free_reason(type_), f"{type_}: no cost model and no free reason"


def test_priced_and_free_do_not_overlap_and_reasons_are_sentences():
    assert not set(PRICED) & set(FREE)
    assert all(len(reason.split()) >= 3 for reason in FREE.values())


def test_components_and_providers_are_free_by_prefix():
    assert free_reason("mlgov:index:NotebookFleet") == "component resource: its children are priced"
    assert free_reason("pulumi:providers:gcp") == "provider resource: no charge"
    assert free_reason("gcp:alloydb/cluster:Cluster") is None
