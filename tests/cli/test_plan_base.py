"""`plan --all --out-dir H --base CHECKOUT --base-out-dir B`: the PR base, with its own mlgov.

The base checkout is planned in the same process, by the base's own code (its program,
components, rules and prices), and this process's own modules, path and directory are back as
they were afterwards. Where the head's plan is not what a test checks, it is the shipped plan
planned once per process (`shared_plans`); the base is always planned, by its own code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import governance.review.plan
import mlgov_policies
from governance.cli.main import main
from governance.errors import Exit
from tests.conftest import REPO, STACKS

MARKER = """

# Test marker: this checkout's own code planned the stack.
import mlgov_policies as _rules

_original_plan_config = plan_config


def plan_config(*args, **kwargs):  # type: ignore[no-redef]
    doc = _original_plan_config(*args, **kwargs)
    doc["planned_by"] = {"plan": __file__, "rules": _rules.__file__}
    return doc
"""


def _checkout(root: Path) -> Path:
    """A copy of this repository's project, with a marker in its plan code.

    Its bytecode is copied too, with each source file's time (copytree's copy2): Python uses a
    module's cached bytecode only while its source's time and size are the ones it was compiled
    from, as in any checkout, so the edited plan.py (and any file without bytecode) is compiled
    from the copy's source, and the rest is not compiled again by every base import (~1 s each).
    """
    for folder in ("governance", "policies", "functions", "stacks"):
        shutil.copytree(REPO / folder, root / folder)
    for name in ("Pulumi.yaml", "__main__.py", "pyproject.toml", ".gitignore"):
        shutil.copy(REPO / name, root / name)
    plan = root / "governance" / "review" / "plan.py"
    plan.write_text(plan.read_text() + MARKER)
    return root


def test_the_base_is_planned_by_its_own_code_and_ours_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    base = _checkout(tmp_path / "base")
    head_out, base_out = tmp_path / "head", tmp_path / "base-plans"
    monkeypatch.chdir(REPO)
    path_before, cwd_before = list(sys.path), os.getcwd()
    capsys.readouterr()
    code = main(
        ["plan", "--all", "--out-dir", str(head_out), "--base", str(base),
         "--base-out-dir", str(base_out), "--policy-config-dir", "policies"]
    )  # fmt: skip
    _, err = capsys.readouterr()
    assert code == Exit.OK, err
    for stack in STACKS:
        head = json.loads((head_out / f"{stack}.json").read_text())
        planned = json.loads((base_out / f"{stack}.json").read_text())
        assert "planned_by" not in head
        by = planned.pop("planned_by")
        assert Path(by["plan"]).resolve() == (base / "governance/review/plan.py").resolve()
        assert Path(by["rules"]).resolve().is_relative_to(base / "policies")
        assert planned == head  # the same code apart from the marker: the same plan
        assert "policy_pack_config" in planned  # the base's own policies/config.NAME.json
    assert [line.split("\t") for line in (base_out / "status.tsv").read_text().splitlines()] == [
        [s, "0", "planned"] for s in STACKS
    ]
    assert err.splitlines()[3:] == [f"mlgov: plan (base) {s}: planned (exit 0)" for s in STACKS]
    # this process's own modules, import path and directory are back
    assert sys.path == path_before and os.getcwd() == cwd_before
    assert sys.modules["governance.review.plan"] is governance.review.plan
    assert sys.modules["mlgov_policies"] is mlgov_policies
    assert Path(governance.review.plan.__file__).resolve().is_relative_to(REPO)


@pytest.mark.usefixtures("shared_plans")  # the head's dev plan is not what is checked here
def test_a_base_whose_cli_cannot_be_imported_runs_as_a_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    base = _checkout(tmp_path / "base")
    cli = base / "governance" / "cli" / "main.py"
    # Refused in this (pytest's) process only: the plan can only come from a separate process.
    cli.write_text(
        cli.read_text() + "\nif 'pytest' in sys.modules:\n"
        "    raise ImportError('in-process import refused by the test')\n"
    )
    monkeypatch.chdir(REPO)
    args = ["plan", "--stack", "dev", "--out-dir", str(tmp_path / "h"), "--base", str(base)]
    code = main([*args, "--base-out-dir", str(tmp_path / "b")])
    _, err = capsys.readouterr()
    assert code == Exit.OK, err
    planned = json.loads((tmp_path / "b" / "dev.json").read_text())
    assert Path(planned["planned_by"]["plan"]).resolve().is_relative_to(base.resolve())


def test_a_base_without_a_project_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(REPO)
    args = ["plan", "--stack", "dev", "--out-dir", str(tmp_path / "h"), "--base"]
    code = main([*args, str(tmp_path / "empty"), "--base-out-dir", str(tmp_path / "b")])
    _, err = capsys.readouterr()
    assert code == Exit.INVALID
    assert "no Pulumi project" in err or "is not the folder of a Pulumi project" in err
    assert not (tmp_path / "h").exists()  # refused before anything is planned


@pytest.mark.usefixtures("shared_plans")  # the head's dev plan is not what is checked here
def test_a_base_process_that_crashes_is_failed_not_mandatory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    # Python exits 1 on an uncaught exception: the code of "planned, with a mandatory finding".
    base = _checkout(tmp_path / "base")
    main_py = base / "governance" / "__main__.py"
    main_py.write_text("raise RuntimeError('broken base')\n")
    cli = base / "governance" / "cli" / "main.py"
    cli.write_text(cli.read_text() + "\nraise ImportError('not importable here')\n")
    monkeypatch.chdir(REPO)
    args = ["plan", "--stack", "dev", "--out-dir", str(tmp_path / "h"), "--base", str(base)]
    code = main([*args, "--base-out-dir", str(tmp_path / "b")])
    _, err = capsys.readouterr()
    assert code == Exit.OK, err  # the base's outcome is its own; the head planned fine
    assert (tmp_path / "b" / "status.tsv").read_text() == "dev\t3\tfailed\n"
    assert not (tmp_path / "b" / "dev.json").exists()
    assert "broken base" in (tmp_path / "b" / "dev.err").read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.usefixtures("shared_plans")  # the head's dev plan is not what is checked here
def test_a_second_push_reads_the_base_plans_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    base = _checkout(tmp_path / "base")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run([*git, *args], cwd=base, check=True, capture_output=True)
    monkeypatch.chdir(REPO)
    args = ["plan", "--stack", "dev", "--out-dir", str(tmp_path / "h"), "--base", str(base)]
    args += ["--base-out-dir", str(tmp_path / "b"), "--cache-dir", str(tmp_path / "cache")]
    assert main(args) == Exit.OK
    first = (tmp_path / "b" / "dev.json").read_text()
    _, err = capsys.readouterr()
    assert "mlgov: plan (base) dev: planned (exit 0)" in err.splitlines()
    (tmp_path / "b" / "dev.json").unlink()
    assert main(args) == Exit.OK
    _, err = capsys.readouterr()
    assert "mlgov: plan (base) dev: planned (exit 0), from the plan cache" in err.splitlines()
    assert (tmp_path / "b" / "dev.json").read_text() == first
    assert "planned_by" in json.loads(first)  # the base's own code made the kept plan
