"""GitHub workflow files: valid against the vendored schema (offline) and doing the key steps."""

from __future__ import annotations

import copy
import functools
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))


def _load(path: Path) -> dict[Any, Any]:
    """The workflow file at `path`, parsed; each caller gets its own copy to read or change."""
    return copy.deepcopy(_parsed(path.read_text()))


@functools.cache
def _parsed(text: str) -> Any:
    # PyYAML's pure-Python parser takes ~0.1 s for judge.yml, and the tests read the same few
    # files ~100 times: each text is parsed once (keyed by the text, so an edited file is read
    # again); _load hands out copies, so no test sees another's changes.
    return yaml.safe_load(text)


@dataclass(frozen=True)
class SchemaCheck:
    returncode: int
    output: str


def _schema_check(path: Path) -> SchemaCheck:
    """`check-jsonschema --builtin-schema vendor.github-workflows PATH`, run in this process.

    The command's own click entry point, through click's test runner: the vendored schema and
    the validation are the command's; only a new interpreter per file is saved.
    """
    from check_jsonschema.cli import main
    from click.testing import CliRunner

    done = CliRunner().invoke(main, ["--builtin-schema", "vendor.github-workflows", str(path)])
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception  # the check itself broke: not a verdict on the file
    return SchemaCheck(done.exit_code, done.output)


def _pr() -> dict[Any, Any]:
    return _load(ROOT / ".github" / "workflows" / "pr.yml")


def _runs(job: dict[Any, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_there_are_workflows() -> None:
    assert ROOT / ".github" / "workflows" / "pr.yml" in WORKFLOWS


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_workflow_matches_schema(path: Path) -> None:
    result = _schema_check(path)
    assert result.returncode == 0, result.output


def test_schema_check_can_fail(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "name: x\non: pull_request\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    stepz: []\n"
    )
    result = _schema_check(broken)
    assert result.returncode == 1, result.output  # invalid, not a crash of the check itself
    assert "stepz" in result.output


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
    assert "make test e2e" in _runs(job)  # the fast loop and the end-to-end runs: every test
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
    # every stack in one process (the fake-python test below runs it); never the base: the base
    # is planned by the judge, with the base's own mlgov
    starts = [line.strip() for line in run.splitlines() if "-m governance" in line]
    assert starts == [
        '"$PY" -P -m governance plan --all --out-dir "$out" --policy-config-dir policies \\'
    ]
    code = "\n".join(line for line in run.splitlines() if not line.strip().startswith("#"))
    assert "--base" not in code and "--cache-dir" not in code
    upload = next(
        s for s in job["steps"] if s.get("name") == "Upload the plans for the judge (data)"
    )
    assert upload["with"]["name"] == "mlgov-head"


def test_the_judge_runs_from_the_default_branch_and_never_runs_the_prs_code() -> None:
    judge = _workflow("judge.yml")
    # workflow_run: GitHub runs the default branch's copy of this file, never the PR's; a push
    # to the default branch runs only `warm`
    assert judge["on"] == {
        "workflow_run": {"workflows": ["plan"], "types": ["completed"]},
        "push": {"branches": ["main"]},
    }
    assert "github.event.workflow_run.event == 'pull_request'" in judge["jobs"]["judge"]["if"]
    assert judge["jobs"]["warm"]["if"] == (
        "github.event_name == 'push' && "
        "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)"
    )
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
    # the comment links the full report where it is: this run's mlgov-judge artifact
    assert '--full-report "$out/report.md" --report-url "$REPORT_URL"' in run
    assert _step("judge.yml", JUDGE_STEP)["env"]["REPORT_URL"] == (
        "${{ github.server_url }}/${{ github.repository }}/actions/runs/${{ github.run_id }}"
    )
    upload = next(
        s for s in job["steps"] if s.get("name") == "Upload the comment and the full report"
    )
    assert upload["with"]["name"] == "mlgov-judge" and "mlgov-judge/" in upload["with"]["path"]


def _uses(job: dict[Any, Any], action: str) -> list[dict[Any, Any]]:
    return [s for s in job["steps"] if s.get("uses", "").split("@")[0] == action]


def test_nothing_of_the_base_is_installed_or_run_before_the_commit_is_vouched_for() -> None:
    job = _workflow("judge.yml")["jobs"]["judge"]
    names = [s.get("name") or s["uses"] for s in job["steps"]]
    vouch = names.index(VOUCH_STEP)
    assert names.index("Check out the PR's merge commit (data only; nothing from it runs)") < vouch
    # the only steps before it: the artifact (data), GitHub's word on the PR, the data checkout
    assert [s.get("uses", "").split("@")[0] for s in job["steps"][:vouch]] == [
        "actions/download-artifact", "actions/github-script", "actions/checkout"
    ]  # fmt: skip
    for step in job["steps"][vouch + 1 :]:
        runs_code = "run" in step or step.get("uses", "").startswith("actions/setup-python@")
        if runs_code and step.get("id") != "judge":  # the judge step refuses first ($REFUSED)
            assert step["if"] == "steps.vouch.outputs.refused == ''", step.get("name")
    assert _step("judge.yml", JUDGE_STEP)["env"]["REFUSED"] == "${{ steps.vouch.outputs.refused }}"
    assert '[ -z "${REFUSED:-}" ] || refuse "$REFUSED"' in _step("judge.yml", JUDGE_STEP)["run"]
    # the base is checked out by the vouch step itself, after its checks
    run = _step("judge.yml", VOUCH_STEP)["run"]
    assert run.index("merge-tree --write-tree") < run.index("worktree add")
    assert not any(
        "worktree add" in s.get("run", "") for s in job["steps"] if s.get("id") != "vouch"
    )


CACHE_KEY = "mlgov-judge-base-plans-v1-${{ runner.os }}-%s-${{ vars.MLGOV_JUDGE_VERSION }}"


def test_only_a_push_to_the_default_branch_writes_the_base_plans_cache() -> None:
    # No run a pull request starts can write the entries the judge reads: the judge restores by
    # the exact key of the vouched base commit (no prefix fallback), never saves; the one writer
    # is `warm`, which runs on a push to the default branch only (docs/reference/policies.md).
    for path in WORKFLOWS:
        for name, job in _workflow(path.name)["jobs"].items():
            saves = _uses(job, "actions/cache") + _uses(job, "actions/cache/save")
            if (path.name, name) == ("judge.yml", "warm"):
                (save,) = saves
                assert save["with"]["key"] == CACHE_KEY % "${{ github.sha }}"
                assert save["with"]["path"] == "${{ runner.temp }}/mlgov-base-cache"
            else:
                assert saves == [], (path.name, name)
    judge = _workflow("judge.yml")["jobs"]["judge"]
    (restore,) = _uses(judge, "actions/cache/restore")
    assert restore["if"] == "steps.vouch.outputs.cache == 'true'"
    assert restore["with"] == {
        "path": "${{ runner.temp }}/mlgov-base-cache",
        "key": CACHE_KEY % "${{ steps.vouch.outputs.base_sha }}",
    }  # no restore-keys: a prefix would match an entry made for another commit
    env = _step("judge.yml", JUDGE_STEP)["env"]
    assert env["BASE_PLANS_CACHE"] == (
        "${{ steps.vouch.outputs.cache == 'true' && "
        "format('{0}/mlgov-base-cache', runner.temp) || '' }}"
    )
    assert _step("judge.yml", VOUCH_STEP)["env"]["DEFAULT_BRANCH"] == (
        "${{ github.event.repository.default_branch }}"
    )


def test_warm_plans_the_base_as_the_judge_does() -> None:
    jobs = _workflow("judge.yml")["jobs"]
    install = "Install the judge (the base's mlgov, or the pinned release MLGOV_JUDGE_VERSION)"
    judge_install, warm_install = (
        next(s for s in jobs[j]["steps"] if s.get("name") == install) for j in ("judge", "warm")
    )
    # the same environment, so the entries' keys (interpreter, installed packages) match
    assert (
        judge_install["run"] == warm_install["run"] and judge_install["env"] == warm_install["env"]
    )
    setup = [_uses(jobs[j], "actions/setup-python")[0]["with"] for j in ("judge", "warm")]
    assert setup[0] == setup[1]
    (checkout,) = _uses(jobs["warm"], "actions/checkout")
    assert checkout["with"] == {"path": "base", "persist-credentials": False}
    assert jobs["warm"]["permissions"] == {"contents": "read"}
    plan = next(s["run"] for s in jobs["warm"]["steps"] if "governance plan" in s.get("run", ""))
    assert '"$JUDGE_PY" -P -m governance plan --all' in plan
    assert '--policy-config-dir policies --cache-dir "$BASE_PLANS_CACHE"' in plan
    assert "--policy-config-dir policies" in _step("judge.yml", JUDGE_STEP)["run"]


POST_STEP = "Post or update the PR comment (mlgov comment --post github)"
POSTER_INSTALL = (
    "Install the poster (the default branch's mlgov, or the pinned release MLGOV_JUDGE_VERSION)"
)


def test_the_comment_and_status_are_posted_by_the_default_branchs_mlgov() -> None:
    job = _workflow("judge.yml")["jobs"]["post"]
    assert job["needs"] == "judge"
    # contents: read for the poster's checkout; the writes are the comment and the status
    assert job["permissions"] == {
        "contents": "read", "pull-requests": "write", "statuses": "write"
    }  # fmt: skip
    # the one checkout is the commit this workflow file comes from: never the PR's, nor its base
    (checkout,) = _uses(job, "actions/checkout")
    assert checkout["with"] == {
        "ref": "${{ github.sha }}", "path": "poster", "persist-credentials": False
    }  # fmt: skip
    install = next(s for s in job["steps"] if s.get("name") == POSTER_INSTALL)
    assert "make -C poster install PY_BOOT=python" in install["run"]
    assert "GITHUB_TOKEN" not in yaml.safe_dump(install)
    # the token reaches the posting step alone, which runs the poster's mlgov with -P
    post = _step("judge.yml", POST_STEP)
    assert post["env"]["GITHUB_TOKEN"] == "${{ github.token }}"
    assert [s.get("name") for s in job["steps"] if "github.token" in yaml.safe_dump(s)] == [
        POST_STEP
    ]
    assert (
        '"$POSTER_PY" -P -m governance comment --post github --pr "$PR" --body-file "$COMMENT"'
        in post["run"]
    )
    assert post["env"]["PR"] == "${{ needs.judge.outputs.pr }}"
    # the verdict: the commit status on the PR's head commit, also when posting failed
    status = job["steps"][-1]
    assert status["if"] == "${{ !cancelled() }}"
    script = status["with"]["script"]
    assert 'context: "mlgov/judge"' in script and "createCommitStatus" in script
    assert "createComment" not in script and "updateComment" not in script
    # no other job of any workflow may write to the PR
    for path in WORKFLOWS:
        for name, other in _load(path)["jobs"].items():
            if (path.name, name) != ("judge.yml", "post"):
                permissions = other.get("permissions") or {}
                assert "pull-requests" not in permissions or permissions["pull-requests"] == "read"
                assert "statuses" not in permissions, (path.name, name)


def test_the_comment_marker_is_the_one_mlgov_comment_writes() -> None:
    from governance.review.comment import MARKER

    assert f'marker="{MARKER}"' in _step("judge.yml", POST_STEP)["run"]
    assert f'"{MARKER}"' in _step("judge.yml", JUDGE_STEP)["run"]


def _run_post_step(tmp_path: Path, github: Any, comment: str | None) -> subprocess.CompletedProcess:
    """judge.yml's posting step, run by bash with this checkout's mlgov as the poster."""
    temp = tmp_path / "runner"
    (temp / "mlgov-judge" / "mlgov-comment").mkdir(parents=True)
    path = temp / "mlgov-judge" / "mlgov-comment" / "comment.md"
    if comment is not None:
        path.write_text(comment)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "RUNNER_TEMP": str(temp),
        "POSTER_PY": str(ROOT / ".venv" / "bin" / "python"),
        "COMMENT": str(path),
        "PR": str(github.number),
        "GITHUB_TOKEN": github.token,
        "GITHUB_REPOSITORY": github.repo,
        "GITHUB_API_URL": github.url,
    }
    return subprocess.run(
        ["bash", "-e", "-c", _step("judge.yml", POST_STEP)["run"]],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.e2e  # a real workflow step, run by bash (each post a process of its own)
def test_the_posting_step_creates_then_updates_the_one_comment(tmp_path: Path) -> None:
    from governance.review.comment import MARKER
    from tests.judge.fake_github import FakeGitHub, serve

    with serve(FakeGitHub(token="ghs_post")) as github:
        github.comment("mallory", f"{MARKER}\nnot the bot's")
        first = _run_post_step(tmp_path / "1", github, f"{MARKER}\n## verdict one\n")
        assert first.returncode == 0, first.stderr
        second = _run_post_step(tmp_path / "2", github, f"{MARKER}\n## verdict two\n")
        assert second.returncode == 0, second.stderr
        assert [w[0] for w in github.writes] == ["POST", "PATCH"]
        assert [c["body"] for c in github.comments] == [
            f"{MARKER}\nnot the bot's", f"{MARKER}\n## verdict two\n"
        ]  # fmt: skip
        # a judge that wrote no comment: the fallback, in the same comment
        third = _run_post_step(tmp_path / "3", github, None)
        assert third.returncode == 0, third.stderr
        assert github.comments[1]["body"] == (
            f"{MARKER}\n## mlgov plan\n\nThe judge failed before writing a comment; see the "
            "judge run.\n"
        )
        # GitHub refusing the token fails the step, named, with no traceback
        github.read_only = True
        refused = _run_post_step(tmp_path / "4", github, f"{MARKER}\n## verdict\n")
        assert refused.returncode == 4
        assert "the token may not write to pull requests" in refused.stderr
        assert "Traceback" not in refused.stderr


def test_codeowners_covers_everything_that_runs_in_the_check_or_decides_what_deploys() -> None:
    from governance.review.judge.code import decides_governance
    from governance.review.judge.owners import OwnerRules

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
# `plan --stack=S ... --out-dir DIR` records its arguments as one line of $RUNNER_TEMP/plans-<side>
# (one line per process), then writes DIR/S.json (exit 0 or 1), DIR/S.err and DIR/status.tsv as
# `mlgov plan --out-dir` does, stack S ending with $RC_<side>_<S>; with $PLAN_DIES_<side> it
# writes nothing and exits 3. `governance-code` prints $CODE; `comment` records its arguments and
# exits $COMMENT_RC. Each call records whether it saw a GITHUB_TOKEN.
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
    echo "$*" >> "$RUNNER_TEMP/plans-$side"
    var="PLAN_DIES_${side}"; [ -z "${!var:-}" ] || { echo "fake: died" >&2; exit 3; }
    stacks=(); dir=""
    while [ $# -gt 0 ]; do
      case "$1" in --stack=*) stacks+=("${1#--stack=}") ;; --out-dir) dir="$2"; shift ;; esac
      shift
    done
    mkdir -p "$dir"; : > "$dir/status.tsv"; worst=0
    for s in "${stacks[@]}"; do
      var="RC_${side}_${s//-/_}"; rc="${!var:-0}"
      if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
        echo '{"stack": "'"$s"'", "resources": []}' > "$dir/$s.json"
      fi
      echo "fake plan of $s at the $side" > "$dir/$s.err"
      printf '%s\\t%s\\t%s\\n' "$s" "$rc" fake >> "$dir/status.tsv"
      [ "$rc" -le "$worst" ] || worst="$rc"
    done
    echo "fake: planned ${stacks[*]}" >&2
    exit "$worst" ;;
  approvals) echo '{"approved_by": []}'; exit 0 ;;
  comment)
    printf '%s\\n' "$@" > "$RUNNER_TEMP/comment-args"; echo "<!-- mlgov-plan-comment -->"
    exit "${COMMENT_RC:-0}" ;;
esac
exit 99
"""

VOUCH_STEP = "Check that the planned commit is GitHub's merge of this PR, and check out its base"


@dataclass
class Judged:
    """What judge.yml's vouch and judge steps left, run by bash with a fake judge."""

    status: str
    args: list[str]
    comment: str
    runner: Path
    log: str
    vouched: dict[str, str]

    def plans(self, side: str) -> list[list[str]]:
        """The arguments of each `plan` process the judge ran on one side (`base`, `head`)."""
        path = self.runner / f"plans-{side}"
        return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def _git(*args: str, cwd: Path) -> str:
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-C", str(cwd)]
    return subprocess.run([*git, *args], capture_output=True, text=True, check=True).stdout.strip()


def _outputs(path: Path) -> dict[str, str]:
    text = path.read_text() if path.exists() else ""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def _run(step: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step("judge.yml", step)["run"]],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def _judge_step(
    tmp_path: Path,
    env: dict[str, str],
    pr_edit: Any = None,
    head_plans: dict[str, str] | None = None,
    merge_of: Any = None,
) -> Judged:
    """Run judge.yml's vouch step, then its judge step, on a scratch PR with a fake judge.

    The PR's base is `main` (this repository's default branch, as `origin/main`). `merge_of`
    makes the "merge" commit plan.yml's artifact names: (repo, base, head) -> its sha.
    """
    repo, runner = tmp_path / "pr", tmp_path / "runner"
    repo.mkdir()
    runner.mkdir()
    _git("init", "-q", cwd=repo)
    for text in ("older\n", "base\n"):  # main: an older commit, then the PR's base
        (repo / "README.md").write_text(text)
        _git("add", "-A", cwd=repo)
        _git("commit", "-qm", text, cwd=repo)
    base = _git("rev-parse", "HEAD", cwd=repo)
    _git("update-ref", "refs/remotes/origin/main", base, cwd=repo)
    (repo / "README.md").write_text("head\n")
    if pr_edit is not None:
        pr_edit(repo)
    _git("add", "-A", cwd=repo)
    _git("commit", "-qm", "head", cwd=repo)
    head = _git("rev-parse", "HEAD", cwd=repo)
    if merge_of is None:
        merge = _git("commit-tree", _git("rev-parse", "HEAD^{tree}", cwd=repo), "-p", base,
                     "-p", head, "-m", "m", cwd=repo)  # fmt: skip
    else:
        merge = merge_of(repo, base, head)
    _git("checkout", "-q", "--detach", merge, cwd=repo)
    fake = tmp_path / "judge-python"
    fake.write_text(FAKE_JUDGE)
    fake.chmod(0o755)
    plans = tmp_path / "head-plans"
    plans.mkdir()
    for name, text in (head_plans or {}).items():
        (plans / name).write_text(text)
    full_env = {
        "PATH": os.environ["PATH"], "HOME": str(tmp_path), "GITHUB_WORKSPACE": str(tmp_path),
        "JUDGE_PY": str(fake), "BASE": str(tmp_path / "base"), "PR_TREE": str(repo),
        "HEAD_PLANS": str(plans), "MERGE_SHA": merge, "HEAD_SHA": head, "PR_NUMBER": "7",
        "BASE_REF": "main", "PR_BASE_SHA": base, "DEFAULT_BRANCH": "main",
        "REPORT_URL": "https://x.test/r", "GITHUB_REPOSITORY": "acme/ml",
        "GITHUB_TOKEN": "ghs_token", "RUNNER_TEMP": str(runner),
        "GITHUB_OUTPUT": str(tmp_path / "vouch-output"), **env,
    }  # fmt: skip
    vouch = _run(VOUCH_STEP, tmp_path, full_env)
    assert vouch.returncode == 0, vouch.stdout + vouch.stderr
    vouched = _outputs(tmp_path / "vouch-output")
    full_env |= {"REFUSED": vouched.get("refused", ""), "GITHUB_OUTPUT": str(tmp_path / "output")}
    if "BASE_PLANS_CACHE" not in env:  # as the workflow sets it: only for a vouched cache
        cache = tmp_path / "cache"
        full_env["BASE_PLANS_CACHE"] = str(cache) if vouched.get("cache") == "true" else ""
    result = _run(JUDGE_STEP, tmp_path, full_env)
    assert result.returncode == 0, result.stdout + result.stderr
    status = _outputs(tmp_path / "output")["status"]
    args_file = runner / "comment-args"
    args = args_file.read_text().splitlines() if args_file.exists() else []
    comment = (runner / "mlgov-comment" / "comment.md").read_text()
    return Judged(status, args, comment, runner, vouch.stdout + result.stdout + result.stderr,
                  vouched)  # fmt: skip


def _named(args: list[str], flag: str) -> list[str]:
    return [args[i + 1] for i, a in enumerate(args) if a == flag]


def _plan_args(argv: list[str]) -> tuple[list[str], dict[str, str]]:
    """A `plan` process's stacks (`--stack=S`, in order) and its other `--flag value` options."""
    stacks = [a.split("=", 1)[1] for a in argv if a.startswith("--stack=")]
    rest = [a for a in argv[1:] if not a.startswith("--stack=")]
    return stacks, dict(zip(rest[::2], rest[1::2], strict=True))


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
    out = _judge_step(tmp_path, codes)
    assert out.status == status  # the fake comment exits 0: the verdict is the comment's exit code
    assert _named(out.args, "--stack") == stacks
    assert _named(out.args, "--failed") == failed
    assert _named(out.args, "--base-failed") == base_failed
    assert "--untrusted-head" not in out.args  # no governance code changed: the judge planned it
    calls = (out.runner / "calls").read_text().splitlines()
    assert all(not line.endswith("token") for line in calls)  # no call saw the token
    for name in failed:  # what the plan said about a failed stack reaches the comment
        assert (
            f"fake plan of {name} at the head"
            in Path(out.args[out.args.index(name) + 1]).read_text()
        )
    for name in base_failed:
        message = Path(out.args[out.args.index(name) + 1]).read_text()
        assert f"mlgov plan --stack {name} at the PR base exited" in message
        assert f"fake plan of {name} at the base" in message


