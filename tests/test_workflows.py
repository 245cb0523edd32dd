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


def _workflow(name: str) -> dict[Any, Any]:
    data = _load(ROOT / ".github" / "workflows" / name)
    if True in data:  # YAML 1.1 (PyYAML) reads the key `on` as true
        data["on"] = data.pop(True)
    return data


def _step(workflow: str, name: str) -> dict[Any, Any]:
    return next(
        s for job in _workflow(workflow)["jobs"].values() for s in job.get("steps", [])
        if s.get("name") == name
    )  # fmt: skip


PLAN_STEP = "Plan every stack (the PR's own program; its plans are data for the judge)"
JUDGE_STEP = "Judge every stack with the base's mlgov"


def test_offline_job_runs_the_tests_and_needs_no_credentials() -> None:
    job = _pr()["jobs"]["offline"]
    text = yaml.safe_dump(job)
    assert "secrets." not in text
    uses = [step.get("uses", "") for step in job["steps"]]
    assert any(u.startswith("actions/checkout@v") for u in uses)
    setup = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python@v"))
    assert str(setup["with"]["python-version"]) == "3.11"
    assert "make test" in _runs(job)
    assert job["permissions"] == {"contents": "read"}
    # The verdict is no longer this file's (a PR can edit it): no plan, no comment here.
    assert "governance comment" not in yaml.safe_dump(_pr())
    assert set(_pr()["jobs"]) == {"offline", "preview"}


def test_the_pr_program_only_produces_plans_before_anything_else_of_it_runs() -> None:
    plan = _workflow("plan.yml")
    assert plan["name"] == "plan"
    assert set(plan["on"]) == {"pull_request", "pull_request_review", "push"}
    # a review re-runs the plan, and with it the judge, which reads the new review state
    assert plan["on"]["pull_request_review"] == {"types": ["submitted", "dismissed"]}
    job = plan["jobs"]["plan"]
    assert job["permissions"] == {"contents": "read"} and plan["permissions"] == {
        "contents": "read"
    }
    names = [s.get("name") or s.get("uses") for s in job["steps"]]
    assert names.index("Install the project environment") < names.index(PLAN_STEP)
    assert "make test" not in _runs(job)  # the PR's tests never run before (or beside) its plans
    run = _step("plan.yml", PLAN_STEP)["run"]
    assert '"$PY" -P -m governance plan --stack "$stack" --json "${pack[@]}"' in run
    assert '"$PY" -P -m governance stacks' in run
    upload = next(
        s for s in job["steps"] if s.get("name") == "Upload the plans for the judge (data)"
    )
    assert upload["with"]["name"] == "mlgov-head"


def test_the_judge_runs_from_the_default_branch_and_never_runs_the_prs_code() -> None:
    judge = _workflow("judge.yml")
    # workflow_run: GitHub runs the default branch's copy of this file, never the PR's
    assert judge["on"] == {"workflow_run": {"workflows": ["plan"], "types": ["completed"]}}
    assert judge["permissions"] == {}
    job = judge["jobs"]["judge"]
    assert job["permissions"] == {"contents": "read", "actions": "read", "pull-requests": "read"}
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["path"] == "pr" and checkout["with"]["persist-credentials"] is False
    runs = _runs(job)
    # the only thing built or run from a checkout is the base's (the PR's is data)
    assert "make -C base install PY_BOOT=python" in runs
    assert "make -C pr" not in runs and "pr/.venv" not in runs
    run = _step("judge.yml", JUDGE_STEP)["run"]
    assert 'judge() { env -u GITHUB_TOKEN "$JUDGE_PY" -P -m governance "$@"; }' in run
    # every mlgov the step starts is the judge's, with -P (the function above, or approvals)
    starts = [line for line in run.splitlines() if "-m governance" in line]
    assert starts and all('"$JUDGE_PY" -P -m governance' in line for line in starts), starts
    assert '"$PY"' not in run  # never the PR's environment
    assert "--untrusted-head" in run and "--base-failed" in run and "--changed-files" in run


