"""Fixtures for the cost tests; the resource builders live in cost_plans.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from cost_plans import AS_OF, full_plan

from governance.costs.assumptions import UsageAssumptions


@pytest.fixture
def usage() -> UsageAssumptions:
    return UsageAssumptions(as_of=AS_OF)


@pytest.fixture
def plan() -> list[dict[str, Any]]:
    return copy.deepcopy(full_plan())