def test_each_side_is_planned_in_one_process_of_the_judge(tmp_path: Path) -> None:
    out = _judge_step(
        tmp_path, {"STACKS_base": "dev\\nstaging\\nprod", "STACKS_head": "dev\\nprod"}
    )
    (base,), (head,) = out.plans("base"), out.plans("head")  # one process per side, not per stack
    base_stacks, base_options = _plan_args(base)
    head_stacks, head_options = _plan_args(head)
    assert base_stacks == ["dev", "staging", "prod"] and head_stacks == ["dev", "prod"]
    # each side with its own policy configs, the base's from the judge's cache (a default-branch
    # base), the head's never: the cache holds base plans only
    assert base_options["--policy-config-dir"] == head_options["--policy-config-dir"] == "policies"
    assert base_options["--cache-dir"] == str(tmp_path / "cache")
    assert "--cache-dir" not in head_options and "--base" not in head_options
    assert base_options["--out-dir"] != head_options["--out-dir"]
    assert "fake: planned dev staging prod" in out.log  # the process's log is the job's


def test_a_pr_into_another_branch_is_judged_without_the_base_plans_cache(tmp_path: Path) -> None:
    def release_branch(repo: Path) -> None:
        _git("update-ref", "refs/remotes/origin/release", "HEAD", cwd=repo)

    out = _judge_step(tmp_path, {"BASE_REF": "release"}, pr_edit=release_branch)
    assert out.vouched["cache"] == "false"
    (base,) = out.plans("base")
    assert "--cache-dir" not in _plan_args(base)[1]
    assert out.status == "0" and _named(out.args, "--stack") == ["dev", "prod"]


