"""One scratch base repository per test session (and xdist worker), and a PR on it per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.judge.harness import PullRequest, make_base_repo


@pytest.fixture(scope="session")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base_repo(tmp_path_factory.mktemp("judge-origin"))


@pytest.fixture(scope="session")
def base_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The base's plans, keyed by its tree as the workflow keys them: planned once per worker.
    return tmp_path_factory.mktemp("judge-base-plans")


@pytest.fixture
def pr(tmp_path: Path, origin: Path, base_cache: Path) -> PullRequest:
    return PullRequest(tmp_path, origin, base_cache)
