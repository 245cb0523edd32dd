"""The shipped CrossGuard configs match what each stack's settings generate."""

from __future__ import annotations

import json

import pytest

from governance.cli.main import main
from tests.conftest import REPO, STACKS


@pytest.mark.parametrize("stack", STACKS)
def test_shipped_policy_pack_config_is_current(
    stack: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["policy-config", "--stack", stack]) == 0
    generated = json.loads(capsys.readouterr().out)
    shipped = json.loads((REPO / "policies" / f"config.{stack}.json").read_text())
    assert shipped == generated, "stale: run `make policy-configs`"
    assert (
        generated["mlgov-workbench-idle-shutdown"]["max_idle_minutes"]
        == {"dev": 120, "staging": 180, "prod": 240}[stack]
    )