@pytest.mark.parametrize("side", ["base", "head"])
def test_a_planning_process_that_dies_fails_each_of_its_stacks_named(
    tmp_path: Path, side: str
) -> None:
    out = _judge_step(tmp_path, {f"PLAN_DIES_{side}": "1"})
    flag = "--base-failed" if side == "base" else "--failed"
    assert _named(out.args, flag) == ["dev", "prod"]
    assert _named(out.args, "--stack") == []
    message = Path(out.args[out.args.index("dev") + 1]).read_text()
    assert f"mlgov plan of the PR {side}'s stacks ended before it planned dev" in message
    assert "fake: died" in message


@pytest.mark.parametrize(("comment_rc", "status"), [("0", "0"), ("1", "1"), ("2", "1"), ("3", "1")])
def test_the_comments_exit_code_is_the_verdict(tmp_path: Path, comment_rc, status) -> None:
    assert _judge_step(tmp_path, {"COMMENT_RC": comment_rc}).status == status


def test_a_new_stack_is_judged_on_its_own_and_a_removed_one_blocks(tmp_path: Path) -> None:
    args = _judge_step(tmp_path, {"STACKS_head": "dev\\nprod-eu", "STACKS_base": "dev\\nqa"}).args
    i = args.index("prod-eu")
    assert args[i - 1 : i + 2] == ["--stack", "prod-eu", "none"]
    assert _named(args, "--failed") == ["qa"]
    message = Path(args[args.index("qa") + 1]).read_text()
    assert "the base has this stack's file and the PR head has not" in message


def _status(*lines: str) -> str:
    return "".join(f"{line}\n" for line in lines)


