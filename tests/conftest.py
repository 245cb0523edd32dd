"""Shared fixtures: stack configs and a way to run any Pulumi code under mocks."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml

if TYPE_CHECKING:
    from governance.review.offline import RecordedResource


REPO = Path(__file__).resolve().parent.parent
PROGRAM = REPO / "__main__.py"
STACKS = ("dev", "staging", "prod")


# Work units for `pytest -n 2` (addopts: --dist loadfile): each file's tests run on one worker,
# so its module fixtures and cached plans are made once, not once per worker. Files that share a
# costly per-process object are one unit: the files that read tests/spend's BigQuery emulator
# (tests/spend, tests/report, and the docs' `mlgov spend` samples), so one emulator starts and
# loads its 40 days of rows, not one per worker; and the regional catalog's tests, which parse
# the full Billing Catalog export once (catalog_build/catalog_reference.py: full_export). Any
# other --dist is left as given (`make e2e` spreads its runs one by one).
SHARED_UNITS = {
    "tests/spend/": "the BigQuery emulator's files",
    "tests/report/": "the BigQuery emulator's files",
    "tests/docs/test_docs.py": "the BigQuery emulator's files",  # the `mlgov spend` samples
    "tests/costs/catalog_build/": "the full pricing export's files",
}


def work_unit(path: str) -> str:
    """The unit of work a test file belongs to: its shared unit, else the file itself."""
    return next((unit for prefix, unit in SHARED_UNITS.items() if path.startswith(prefix)), path)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ByFileAndSharedUnit(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(super()._split_scope(nodeid))

    return ByFileAndSharedUnit(config, log)


# PYTHONDONTWRITEBYTECODE=1 (set on CI machines and on the shared dev machines) also stops pytest
# caching the assertion-rewritten test modules, so every run, in each xdist worker, parses and
# rewrites all ~400 test files again: about 7 of a worker's 13 s of CPU before the first test
# (bench/RESULTS.md, "pytest"). While the suite is collected it writes bytecode for what it
# imports, as `make install` does for governance/ (Makefile): __pycache__/ is git-ignored, and a
# cached file is used only while its source is unchanged (pytest compares the source's hash,
# Python its mtime and size). Only while collecting: the tests themselves run with the
# environment's setting, since some plan a copied checkout in-process and read its git status.
@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> object:
    environment_says = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = environment_says


@pytest.fixture
def closed_url() -> str:
    """An http URL on 127.0.0.1 whose port refuses connections (bound, never listening)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def stack_config(stack: str) -> dict[str, Any]:
    """The `config:` map of stacks/Pulumi.<stack>.yaml."""
    return yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]


@pytest.fixture
def under_mocks() -> Callable[..., list[RecordedResource]]:
    """Run a callable that builds resources under Pulumi mocks; returns what it registered."""
    from governance.review.offline import run_under_mocks

    def run(
        build: Callable[[], object], config: dict[str, Any] | None = None, stack: str = "test"
    ) -> list[RecordedResource]:
        return run_under_mocks(build, config or {"gcp:project": "acme-ml-test"}, stack)

    return run
