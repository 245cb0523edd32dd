"""The shipped stacks' plan documents stay identical unless a change means them to differ."""

from __future__ import annotations

import json

import pytest

from tests.golden.regenerate import GOLDEN, STACKS, plan


@pytest.mark.parametrize("stack", STACKS)
def test_plan_document_matches_golden(stack: str) -> None:
    expected = json.loads((GOLDEN / f"plan.{stack}.json").read_text(encoding="utf-8"))
    assert plan(stack) == expected