def test_governance_code_reads_the_prs_plans_as_untrusted_data(tmp_path: Path) -> None:
    plans = {"prod.json": '{"stack": "prod"}', "dev.json": "{}", "dev.err": "boom",
             "status.tsv": _status("prod\t1\tmandatory", "dev\t2\tfailed")}  # fmt: skip
    out = _judge_step(tmp_path, {"CODE": "governance/x.py\\n"}, head_plans=plans)
    args = out.args
    assert "--untrusted-head" in args
    assert _named(args, "--stack") == ["prod"]
    assert _named(args, "--failed") == ["dev"]  # the PR's own program failed it: named, blocks
    assert "boom" in Path(args[args.index("dev") + 1]).read_text()
    head = Path(args[args.index("prod") + 2])
    assert head.read_text() == '{"stack": "prod"}'
    assert out.plans("head") == []  # the PR's stacks were not planned by the judge
    assert len(out.plans("base")) == 1  # the base's were, in one process
    assert "--approvals" in args and "--changed-files" in args
    calls = (out.runner / "calls").read_text().splitlines()
    assert "approvals token" in calls  # the review state is read with the token ...
    assert [c for c in calls if c.endswith("token")] == ["approvals token"]  # ... nothing else


@pytest.mark.parametrize(
    ("status", "failed"),
    [
        ("", ["dev", "prod"]),  # no status.tsv: the PR's planning process never finished
        (_status("prod\t0\tplanned"), ["dev"]),  # a plan file without its status line
        (_status("dev\t0", "prod\t2\tfailed"), ["prod"]),  # a plan file its status says failed
        (_status("prod-eu\t0", "dev\t0", "xprod\t0", "prod \t0"), ["prod"]),  # names match exactly
        (_status("dev\t0", "prod\t0 or 1"), ["prod"]),  # a code is digits only
        (_status("dev\t0", "prod\t0000"), ["prod"]),
        (_status("dev\t0\tplanned", "prod\t1\tmandatory"), []),
    ],
)  # fmt: skip
def test_the_prs_status_file_is_read_strictly(tmp_path: Path, status: str, failed) -> None:
    plans = {"prod.json": '{"stack": "prod"}', "dev.json": '{"stack": "dev"}'}
    if status:
        plans["status.tsv"] = status
    args = _judge_step(tmp_path, {"CODE": "Makefile\\n"}, head_plans=plans).args
    assert _named(args, "--failed") == failed
    assert _named(args, "--stack") == [s for s in ("dev", "prod") if s not in failed]


def test_a_missing_plan_from_the_pr_is_a_failed_stack(tmp_path: Path) -> None:
    args = _judge_step(tmp_path, {"CODE": "Makefile\\n"}, head_plans={}).args
    assert _named(args, "--failed") == ["dev", "prod"]


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
    out = _judge_step(tmp_path, env, pr_edit=edit)
    assert out.status == "1" and out.args == []
    assert out.comment.startswith("<!-- mlgov-plan-comment -->")
    assert why in out.comment


# ------------------------------------------------- the merge commit plan.yml's artifact names
def _made_up_base(repo: Path, base: str, head: str) -> str:
    """A "merge" whose base is a commit the PR made (with its own mlgov), not the PR's base."""
    (repo / "README.md").write_text("a judge that passes everything\n")
    _git("add", "-A", cwd=repo)
    fake_base = _git("commit-tree", _git("write-tree", cwd=repo), "-p", base, "-m", "b", cwd=repo)
    tree = _git("rev-parse", f"{head}^{{tree}}", cwd=repo)
    return _git("commit-tree", tree, "-p", fake_base, "-p", head, "-m", "m", cwd=repo)


def _other_files(repo: Path, base: str, head: str) -> str:
    """A "merge" of the right parents whose files are the base's: the PR's change hidden."""
    tree = _git("rev-parse", f"{base}^{{tree}}", cwd=repo)
    return _git("commit-tree", tree, "-p", base, "-p", head, "-m", "m", cwd=repo)


