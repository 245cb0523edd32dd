"""`mlgov stacks`: every stack of the project, which the PR workflow plans (tests/test_workflows.py).

A fixed list in CI left a stack file a PR adds (say `Pulumi.prod-eu.yaml`) unplanned and unseen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from governance.cli.main import main
from governance.errors import Exit


def _stacks(root: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> tuple[int, str, str]:
    monkeypatch.chdir(root)
    capsys.readouterr()
    code = main(["stacks"])
    out, err = capsys.readouterr()
    return code, out, err


def test_lists_every_stack_file_where_pulumi_finds_it(tmp_path, capsys, monkeypatch) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: acme\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "stacks").mkdir()
    for name in ("prod", "qa", "dev", "prod-eu", "staging"):
        (tmp_path / "stacks" / f"Pulumi.{name}.yaml").write_text("config: {}\n")
    (tmp_path / "Pulumi.stray.yaml").write_text("config: {}\n")  # not in stackConfigDir
    (tmp_path / "stacks" / "Pulumi.old.yml").write_text("config: {}\n")  # not the project's ext
    code, out, err = _stacks(tmp_path, capsys, monkeypatch)
    assert code == 0, err
    # the usual environments first, in promotion order, then the rest A-Z
    assert out.splitlines() == ["dev", "staging", "prod", "prod-eu", "qa"]


def test_the_repository_lists_its_three_stacks(capsys, monkeypatch) -> None:
    code, out, _ = _stacks(Path(__file__).resolve().parents[2], capsys, monkeypatch)
    assert code == 0
    assert out.splitlines() == ["dev", "staging", "prod"]


def test_outside_a_project_is_exit_2_naming_it(tmp_path, capsys, monkeypatch) -> None:
    code, out, err = _stacks(tmp_path, capsys, monkeypatch)
    assert code == Exit.INVALID
    assert out == ""
    assert "no Pulumi project" in err and "Traceback" not in err
