"""Fixtures of the CLI tests."""

from __future__ import annotations

import pytest

from tests.cli.shipped_plans import use_shipped_plans


@pytest.fixture
def shared_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped stacks' plans are planned once per process (tests/cli/shipped_plans.py)."""
    use_shipped_plans(monkeypatch)
