"""Shared fixtures: stack configs and a way to run any Pulumi code under mocks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from governance.review.offline import RecordedResource, run_under_mocks

REPO = Path(__file__).resolve().parent.parent
PROGRAM = REPO / "__main__.py"
STACKS = ("dev", "staging", "prod")


def stack_config(stack: str) -> dict[str, Any]:
    """The `config:` map of stacks/Pulumi.<stack>.yaml."""
    return yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]


@pytest.fixture
def under_mocks() -> Callable[..., list[RecordedResource]]:
    """Run a callable that builds resources under Pulumi mocks; returns what it registered."""

    def run(
        build: Callable[[], object], config: dict[str, Any] | None = None, stack: str = "test"
    ) -> list[RecordedResource]:
        return run_under_mocks(build, config or {"gcp:project": "acme-ml-test"}, stack)

    return run
