"""Run the PR check's real workflow steps by bash, on a scratch repository and PR.

The base is this checkout's project (its program, governance/, policies/, functions/, the prod
stack, CODEOWNERS); a PR is a commit on top of it, and GitHub's merge commit (parents: the base
and the PR head) is made the way refs/pull/N/merge is. Each side gets its own environment, the way
the workflows build them: the judge's points at the base checkout only, the PR program's at the
PR's checkout only. Both share this checkout's installed packages through symlinks (installing
the lock twice per test would take minutes), so a `.pth` file planted in one of them reaches only
that one. The steps run are the workflows' own `run` scripts: plan.yml's "Plan every stack" (the
PR's program), then judge.yml's "Check that the planned commit is GitHub's merge" (which checks
out the base) and "Judge every stack" (the base's mlgov), with the environment variables GitHub
would give them. Every Python process a step starts is logged (`Outcome.starts`), so a test can
count the plans each side ran.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(sysconfig.get_paths()["purelib"])
# What planning needs from the project, plus the files the attacks edit; `.gitignore` keeps the
# base's work tree clean once Python has run in it, as in CI (the plan cache keeps only plans of
# a clean checkout).
PROJECT_FILES = (
    ".gitignore",
    "Pulumi.yaml",
    "__main__.py",
    "README.md",
    ".github/CODEOWNERS",
    "tests/conftest.py",
)
PROJECT_DIRS = ("governance", "policies", "functions")
STACK = "prod"
GIT = [
    "git",
    "-c",
    "user.email=ci@example.test",
    "-c",
    "user.name=ci",
    "-c",
    "init.defaultBranch=main",
]
_SKIP = {"__pycache__", ".pytest_cache"}


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        [*GIT, *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()


def _copy_tree(source: Path, target: Path) -> None:
    shutil.copytree(
        source,
        target,
        ignore=lambda _, names: [n for n in names if n in _SKIP or n.endswith(".pyc")],
    )


def make_base_repo(where: Path) -> Path:
    """A git repository whose one commit is this project with its prod stack only."""
    repo = where / "origin"
    repo.mkdir(parents=True)
    for name in PROJECT_FILES:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, repo / name)
    for name in PROJECT_DIRS:
        _copy_tree(ROOT / name, repo / name)
    (repo / "stacks").mkdir()
    shutil.copy2(ROOT / "stacks" / f"Pulumi.{STACK}.yaml", repo / "stacks" / f"Pulumi.{STACK}.yaml")
    for config in (repo / "policies").glob("config.*.json"):
        if config.name != f"config.{STACK}.json":
            config.unlink()
    _git(where, "init", "-q", str(repo))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    return repo


def make_env(where: Path, root: Path) -> Path:
    """A virtualenv whose mlgov is the checkout at `root`; returns its (logging) python.

    Every other package is a symlink into this checkout's environment; the editable install of
    this checkout is left out, so nothing of it leaks in. The python returned is a script that
    appends its folder and arguments to `where/starts.log` (read with `starts_of`), then runs the
    environment's own python (which finds its pyvenv.cfg by the path it is run as).
    """
    site = where / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    site.mkdir(parents=True)
    (where / "bin").mkdir()
    real = Path(os.path.realpath(sys.executable))
    (where / "bin" / "python").symlink_to(real)
    (where / "pyvenv.cfg").write_text(
        f"home = {real.parent}\ninclude-system-site-packages = false\n"
        f"version = {'.'.join(map(str, sys.version_info[:3]))}\n"
    )
    for entry in SITE.iterdir():
        if entry.name.startswith(("_editable_impl_mlgov", "__editable__")) or entry.name in _SKIP:
            continue
        (site / entry.name).symlink_to(entry)
    (site / "_mlgov_checkout.pth").write_text(f"{root}\n{root / 'policies'}\n")
    logged = where / "bin" / "logged-python"
    logged.write_text(
        "#!/usr/bin/env bash\n"
        f'printf \'%s\\t%s\\n\' "$PWD" "$*" >> {shlex.quote(str(where / "starts.log"))}\n'
        f'exec {shlex.quote(str(where / "bin" / "python"))} "$@"\n'
    )
    logged.chmod(0o755)
    return logged


def starts_of(python: Path) -> list[tuple[str, str]]:
    """(folder, arguments) of every process `make_env`'s python started, in order."""
    log = python.parent.parent / "starts.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [(cwd, args) for cwd, args in (line.split("\t", 1) for line in lines)]


