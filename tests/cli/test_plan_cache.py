"""`plan --out-dir DIR --cache-dir C`: plans kept by git tree, installed packages and inputs.

The program below writes each run to a log file outside the repository, so a test can tell a
plan read from the cache (the program did not run) from one planned again.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from governance.cli import plan_cache
from governance.cli.main import main
from governance.errors import Exit

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

PROGRAM = """\
import os
import pulumi
import pulumi_gcp as gcp

with open(os.environ["PLAN_RUNS"], "a") as log:
    log.write(pulumi.get_stack() + "\\n")
if pulumi.Config().get("bug"):
    raise RuntimeError("a bug in the program")
gcp.serviceaccount.Account("runner", account_id="runner")
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, check=True, capture_output=True,
    )  # fmt: skip


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (root / "__main__.py").write_text(PROGRAM)
    (root / "Pulumi.one.yaml").write_text("config:\n  gcp:project: shop-one\n")
    (root / "Pulumi.two.yaml").write_text("config:\n  gcp:project: shop-two\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "project")
    return root


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLAN_RUNS", str(tmp_path / "runs.log"))
    return _project(tmp_path / "repo")


def _plan(
    root: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, *extra: str
) -> tuple[int, str]:
    monkeypatch.chdir(root)
    capsys.readouterr()
    out, cache = root.parent / "plans", root.parent / "cache"
    code = main(["plan", "--all", "--out-dir", str(out), "--cache-dir", str(cache), *extra])
    return code, capsys.readouterr().err


def _runs(root: Path) -> list[str]:
    log = root.parent / "runs.log"
    return log.read_text().splitlines() if log.exists() else []


def _outputs(root: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((root.parent / "plans").iterdir())}


def _entries(root: Path) -> list[Path]:
    return sorted((root.parent / "cache").glob("plan-*.json"))


def test_a_second_run_of_the_same_tree_reads_every_plan_from_the_cache(
    project: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, err = _plan(project, capsys, monkeypatch)
    assert code == Exit.OK, err
    assert _runs(project) == ["one", "two"]
    first = _outputs(project)
    assert len(_entries(project)) == 2
    code, err = _plan(project, capsys, monkeypatch)
    assert code == Exit.OK, err
    assert _runs(project) == ["one", "two"]  # the program did not run again
    assert _outputs(project) == first  # the same files, byte for byte
    assert "mlgov: plan one: planned (exit 0), from the plan cache" in err.splitlines()


def test_a_new_commit_a_changed_environment_or_pulumi_config_plans_again(
    project: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plan(project, capsys, monkeypatch)
    (project / "Pulumi.two.yaml").write_text("config:\n  gcp:project: shop-two-b\n")
    _git(project, "commit", "-qam", "two moves")
    _plan(project, capsys, monkeypatch)
    # the tree changed: both stacks (their plan may depend on any file) are planned again
    assert _runs(project) == ["one", "two", "one", "two"]
    assert json.loads(_outputs(project)["two.json"])["project"] == "shop-two-b"
    real = plan_cache.environment()
    monkeypatch.setattr(plan_cache, "environment", lambda: {**real, "installed": "other"})
    _plan(project, capsys, monkeypatch)
    assert len(_runs(project)) == 6
    monkeypatch.setenv("PULUMI_CONFIG", '{"shop:unused": "1"}')
    _plan(project, capsys, monkeypatch)
    assert len(_runs(project)) == 8


def test_a_work_tree_with_changes_is_not_cached(
    project: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "scratch.py").write_text("# not committed\n")
    code, err = _plan(project, capsys, monkeypatch)
    assert code == Exit.OK, err
    assert _entries(project) == []
    assert "the head's plans are not cached" in err
    assert "the work tree has changes git has not committed (e.g. 'scratch.py')" in err
    _plan(project, capsys, monkeypatch)
    assert _runs(project) == ["one", "two", "one", "two"]


def test_refused_stacks_are_kept_and_bugs_are_not(
    project: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "Pulumi.bad.yaml").write_text("config: [no, mapping]\n")
    (project / "Pulumi.bug.yaml").write_text("config:\n  gcp:project: shop-bug\n  shop:bug: yes\n")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "more stacks")
    code, err = _plan(project, capsys, monkeypatch)
    assert code == Exit.INTERNAL, err
    status = (project.parent / "plans" / "status.tsv").read_text()
    assert "bad\t2\tfailed\n" in status and "bug\t3\tfailed\n" in status
    refused = (project.parent / "plans" / "bad.err").read_text()
    assert _runs(project).count("bug") == 1
    code, err = _plan(project, capsys, monkeypatch)
    assert code == Exit.INTERNAL
    assert _runs(project).count("bug") == 2  # an internal error is never replayed
    assert (project.parent / "plans" / "bad.err").read_text() == refused
    assert (
        f"mlgov: plan bad: failed (see {project.parent}/plans/bad.err) (exit 2), from the plan cache"
        in err
    )


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        (lambda entry, other: entry.write_bytes(b"\x00garbage"), "not a JSON entry"),
        (lambda entry, other: entry.write_text(other.read_text()), "its key is not this plan's"),
        (lambda entry, other: _edit(entry, exit=1), "its plan's findings give exit 0, not 1"),
        (lambda entry, other: _edit(entry, format=99), "format '99', expected 1"),
        (lambda entry, other: _edit(entry, stdout="[]"), "its plan is not a plan document"),
        (lambda entry, other: _edit(entry, exit=2), "a refused stack (exit 2) printed no plan"),
    ],
)
def test_an_entry_that_fails_its_checks_is_named_and_planned_again(
    tamper, reason: str, project: Path, capsys: pytest.CaptureFixture, monkeypatch
) -> None:
    _plan(project, capsys, monkeypatch)
    first = _outputs(project)
    entries = {json.loads(p.read_text())["key"]["stack"]: p for p in _entries(project)}
    tamper(entries["one"], entries["two"])
    code, err = _plan(project, capsys, monkeypatch)
    assert code == Exit.OK, err
    assert _runs(project) == ["one", "two", "one"]  # one planned again, two from the cache
    assert _outputs(project) == first
    (line,) = [w for w in err.splitlines() if w.startswith("mlgov: warning: plan cache:")]
    assert entries["one"].name in line and reason in line and "one is planned again" in line
    _plan(project, capsys, monkeypatch)  # ... and the entry was written anew
    assert _runs(project) == ["one", "two", "one"]


def _edit(entry: Path, **changes: object) -> None:
    data = json.loads(entry.read_text())
    data.update(changes)
    entry.write_text(json.dumps(data))
