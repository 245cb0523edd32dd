"""The Pulumi project is found from the current directory, as `pulumi` finds it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from governance.cli.main import main
from governance.errors import CliError
from governance.inputs.project import find_project, load_project
from tests.conftest import PROGRAM, REPO


def test_this_repository_is_a_uv_project_with_stacks_in_stacks() -> None:
    project = load_project(REPO / "Pulumi.yaml")
    assert (project.name, project.stack_dir, project.program) == (
        "mlgov",
        REPO / "stacks",
        PROGRAM,
    )
    assert project.stacks() == ["dev", "staging", "prod"]  # promotion order
    runtime = yaml.safe_load((REPO / "Pulumi.yaml").read_text())["runtime"]
    assert runtime == {
        "name": "python",
        "options": {"toolchain": "uv", "virtualenv": ".venv", "typechecker": "pyright"},
    }


@pytest.fixture
def user_project(tmp_path: Path) -> Path:
    """A user's project: program in infra/, stack files in config/, mlgov installed."""
    (tmp_path / "Pulumi.yaml").write_text(
        "name: shop\nruntime: python\nmain: infra/\nstackConfigDir: config\n"
    )
    (tmp_path / "infra").mkdir()
    shutil.copy(PROGRAM, tmp_path / "infra" / "__main__.py")
    (tmp_path / "config").mkdir()
    shutil.copy(REPO / "stacks" / "Pulumi.dev.yaml", tmp_path / "config" / "Pulumi.dev.yaml")
    return tmp_path


def test_plan_finds_the_project_from_a_subdirectory(
    user_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(user_project / "infra")
    assert main(["plan", "--stack", "dev", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["stack"] == "dev"
    assert any(r["name"] == "notebooks-alice" for r in doc["resources"])
    assert main(["plan", "--stack", "prod"]) == 2
    assert "no stack file config/Pulumi.prod.yaml; known stacks: dev" in capsys.readouterr().err


def test_outside_any_project_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CliError, match=r"no Pulumi project: no Pulumi\.yaml in"):
        find_project(tmp_path)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("name: [x]\nruntime: python\n", "name: must be a string"),
        ("- just a list\n", "a Pulumi project file is a YAML mapping"),
        ("name: x\nruntime: python\nmain: [a]\n", "main: must be a string"),
    ],
)
def test_bad_project_files_exit_2(tmp_path: Path, content: str, expected: str) -> None:
    (tmp_path / "Pulumi.yaml").write_text(content)
    with pytest.raises(CliError, match=expected):
        find_project(tmp_path)