def site_of(python: Path) -> Path:
    """The site-packages folder of an environment `make_env` built."""
    return next((python.parent.parent / "lib").glob("python*/site-packages"))


def _step(workflow: str, name: str) -> str:
    data = yaml.safe_load((ROOT / ".github" / "workflows" / workflow).read_text())
    for job in data["jobs"].values():
        for step in job.get("steps", []):
            if step.get("name") == name:
                return str(step["run"])
    raise LookupError(f"{workflow}: no step {name!r}")


PLAN_STEP = (
    "plan.yml",
    "Plan every stack (the PR's own program; its plans are data for the judge)",
)
VOUCH_STEP = (
    "judge.yml",
    "Check that the planned commit is GitHub's merge of this PR, and check out its base",
)
JUDGE_STEP = ("judge.yml", "Judge every stack with the base's mlgov")


def outputs(path: Path) -> dict[str, str]:
    """The `name=value` lines a step wrote to $GITHUB_OUTPUT."""
    text = path.read_text() if path.exists() else ""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


WARM_STEP = ("judge.yml", "Plan every stack into the base plans cache")


def run_step(
    step: tuple[str, str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """A workflow step's script, run as GitHub runs `shell: bash` (`-eo pipefail`)."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step(*step)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip


Edit = Callable[[Path], None]


@dataclass
class Outcome:
    """What the judge step left: its exit, the status it set, the comment, its log."""

    returncode: int
    status: str
    comment: str
    log: str
    work: Path
    plan_log: str = ""
    requests: list[tuple[str, str]] = field(default_factory=list)
    starts: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Python processes started, per environment (`pr`, `judge`): (folder, arguments)."""

    @property
    def blocked(self) -> bool:
        """Whether the PR may not merge (the `mlgov/judge` status fails)."""
        return self.status != "0"


@dataclass
class PullRequest:
    """A PR on a scratch clone of the base repository."""

    tmp: Path
    origin: Path
    base_cache: Path
    number: int = 7
    repo: Path = field(init=False)
    base_sha: str = field(init=False)

    def __post_init__(self) -> None:
        self.repo = self.tmp / "pr"
        _git(self.tmp, "clone", "-q", "--shared", str(self.origin), str(self.repo))
        self.base_sha = _git(self.repo, "rev-parse", "HEAD")

    # ------------------------------------------------------------------ edits
    def stack(self, edit: Callable[[dict[str, Any]], None], name: str = STACK) -> None:
        """Edit `mlgov:settings` of a stack file (written back as YAML)."""
        path = self.repo / "stacks" / f"Pulumi.{name}.yaml"
        data = yaml.safe_load(path.read_text())
        edit(data["config"]["mlgov:settings"])
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))

    def write(self, path: str, text: str) -> None:
        target = self.repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def replace(self, path: str, old: str, new: str) -> None:
        target = self.repo / path
        text = target.read_text()
        assert old in text, (path, old)
        target.write_text(text.replace(old, new))

    # ------------------------------------------------------------------ the run
    def commit(self) -> tuple[str, str]:
        """Commit the PR head and GitHub's merge commit; (head sha, merge sha)."""
        _git(self.repo, "add", "-A")
        _git(self.repo, "commit", "-qm", "the PR", "--allow-empty")
        head = _git(self.repo, "rev-parse", "HEAD")
        tree = _git(self.repo, "rev-parse", "HEAD^{tree}")
        merge = _git(
            self.repo, "commit-tree", tree, "-p", self.base_sha, "-p", head, "-m", "Merge the PR"
        )
        _git(self.repo, "checkout", "-q", "--detach", merge)
        return head, merge

    def judge(
        self,
        head_plans: Callable[[Path], None] | None = None,
        github: Any = None,
        plant: Iterable[tuple[str, str]] = (),
        produce: bool = True,
        approve: Iterable[str | tuple[str, str]] = (),
    ) -> Outcome:
        """Run plan.yml's plan step (the PR's program) and judge.yml's judge step.

        `head_plans` replaces the plan step with files written into the artifact folder (a
        hostile PR can upload anything); `plant` adds files to the PR program's environment's
        site-packages before it runs (what a PR's tests could leave there); `github` is a
        fake_github.FakeGitHub already serving. `produce=False` skips the plan step for a PR
        that changes no governance code, whose plans the judge never reads (it plans them).
        `approve`: reviews of the head commit once it exists (a login approves; or (login, state)).
        """
        if not produce and head_plans is None:
            head_plans = lambda _: None  # noqa: E731 - an empty artifact
        head, merge = self.commit()
        runner = self.tmp / "runner"
        (runner / "plan").mkdir(parents=True)
        (runner / "judge").mkdir(parents=True)
        base = self.tmp / "base"
        judge_py = make_env(self.tmp / "judge-env", base)
        pr_py = make_env(self.tmp / "pr-env", self.repo)
        for name, text in plant:
            (site_of(pr_py) / name).write_text(text)
        common = {"PATH": os.environ["PATH"], "HOME": str(self.tmp), "LANG": "C.UTF-8"}
        plan_log = ""
        plans = runner / "plan" / "mlgov-head"
        if head_plans is not None:
            plans.mkdir(parents=True)
            head_plans(plans)
        else:
            plan_env = {
                **common, "PY": str(pr_py), "RUNNER_TEMP": str(runner / "plan"),
                "GITHUB_OUTPUT": str(runner / "plan-output"), "PR_NUMBER": str(self.number),
                "HEAD_SHA": head, "MERGE_SHA": merge,
            }  # fmt: skip
            done = run_step(PLAN_STEP, self.repo, plan_env)
            plan_log = done.stdout + done.stderr
            assert done.returncode == 0, plan_log
        if github is not None:
            github.head_sha = head
            for review in approve:
                login, state = (review, "APPROVED") if isinstance(review, str) else review
                github.review(login, state)
        # The commit is vouched for, and the base checked out, as the workflow does it (the PR
        # targets this repository's default branch, main).
        vouch_env = {
            **common, "GITHUB_WORKSPACE": str(self.tmp), "MERGE_SHA": merge, "HEAD_SHA": head,
            "BASE_REF": "main", "PR_BASE_SHA": self.base_sha, "DEFAULT_BRANCH": "main",
            "GITHUB_OUTPUT": str(runner / "vouch-output"),
        }  # fmt: skip
        done = run_step(VOUCH_STEP, self.tmp, vouch_env)
        assert done.returncode == 0, done.stdout + done.stderr
        vouched = outputs(runner / "vouch-output")
        env = {
            **common, "JUDGE_PY": str(judge_py), "BASE": str(base), "PR_TREE": str(self.repo),
            "REFUSED": vouched.get("refused", ""), "HEAD_PLANS": str(plans),
            "BASE_PLANS_CACHE": str(self.base_cache) if vouched.get("cache") == "true" else "",
            "MERGE_SHA": merge, "HEAD_SHA": head, "PR_NUMBER": str(self.number),
            "REPORT_URL": "https://github.com/acme/ml-platform/actions/runs/1",
            "GITHUB_REPOSITORY": "acme/ml-platform", "GITHUB_TOKEN": "ghs_fake-token",
            "GITHUB_API_URL": github.url if github is not None else "http://127.0.0.1:9",
            "RUNNER_TEMP": str(runner / "judge"), "GITHUB_OUTPUT": str(runner / "judge-output"),
        }  # fmt: skip
        done = run_step(JUDGE_STEP, self.tmp, env)
        status = outputs(runner / "judge-output").get("status", "")
        comment_file = runner / "judge" / "mlgov-comment" / "comment.md"
        return Outcome(
            done.returncode,
            status,
            comment_file.read_text() if comment_file.exists() else "",
            done.stdout + done.stderr,
            runner / "judge" / "mlgov-judge",
            plan_log,
            list(github.requests) if github is not None else [],
            {"pr": starts_of(pr_py), "judge": starts_of(judge_py)},
        )


def warm(origin: Path, where: Path, cache: Path) -> str:
    """Run judge.yml's `warm` plan step on a checkout of `origin`'s main, into `cache`; its log.

    As the job has it: the commit checked out at `base`, the judge installed from it.
    """
    where.mkdir(parents=True)
    _git(where, "clone", "-q", str(origin), "base")
    python = make_env(where / "judge-env", where / "base")
    env = {
        "PATH": os.environ["PATH"], "HOME": str(where), "LANG": "C.UTF-8",
        "JUDGE_PY": str(python), "BASE": str(where / "base"), "BASE_PLANS_CACHE": str(cache),
        "RUNNER_TEMP": str(where / "runner"),
    }  # fmt: skip
    done = run_step(WARM_STEP, where, env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr
