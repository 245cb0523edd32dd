"""Fixtures for the report: the shipped stacks' plans, the billing export emulator, a browser.

The emulator is tests/spend's (one BigQuery emulator loaded with 40 days of export rows for the
shipped stacks' projects), its fixtures imported here so the report reads the same rows `spend`
is tested against, from the same emulator process (tests/spend/emulator.py: shared_export).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from governance.review.plan import plan_stack
from tests.report.browser import Browser, find_chromium
from tests.spend.conftest import endpoint, export  # noqa: F401  (fixtures, used by name)

REQUIRE_BROWSER = "MLGOV_REQUIRE_BROWSER"  # .ci/run sets it: a missing browser fails there
# The skip's reason, printed in pytest's summary (-rs, pyproject.toml).
NO_BROWSER = (
    "no Chromium or Chrome on PATH: run .ci/browser (Debian's chromium, needs root or sudo), "
    "or set MLGOV_CHROMIUM to one"
)


@functools.cache
def _plan(stack: str) -> str:
    return json.dumps(plan_stack(stack=stack))


def plan(stack: str) -> dict[str, Any]:
    """A fresh copy of a shipped stack's plan document."""
    return json.loads(_plan(stack))


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
