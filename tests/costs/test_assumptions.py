"""UsageAssumptions: composed from each cost model's knobs, in the documented order."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from governance.costs.assumptions import CommonUsage, UsageAssumptions
from governance.costs.resources import nat, workbench

COSTS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "costs.md"


def documented_keys() -> list[str]:
    """Keys of the usage-assumptions table (docs/reference/costs.md), in order (first column)."""
    text = COSTS_PAGE.read_text(encoding="utf-8")
    table = text.split("| key | unit | default | meaning |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines()[2:]]
    return [key for row in rows for key in re.findall(r"`([a-z_]+)`", row)]


def test_fields_are_documented_in_the_order_plan_json_prints():
    keys = documented_keys()
    assert len(keys) == 30
    assert list(UsageAssumptions.model_fields) == keys
    assert list(UsageAssumptions().model_dump()) == keys


def test_each_models_knobs_are_part_of_the_whole():
    for part in (CommonUsage, workbench.WorkbenchUsage, nat.NatUsage):
        assert set(part.model_fields) <= set(UsageAssumptions.model_fields)


def test_round_trip_through_the_plan_document_and_typos_rejected():
    u = UsageAssumptions(as_of=date(2026, 1, 5), training_pool_nodes={"a100": 1.5})
    assert UsageAssumptions.model_validate(u.model_dump(mode="json")) == u
    with pytest.raises(ValueError, match="extra"):
        UsageAssumptions.model_validate({"notebook_hours": 3})
    with pytest.raises(ValueError, match="notebook_active_hours_per_month"):
        UsageAssumptions(notebook_active_hours_per_month=731)
    with pytest.raises(ValueError, match=r"training_pool_nodes\.a100\n.*finite number"):
        UsageAssumptions.model_validate({"training_pool_nodes": {"a100": "inf"}})
