"""GitHub workflow files: valid against the vendored schema (offline) and doing the key steps."""

from __future__ import annotations

import os
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
    assert '"$PY" -m governance stacks' in runs  # every stack file, not a fixed list
    assert (
        '-m governance plan --stack "$stack" --json "${pack[@]}" > "$out/head/$stack.json"' in runs
    )
    assert "git worktree add" in runs
    assert "BASE_SHA" in runs
    assert '--json "${base_pack[@]}") > "$out/base/$stack.json"' in runs
    # each side planned with its own policy-pack config (the one the preview gives CrossGuard),
    # so a PR that disables rules shows in the governance diff
    assert 'pack=(--policy-config "policies/config.$stack.json")' in runs
    assert 'base_pack=(--policy-config "policies/config.$stack.json")' in runs
    assert '[ -f "$RUNNER_TEMP/base/policies/config.$stack.json" ]' in runs
    preview = _runs(_pr()["jobs"]["preview"])
    assert '--policy-pack-config "policies/config.$STACK.json"' in preview
    assert 'args+=(--stack "$stack" "$base" "$out/head/$stack.json")' in runs
    assert 'args+=(--failed "$stack" "$out/head/$stack.err")' in runs
    assert '-m governance comment "${args[@]}" --full-report "$out/report.md"' in runs
    assert job["permissions"] == {"contents": "read"}


def test_blocking_stacks_fail_the_job_after_the_comment_is_rendered() -> None:
    steps = _pr()["jobs"]["offline"]["steps"]
    names = [s.get("name", "") for s in steps]
    plans = names.index("Plan every stack at the PR head and base")
    upload = names.index("Upload the comment for the comment job")
    fail = names.index("Fail on blocking stacks")
    assert plans < upload < fail
    assert steps[upload]["if"].startswith("always()")
    assert steps[fail]["if"] == "steps.plans.outputs.status != '0'"
    assert "exit 1" in steps[fail]["run"]


def test_single_sticky_comment_posted_by_a_job_that_runs_no_pr_code() -> None:
    job = _pr()["jobs"]["comment"]
    assert job["needs"] == "offline"
    assert job["permissions"] == {"pull-requests": "write"}
    uses = [step.get("uses", "") for step in job["steps"]]
    assert not any(u.startswith("actions/checkout@") for u in uses)
    assert not any("run" in step for step in job["steps"])
    step = next(s for s in job["steps"] if s.get("name") == "Post or update the PR comment")
    assert step["uses"].startswith("actions/github-script@v")
    script = step["with"]["script"]
    assert "updateComment" in script and "createComment" in script
    assert 'c.user.login === "github-actions[bot]"' in script
    assert step["env"]["COMMENT"] == "${{ runner.temp }}/mlgov-comment/comment.md"
    # no other job may write to the PR
    for name, other in _pr()["jobs"].items():
        if name != "comment":
            assert "pull-requests" not in (other.get("permissions") or {}), name
    assert _pr()["permissions"] == {"contents": "read"}


def test_the_comment_marker_is_the_one_mlgov_comment_writes() -> None:
    from governance.tools.comment import MARKER

    steps = _pr()["jobs"]["comment"]["steps"]
    step = next(s for s in steps if s.get("name") == "Post or update the PR comment")
    assert f'const marker = "{MARKER}";' in step["with"]["script"]


def test_preview_runs_behind_an_environment_with_step_scoped_secrets() -> None:
    job = _pr()["jobs"]["preview"]
    assert job["environment"] == "preview"
    assert "vars.GCP_WORKLOAD_IDENTITY_PROVIDER != ''" in job["if"]
    assert "secrets" not in str(job["if"])
    assert job["permissions"] == {"contents": "read", "id-token": "write"}
    assert "env" not in job  # nothing job-wide: each step gets only what it needs
    assert job["strategy"]["matrix"]["stack"] == ["dev", "staging", "prod"]
    names = [s.get("name") or s.get("uses") for s in job["steps"]]
    install = names.index("Install the project environment (includes pulumi-policy for the pack)")
    auth = next(i for i, n in enumerate(names) if str(n).startswith("google-github-actions/auth"))
    assert install < auth  # PR code installs before any credential exists
    preview = job["steps"][names.index("pulumi preview --policy-pack policies")]
    assert set(preview["env"]) >= {"PULUMI_ACCESS_TOKEN", "PULUMI_CONFIG_PASSPHRASE"}
    assert "pulumi preview" in preview["run"]
    assert "--policy-pack policies" in preview["run"]
    assert '--policy-pack-config "policies/config.$STACK.json"' in preview["run"]
    for stack in job["strategy"]["matrix"]["stack"]:
        assert (ROOT / "policies" / f"config.{stack}.json").is_file()