def test_the_comment_and_status_are_posted_by_a_job_that_runs_nothing() -> None:
    job = _workflow("judge.yml")["jobs"]["post"]
    assert job["needs"] == "judge"
    assert job["permissions"] == {"pull-requests": "write", "statuses": "write"}
    uses = [step.get("uses", "") for step in job["steps"]]
    assert not any(u.startswith("actions/checkout@") for u in uses)
    assert not any("run" in step for step in job["steps"])
    step = job["steps"][-1]
    script = step["with"]["script"]
    assert "updateComment" in script and "createComment" in script
    assert 'c.user.login === "github-actions[bot]"' in script
    assert 'context: "mlgov/judge"' in script and "createCommitStatus" in script
    # no other job of any workflow may write to the PR
    for path in WORKFLOWS:
        for name, other in _load(path)["jobs"].items():
            if (path.name, name) != ("judge.yml", "post"):
                permissions = other.get("permissions") or {}
                assert "pull-requests" not in permissions or permissions["pull-requests"] == "read"
                assert "statuses" not in permissions, (path.name, name)


def test_the_comment_marker_is_the_one_mlgov_comment_writes() -> None:
    from governance.tools.comment import MARKER

    script = _workflow("judge.yml")["jobs"]["post"]["steps"][-1]["with"]["script"]
    assert f'const marker = "{MARKER}";' in script
    assert f'"{MARKER}"' in _step("judge.yml", JUDGE_STEP)["run"]


def test_codeowners_covers_everything_that_runs_in_the_check_or_decides_what_deploys() -> None:
    from governance.tools.judge.code import decides_governance
    from governance.tools.judge.owners import OwnerRules

    rules = OwnerRules((ROOT / ".github" / "CODEOWNERS").read_text())
    tracked = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.split()
    named = ["governance/x.py", "functions/main.py", "policies/__main__.py", "tests/conftest.py",
             "__main__.py", "textwrap.py", "Pulumi.yaml", "Pulumi.json", "Makefile",
             "pyproject.toml", "uv.lock", "mkdocs.yml", ".github/workflows/judge.yml",
             ".ci/run", "uv.toml", "yaml/__init__.py", "docs/hooks.py"]  # fmt: skip
    for path in [*tracked, *named]:
        if decides_governance(path):
            assert rules.of(path).any, path  # someone can approve every such file
    assert not rules.of("README.md").any and not rules.of("docs/guides/x.md").any


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
    expected = (
        [("preview", "pulumi preview --policy-pack policies")] if path.name == "pr.yml" else []
    )
    assert steps_with_secrets == expected


def test_actions_are_pinned_to_a_version() -> None:
    for path in WORKFLOWS:
        for job in _load(path)["jobs"].values():
            for step in job.get("steps", []):
                if "uses" in step:
                    assert "@" in step["uses"], step["uses"]


# ------------------------------------------------------------ the judge step, run for real
FAKE_JUDGE = """#!/usr/bin/env bash
# Stands in for the judge's python (`-P -m governance CMD ...`): the side is the folder it runs in
# ($BASE or $PR_TREE). `stacks` prints $STACKS_<side> (default dev, prod) and exits $STACKS_RC_<side>;
# `plan --stack S` exits $RC_<side>_<S> (and counts itself in $RUNNER_TEMP/plans-<side>);
# `governance-code` prints $CODE; `comment` records its arguments and exits $COMMENT_RC. Each
# call records whether it saw a GITHUB_TOKEN.
[ "$1" = "-P" ] && [ "$2" = "-m" ] && [ "$3" = "governance" ] || exit 98
cmd="$4"; shift 4
side=base; [ "$PWD" = "$PR_TREE" ] && side=head
echo "$cmd ${GITHUB_TOKEN:+token}" >> "$RUNNER_TEMP/calls"
case "$cmd" in
  stacks)
    var="STACKS_RC_${side}"; [ "${!var:-0}" = 0 ] || exit "${!var}"
    var="STACKS_${side}"; printf '%b\\n' "${!var:-dev\\nprod}"; exit 0 ;;
  governance-code) printf '%b' "${CODE:-}"; exit 0 ;;
  plan)
    echo "$2" >> "$RUNNER_TEMP/plans-$side"
    var="RC_${side}_${2//-/_}"; echo '{"stack": "'"$2"'", "resources": []}'; exit "${!var:-0}" ;;
  approvals) echo '{"approved_by": []}'; exit 0 ;;
  comment)
    printf '%s\\n' "$@" > "$RUNNER_TEMP/comment-args"; echo "<!-- mlgov-plan-comment -->"
    exit "${COMMENT_RC:-0}" ;;
esac
exit 99
"""


