"""GitHub workflow files: valid against the vendored schema (offline) and doing the key steps."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
CHECK_JSONSCHEMA = shutil.which("check-jsonschema") or str(
    ROOT / ".venv" / "bin" / "check-jsonschema"
)


def _load(path: Path) -> dict[Any, Any]:
    return yaml.safe_load(path.read_text())


def _schema_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CHECK_JSONSCHEMA, "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _pr() -> dict[Any, Any]:
    return _load(ROOT / ".github" / "workflows" / "pr.yml")


def _runs(job: dict[Any, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_there_are_workflows() -> None:
    assert ROOT / ".github" / "workflows" / "pr.yml" in WORKFLOWS


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_workflow_matches_schema(path: Path) -> None:
    result = _schema_check(path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_schema_check_can_fail(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "name: x\non: pull_request\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    stepz: []\n"
    )
    assert _schema_check(broken).returncode != 0


def test_offline_job_needs_no_credentials() -> None:
    job = _pr()["jobs"]["offline"]
    text = yaml.safe_dump(job)
    assert "secrets." not in text
    uses = [step.get("uses", "") for step in job["steps"]]
    assert any(u.startswith("actions/checkout@v") for u in uses)
    setup = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python@v"))
    assert str(setup["with"]["python-version"]) == "3.11"
    runs = _runs(job)
    assert "make test" in runs
    # every stack, at the head and at the PR base, into ONE comment (not only dev)
    assert "for stack in dev staging prod" in runs
    assert '-m governance plan --stack "$stack" --json > "$out/head/$stack.json"' in runs
    assert "git worktree add" in runs
    assert "BASE_SHA" in runs
    assert '--json) > "$out/base/$stack.json"' in runs
    assert 'args+=(--stack "$stack" "$base" "$out/head/$stack.json")' in runs
    assert 'args+=(--failed "$stack" "$out/head/$stack.err")' in runs
    assert '-m governance comment "${args[@]}" > "$RUNNER_TEMP/comment.md"' in runs


def test_plan_failures_fail_the_job_after_commenting() -> None:
    steps = _pr()["jobs"]["offline"]["steps"]
    names = [s.get("name", "") for s in steps]
    comment = names.index("Post or update the PR comment")
    fail = names.index("Fail on mandatory policy violations")
    assert comment < fail
    assert steps[fail]["if"] == "steps.plans.outputs.status != '0'"
    assert "exit 1" in steps[fail]["run"]


def test_single_sticky_comment() -> None:
    steps = _pr()["jobs"]["offline"]["steps"]
    step = next(s for s in steps if s.get("name") == "Post or update the PR comment")
    assert step["uses"].startswith("actions/github-script@v")
    script = step["with"]["script"]
    assert "<!-- mlgov-plan-comment -->" in script
    assert step["env"]["COMMENT"] == "${{ runner.temp }}/comment.md"
    assert "updateComment" in script
    assert "createComment" in script
    assert _pr()["jobs"]["offline"]["permissions"]["pull-requests"] == "write"


def test_the_comment_marker_is_the_one_mlgov_comment_writes() -> None:
    from governance.tools.comment import MARKER

    steps = _pr()["jobs"]["offline"]["steps"]
    step = next(s for s in steps if s.get("name") == "Post or update the PR comment")
    assert f'const marker = "{MARKER}";' in step["with"]["script"]


def test_preview_job_runs_only_with_credentials() -> None:
    job = _pr()["jobs"]["preview"]
    assert "secrets" not in str(job.get("if", ""))
    assert job["env"]["HAS_GCP"] == "${{ secrets.GCP_WORKLOAD_IDENTITY_PROVIDER != '' }}"
    gated = [s for s in job["steps"] if s.get("name") != "No GCP credentials configured"]
    assert all(s.get("if") == "env.HAS_GCP == 'true'" for s in gated)
    assert job["strategy"]["matrix"]["stack"] == ["dev", "staging", "prod"]
    runs = _runs(job)
    assert "pulumi preview" in runs
    assert "--policy-pack policies" in runs
    assert '--policy-pack-config "policies/config.$STACK.json"' in runs
    for stack in job["strategy"]["matrix"]["stack"]:
        assert (ROOT / "policies" / f"config.{stack}.json").is_file()


def test_actions_are_pinned_to_a_version() -> None:
    for path in WORKFLOWS:
        for job in _load(path)["jobs"].values():
            for step in job.get("steps", []):
                if "uses" in step:
                    assert "@" in step["uses"], step["uses"]


def test_the_pr_report_is_written_from_the_head_plans_and_uploaded() -> None:
    steps = _pr()["jobs"]["offline"]["steps"]
    names = [s.get("name", "") for s in steps]
    write = names.index("Write the cost report (one HTML page that opens offline)")
    assert '-m governance report "${args[@]}" --no-spend' in steps[write]["run"]
    assert '"$RUNNER_TEMP"/plans/head/*.json' in steps[write]["run"]
    upload = steps[write + 1]
    assert upload["uses"].startswith("actions/upload-artifact@v")
    assert upload["with"]["path"] == "${{ runner.temp }}/mlgov-report.html"
    assert write < names.index("Fail on mandatory policy violations")