def _secret_uses(node: Any, where: str) -> list[str]:
    """Paths under `node` whose value references `secrets.`."""
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _secret_uses(v, f"{where}.{k}")]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _secret_uses(v, f"{where}[{i}]")]
    return [where] if "secrets." in str(node) else []


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_secrets_are_step_scoped_and_checkouts_keep_no_token(path: Path) -> None:
    workflow = _load(path)
    assert "secrets." not in yaml.safe_dump(workflow.get("env") or {})
    for name, job in workflow["jobs"].items():
        assert "secrets." not in yaml.safe_dump(job.get("env") or {}), name
        assert "secrets." not in str(job.get("if", "")), name
        for i, step in enumerate(job.get("steps", [])):
            uses = _secret_uses(step, f"{name}.steps[{i}]")
            # only a step's own env may carry a secret, and never a step that checks out code
            assert all(".env." in u for u in uses), uses
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False, (name, i)
    steps_with_secrets = [
        (name, step.get("name"))
        for name, job in workflow["jobs"].items()
        for step in job.get("steps", [])
        if _secret_uses(step, "")
    ]
    assert steps_with_secrets == [("preview", "pulumi preview --policy-pack policies")]


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
    assert '"$RUNNER_TEMP"/mlgov-report/head/*.json' in steps[write]["run"]
    assert '-o "$RUNNER_TEMP/mlgov-report/mlgov-report.html"' in steps[write]["run"]
    # The page travels in the one mlgov-report artifact the comment links to.
    upload = steps[write + 1]
    assert upload["uses"].startswith("actions/upload-artifact@v")
    assert upload["with"]["name"] == "mlgov-report"
    assert upload["with"]["path"] == "${{ runner.temp }}/mlgov-report/"
    assert names.index("Plan every stack at the PR head and base") < write
    assert write < names.index("Fail on blocking stacks")


# ------------------------------------------------------------ the plan step, run for real
FAKE_PY = """#!/usr/bin/env bash
# Stands in for .venv/bin/python: `-m governance stacks` prints $STACKS_<side> (default dev,
# staging, prod) and exits $STACKS_RC, `-m governance plan --stack S --json` exits $RC_<side>_<S>,
# `-m governance comment ...` records its arguments and exits $COMMENT_RC, `-c` runs python.
if [ "$1" = "-c" ]; then exec python3 "$@"; fi
side=head; [ "$PWD" != "$GITHUB_WORKSPACE" ] && side=base
if [ "$3" = "stacks" ]; then
  if [ "${STACKS_RC:-0}" != 0 ]; then exit "$STACKS_RC"; fi
  var="STACKS_${side}"; printf '%b\\n' "${!var:-dev\\nstaging\\nprod}"; exit "${STACKS_RC:-0}"
fi
if [ "$3" = "plan" ]; then
  var="RC_${side}_$5"; echo '{"stack": "'"$5"'", "resources": []}'; exit "${!var:-0}"
fi
if [ "$3" = "comment" ]; then
  shift 3; printf '%s\\n' "$@" > "$RUNNER_TEMP/comment-args"; echo "<!-- mlgov-plan-comment -->"
  exit "${COMMENT_RC:-0}"
fi
exit 99
"""