def _judge_step(
    tmp_path: Path,
    env: dict[str, str],
    pr_edit: Any = None,
    head_plans: dict[str, str] | None = None,
) -> tuple[str, list[str], str, Path]:
    """Run judge.yml's judge step on a scratch PR with a fake judge; (status, comment args,
    comment, runner temp)."""
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    repo, runner = tmp_path / "pr", tmp_path / "runner"
    repo.mkdir()
    runner.mkdir()
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("base\n")
    subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "base"], check=True)

    def sha(ref: str) -> str:
        return subprocess.run(["git", "-C", str(repo), "rev-parse", ref], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip

    base = sha("HEAD")
    (repo / "README.md").write_text("head\n")
    if pr_edit is not None:
        pr_edit(repo)
    subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "head"], check=True)
    head = sha("HEAD")
    merge = subprocess.run(
        [*git, "-C", str(repo), "commit-tree", sha("HEAD^{tree}"), "-p", base, "-p", head, "-m", "m"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    subprocess.run([*git, "-C", str(repo), "checkout", "-q", "--detach", merge], check=True)
    subprocess.run([*git, "-C", str(repo), "worktree", "add", "-q", "--detach",
                    str(tmp_path / "base"), base], check=True)  # fmt: skip
    fake = tmp_path / "judge-python"
    fake.write_text(FAKE_JUDGE)
    fake.chmod(0o755)
    plans = tmp_path / "head-plans"
    plans.mkdir()
    for name, text in (head_plans or {}).items():
        (plans / name).write_text(text)
    full_env = {
        "PATH": os.environ["PATH"], "HOME": str(tmp_path), "JUDGE_PY": str(fake),
        "BASE": str(tmp_path / "base"), "PR_TREE": str(repo), "HEAD_PLANS": str(plans),
        "MERGE_SHA": merge, "HEAD_SHA": head, "PR_NUMBER": "7", "REPORT_URL": "https://x.test/r",
        "GITHUB_REPOSITORY": "acme/ml", "GITHUB_TOKEN": "ghs_token", "RUNNER_TEMP": str(runner),
        "GITHUB_OUTPUT": str(tmp_path / "output"), **env,
    }  # fmt: skip
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step("judge.yml", JUDGE_STEP)["run"]],
        cwd=tmp_path, env=full_env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    output = (tmp_path / "output").read_text()
    status = output.split("status=", 1)[1].strip()
    args_file = runner / "comment-args"
    args = args_file.read_text().splitlines() if args_file.exists() else []
    comment = (runner / "mlgov-comment" / "comment.md").read_text()
    return status, args, comment, runner


def _named(args: list[str], flag: str) -> list[str]:
    return [args[i + 1] for i, a in enumerate(args) if a == flag]


@pytest.mark.parametrize(
    ("codes", "stacks", "failed", "base_failed", "status"),
    [
        ({}, ["dev", "prod"], [], [], "0"),
        ({"RC_head_dev": "1"}, ["dev", "prod"], [], [], "0"),  # planned; the comment decides
        ({"RC_head_dev": "2"}, ["prod"], ["dev"], [], "0"),
        ({"RC_head_prod": "70"}, ["dev"], ["prod"], [], "0"),
        ({"RC_base_prod": "2"}, ["dev"], [], ["prod"], "0"),  # never "no base"
        ({"RC_base_prod": "3"}, ["dev"], [], ["prod"], "0"),
    ],
)  # fmt: skip
def test_each_stack_is_planned_on_both_sides_by_the_judge(
    tmp_path: Path, codes, stacks, failed, base_failed, status
) -> None:
    got, args, _, runner = _judge_step(tmp_path, codes)
    assert got == status  # the fake comment exits 0: the verdict is the comment's exit code
    assert _named(args, "--stack") == stacks
    assert _named(args, "--failed") == failed
    assert _named(args, "--base-failed") == base_failed
    assert "--untrusted-head" not in args  # no governance code changed: the judge planned the head
    assert (runner / "plans-head").read_text().split() == ["dev", "prod"]
    calls = (runner / "calls").read_text().splitlines()
    assert all(not line.endswith("token") for line in calls)  # no call saw the token


@pytest.mark.parametrize(("comment_rc", "status"), [("0", "0"), ("1", "1"), ("2", "1"), ("3", "1")])
def test_the_comments_exit_code_is_the_verdict(tmp_path: Path, comment_rc, status) -> None:
    assert _judge_step(tmp_path, {"COMMENT_RC": comment_rc})[0] == status


def test_a_new_stack_is_judged_on_its_own_and_a_removed_one_blocks(tmp_path: Path) -> None:
    _, args, _, _ = _judge_step(
        tmp_path, {"STACKS_head": "dev\\nprod-eu", "STACKS_base": "dev\\nqa"}
    )
    i = args.index("prod-eu")
    assert args[i - 1 : i + 2] == ["--stack", "prod-eu", "none"]
    assert _named(args, "--failed") == ["qa"]
    message = Path(args[args.index("qa") + 1]).read_text()
    assert "the base has this stack's file and the PR head has not" in message


def test_governance_code_reads_the_prs_plans_as_untrusted_data(tmp_path: Path) -> None:
    plans = {"prod.json": '{"stack": "prod"}', "prod.rc": "1\n", "dev.json": "{}", "dev.rc": "2",
             "dev.err": "boom"}  # fmt: skip
    _, args, _, runner = _judge_step(tmp_path, {"CODE": "governance/x.py\\n"}, head_plans=plans)
    assert "--untrusted-head" in args
    assert _named(args, "--stack") == ["prod"]
    assert _named(args, "--failed") == ["dev"]  # the PR's own program failed it: named, blocks
    head = Path(args[args.index("prod") + 2])
    assert head.read_text() == '{"stack": "prod"}'
    assert not (runner / "plans-head").exists()  # the PR's stacks were not planned by the judge
    assert "--approvals" in args and "--changed-files" in args
    calls = (runner / "calls").read_text().splitlines()
    assert "approvals token" in calls  # the review state is read with the token ...
    assert [c for c in calls if c.endswith("token")] == ["approvals token"]  # ... nothing else


def test_a_missing_plan_from_the_pr_is_a_failed_stack(tmp_path: Path) -> None:
    _, args, _, _ = _judge_step(tmp_path, {"CODE": "Makefile\\n"}, head_plans={})
    assert _named(args, "--failed") == ["dev", "prod"]


def test_the_base_plans_are_reused_for_the_same_base_tree(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = tmp_path / "one"
    first.mkdir()
    _, _, _, runner = _judge_step(first, {"BASE_PLANS_CACHE": str(cache)})
    assert (runner / "plans-base").read_text().split() == ["dev", "prod"]
    second = tmp_path / "two"
    second.mkdir()
    _, args, _, runner = _judge_step(second, {"BASE_PLANS_CACHE": str(cache)})
    assert not (runner / "plans-base").exists()
    assert _named(args, "--stack") == ["dev", "prod"]


@pytest.mark.parametrize(
    ("edit", "env", "why"),
    [
        (lambda repo: (repo / "stacks").mkdir() or (repo / "stacks" / "Pulumi.prod.yaml")
         .symlink_to("/proc/self/environ"), {}, "the PR adds or changes a symbolic link"),
        (None, {"HEAD_SHA": "0" * 40}, "does not merge the PR's head"),
        (None, {"STACKS_RC_head": "2"}, "the PR's stacks are unknown"),
    ],
)  # fmt: skip
def test_what_the_judge_cannot_vouch_for_blocks_with_its_reason(
    tmp_path: Path, edit, env, why
) -> None:
    status, args, comment, _ = _judge_step(tmp_path, env, pr_edit=edit)
    assert status == "1" and args == []
    assert comment.startswith("<!-- mlgov-plan-comment -->")
    assert why in comment
