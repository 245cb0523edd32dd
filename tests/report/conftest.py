"""Fixtures for the report: the shipped stacks' plans, the billing export emulator, a browser.

The shipped stacks are planned once per test process (tests/cli/shipped_plans.py): what these
tests check is the page and the command around the plans, not the planning, and the plan of an
unchanged stack file is the same document every time (tests/golden pins it). `mlgov report` and
`mlgov spend` get the kept documents through `plan_stack`, the function their code calls, as in
the CLI tests; a stack that is not a shipped stack file is planned for real.

The emulator is tests/spend's (one BigQuery emulator loaded with 40 days of export rows for the
shipped stacks' projects), its fixtures imported here so the report reads the same rows `spend`
is tested against, from the same emulator process (tests/spend/emulator.py: shared_export).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cli.shipped_plans import shipped_plan, use_shipped_plans
from tests.report.browser import Browser, find_chromium
from tests.spend.conftest import endpoint, export  # noqa: F401  (fixtures, used by name)

REQUIRE_BROWSER = "MLGOV_REQUIRE_BROWSER"  # .ci/run sets it: a missing browser fails there
# The skip's reason, printed in pytest's summary (-rs, pyproject.toml).
NO_BROWSER = (
    "no Chromium or Chrome on PATH: run .ci/browser (Debian's chromium, needs root or sudo), "
    "or set MLGOV_CHROMIUM to one"
)


def plan(stack: str) -> dict[str, Any]:
    """A fresh copy of a shipped stack's plan document (planned once per process)."""
    return shipped_plan(stack)


@pytest.fixture(autouse=True)
def shared_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """`mlgov report` and `mlgov spend` get the shipped stacks' plans planned once per process."""
    use_shipped_plans(monkeypatch)


@pytest.fixture(scope="session")
def chromium() -> str:
    binary = find_chromium()
    if binary is None:
        message = NO_BROWSER
        if os.environ.get(REQUIRE_BROWSER):
            pytest.fail(message)
        pytest.skip(message)
    return binary


@pytest.fixture(scope="session")
def browser(chromium: str) -> Iterator[Browser]:
    """One Chromium for the session; each test's page opens in a fresh context of its own."""
    started = Browser(chromium)
    try:
        yield started
    finally:
        started.close()