def _run_plan_step(tmp_path: Path, env: dict[str, str]) -> tuple[int, list[str], str]:
    """Run the offline job's plan step in a scratch git repository with a fake `$PY`."""
    step = next(
        s for s in _pr()["jobs"]["offline"]["steps"]
        if s.get("name") == "Plan every stack at the PR head and base"
    )  # fmt: skip
    work, temp = tmp_path / "work", tmp_path / "runner"
    (work / ".venv" / "bin").mkdir(parents=True)
    temp.mkdir()
    fake = work / ".venv" / "bin" / "python"
    fake.write_text(FAKE_PY)
    fake.chmod(0o755)
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "base"], check=True)
    sha = subprocess.run(
        ["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    output = tmp_path / "github-output"
    full_env = {
        "PATH": os.environ["PATH"], "HOME": str(tmp_path), "PY": ".venv/bin/python",
        "GITHUB_WORKSPACE": str(work), "RUNNER_TEMP": str(temp), "GITHUB_OUTPUT": str(output),
        "BASE_SHA": sha, "REPORT_URL": "https://example.test/run", **env,
    }  # fmt: skip
    result = subprocess.run(
        ["bash", "-e", "-c", step["run"]], cwd=work, env=full_env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    args = (
        (temp / "comment-args").read_text().splitlines() if (temp / "comment-args").exists() else []
    )
    return result.returncode, args, output.read_text() if output.exists() else result.stderr


@pytest.mark.parametrize(
    ("codes", "failed", "status"),
    [
        ({}, [], "0"),
        ({"RC_head_dev": "1"}, [], "1"),  # a mandatory finding: planned, and it blocks
        ({"RC_head_staging": "2"}, ["staging"], "1"),  # invalid input: the plan failed
        ({"RC_head_prod": "3"}, ["prod"], "1"),  # anything else too, never "planned"
        ({"RC_head_prod": "70"}, ["prod"], "1"),
        ({"RC_head_dev": "130"}, ["dev"], "1"),
    ],
)
def test_only_exit_codes_0_and_1_count_as_planned(tmp_path: Path, codes, failed, status) -> None:
    rc, args, output = _run_plan_step(tmp_path, codes)
    assert rc == 0, output
    assert f"status={status}" in output
    assert [args[i + 1] for i, a in enumerate(args) if a == "--failed"] == failed
    planned = [args[i + 1] for i, a in enumerate(args) if a == "--stack"]
    assert planned == [s for s in ("dev", "staging", "prod") if s not in failed]
    assert "--full-report" in args and "--report-url" in args


@pytest.mark.parametrize(("base_rc", "has_base"), [("0", True), ("1", True), ("2", False),
                                                   ("3", False)])  # fmt: skip
def test_a_base_plan_counts_only_with_exit_0_or_1(tmp_path: Path, base_rc, has_base) -> None:
    _, args, _ = _run_plan_step(tmp_path, {"RC_base_prod": base_rc})
    i = args.index("prod")
    assert (args[i + 1] != "none") is has_base


@pytest.mark.parametrize(("comment_rc", "status"), [("0", "0"), ("1", "1"), ("2", "1")])
def test_the_comments_exit_code_blocks_too(tmp_path: Path, comment_rc, status) -> None:
    rc, _, output = _run_plan_step(tmp_path, {"COMMENT_RC": comment_rc})
    assert rc == 0 and f"status={status}" in output


def test_a_stack_file_the_pr_adds_is_planned_too(tmp_path: Path) -> None:
    # A PR adding Pulumi.prod_eu.yaml: planned at the head (the base has none), not left out.
    # (The fake's exit-code variables cannot hold a hyphen; the workflow quotes every name.)
    rc, args, output = _run_plan_step(tmp_path, {"STACKS_head": "dev\\nstaging\\nprod\\nprod_eu"})
    assert rc == 0 and "status=0" in output
    planned = [args[i + 1] for i, a in enumerate(args) if a == "--stack"]
    assert planned == ["dev", "staging", "prod", "prod_eu"]


def test_a_stack_file_the_pr_removes_blocks_and_is_named(tmp_path: Path) -> None:
    # The base has a qa stack the head lost (removed or renamed): named as failed, and it blocks.
    rc, args, output = _run_plan_step(tmp_path, {"STACKS_base": "dev\\nstaging\\nprod\\nqa"})
    assert rc == 0 and "status=1" in output
    failed = [args[i + 1] for i, a in enumerate(args) if a == "--failed"]
    assert failed == ["qa"]
    error_file = Path(args[args.index("qa") + 1])
    assert "the base has this stack's file and the PR head has not" in error_file.read_text()


def test_unknown_stacks_block(tmp_path: Path) -> None:
    # `mlgov stacks` failing (a broken Pulumi.yaml at the head) is never "nothing to plan".
    rc, args, output = _run_plan_step(tmp_path, {"STACKS_RC": "2"})
    assert rc == 0 and "status=1" in output
    assert [a for a in args if a == "--stack"] == []