def _main_moves_on(repo: Path, base: str, head: str, merge_into: int) -> str:
    """main gains two commits after the PR's base (GitHub's `base.sha`); a real merge of the
    head into main's commit `merge_into` (-1: the one before the PR's base, 0: the PR's base,
    1: the next, 2: main's tip)."""
    tree = _git("rev-parse", f"{base}^{{tree}}", cwd=repo)
    one = _git("commit-tree", tree, "-p", base, "-m", "main 1", cwd=repo)
    two = _git("commit-tree", tree, "-p", one, "-m", "main 2", cwd=repo)
    _git("update-ref", "refs/remotes/origin/main", two, cwd=repo)
    into = {-1: f"{base}~1", 0: base, 1: one, 2: two}[merge_into]
    merged = _git("merge-tree", "--write-tree", into, head, cwd=repo)
    return _git("commit-tree", merged, "-p", into, "-p", head, "-m", "m", cwd=repo)


@pytest.mark.parametrize(
    ("merge_of", "why"),
    [
        (_made_up_base, "is not the PR's base"),
        (_other_files, "files are not the merge of its base and the PR's head"),
        # a real merge, but into a commit of main older than the PR's base: its mlgov could
        # lack a rule
        (lambda repo, base, head: _main_moves_on(repo, base, head, -1), "is not the PR's base"),
    ],
)  # fmt: skip
def test_a_made_up_merge_commit_is_refused_before_anything_of_its_base_runs(
    tmp_path: Path, merge_of, why: str
) -> None:
    out = _judge_step(tmp_path, {}, merge_of=merge_of)
    assert out.status == "1" and out.args == [] and why in out.comment
    assert out.vouched.get("refused") and "base_sha" not in out.vouched
    assert not (tmp_path / "base").exists()  # never checked out, so never installed nor run
    assert not (out.runner / "calls").exists()  # the judge ran nothing


@pytest.mark.parametrize("merge_into", [0, 1, 2])
def test_a_merge_into_the_prs_base_or_a_later_commit_of_its_branch_is_judged(
    tmp_path: Path, merge_into: int
) -> None:
    # GitHub's base.sha lags a base branch that moved, and the merge ref follows the tip
    out = _judge_step(
        tmp_path, {}, merge_of=lambda repo, base, head: _main_moves_on(repo, base, head, merge_into)
    )
    assert "refused" not in out.vouched, out.log
    assert out.status == "0" and _named(out.args, "--stack") == ["dev", "prod"]


# ------------------------------------------------------------- plan.yml's step, run for real
FAKE_PR_PYTHON = """#!/usr/bin/env bash
# Stands in for the PR environment's python: records each start; `plan --all --out-dir DIR`
# writes what `mlgov plan --out-dir` writes (dev planned, prod with a mandatory finding).
echo "$*" >> "$RUNNER_TEMP/starts"
[ "$4" = plan ] || exit 99
while [ $# -gt 0 ]; do [ "$1" = --out-dir ] && dir="$2"; shift; done
echo '{"stack": "dev"}' > "$dir/dev.json"; : > "$dir/dev.err"
echo '{"stack": "prod"}' > "$dir/prod.json"; echo "a finding" > "$dir/prod.err"
printf 'dev\\t0\\tplanned\\nprod\\t1\\tmandatory\\n' > "$dir/status.tsv"
echo "mlgov: plan prod: planned, with a mandatory finding (exit 1)" >&2
exit 1
"""


def test_the_prs_program_plans_every_stack_in_one_process_and_never_the_base(
    tmp_path: Path,
) -> None:
    fake = tmp_path / "python"
    fake.write_text(FAKE_PR_PYTHON)
    fake.chmod(0o755)
    env = {
        "PATH": os.environ["PATH"], "PY": str(fake), "RUNNER_TEMP": str(tmp_path),
        "GITHUB_OUTPUT": str(tmp_path / "output"), "PR_NUMBER": "7", "HEAD_SHA": "a" * 40,
        "MERGE_SHA": "b" * 40,
    }  # fmt: skip
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step("plan.yml", PLAN_STEP)["run"]],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = tmp_path / "mlgov-head"
    (start,) = (tmp_path / "starts").read_text().splitlines()  # one process for every stack
    assert start == f"-P -m governance plan --all --out-dir {out} --policy-config-dir policies"
    assert _outputs(tmp_path / "output") == {"status": "1"}  # a mandatory finding: not clean
    assert json.loads((out / "pull.meta").read_text()) == {
        "pull": "7", "head_sha": "a" * 40, "merge_sha": "b" * 40
    }  # fmt: skip
    assert "::error::governance plan --stack prod: mandatory (exit 1)" in done.stdout
    assert "a finding" in done.stdout and "planned, with a mandatory finding" in done.stdout
