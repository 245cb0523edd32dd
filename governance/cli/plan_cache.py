"""The plan cache (`plan --out-dir DIR --cache-dir C`): a stack's plan kept by what decides it.

A pull request's base does not change while the PR does, yet its check planned the base again
on every push. A plan is a function of the checkout's files, the installed packages that run
them, the interpreter, the stack and the files its options name, so an entry is keyed by:

- the git tree of the checkout's HEAD (`git rev-parse HEAD^{tree}`): the program, mlgov's own
  code, the stack files, the price catalog, the lock file. Only a clean work tree is cached
  (`git status` lists nothing, untracked files included): with changes, the tree would not say
  what was planned;
- the environment: the interpreter's version and platform and every installed distribution
  with its version (what the lock file installed);
- the stack, the bytes of its stack file and of the project file (also when git ignores them),
  and the bytes of the `--policy-config` and `--usage-file` it was planned with;
- `PULUMI_CONFIG`, which Pulumi reads as config where a stack sets nothing.

An entry is data from a folder anyone could have written to: it is checked when read (format,
the full key, the exit code, and for a planned stack a plan document of the right shape for
that stack whose findings give that exit code). An entry that fails is named in a warning and
the stack is planned again. Kept: plans (exit 0 and 1) and refused stacks (exit 2), which the
same files refuse again; never an internal error or an interruption.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import site
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from governance.cli.batch import Printed, Request
from governance.errors import Exit
from governance.inputs.project import PulumiProject, display

FORMAT = 1
"""The entry format and key recipe: a change to either makes every older entry a miss."""
MAX_ENTRY_BYTES = 64 * 1024 * 1024
"""Largest entry read (a plan of 10,000 resources is a few MB)."""
GIT_TIMEOUT_S = 30.0
KEPT_CODES = (Exit.OK, Exit.FAILED, Exit.INVALID)


class BadEntry(ValueError):
    """Why a cache entry cannot be trusted as the result it claims to be."""


class NotCacheable(Exception):
    """Why a checkout's plans cannot be cached (no git, not a repository, local changes)."""


def git_tree(root: Path) -> str:
    """The tree id of the checkout's HEAD; NotCacheable unless the work tree matches it."""
    tree = _git(root, "rev-parse", "--verify", "--quiet", "HEAD^{tree}").strip()
    if not tree:
        raise NotCacheable(f"{display(root)}: no commit checked out")
    changes = _git(root, "status", "--porcelain", "--untracked-files=all", "-z")
    if changes:
        first = changes.split("\0", 1)[0][3:]
        raise NotCacheable(
            f"{display(root)}: the work tree has changes git has not committed (e.g. {first!r}), "
            "so its tree does not say what is planned"
        )
    return tree


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(  # noqa: S603 - fixed arguments, no shell
            ["git", "-C", str(root), *args],  # noqa: S607 - git from PATH, as a user runs it
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError:
        raise NotCacheable("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise NotCacheable(f"git {args[0]} took longer than {GIT_TIMEOUT_S:.0f} s") from None
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or ["failed"])[0][:200]
        raise NotCacheable(f"{display(root)}: git {args[0]}: {detail}")
    return done.stdout


def environment() -> dict[str, Any]:
    """What runs the plan besides the checkout: the interpreter and the installed packages."""
    folders = [*site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    installed: list[str] = []
    for folder in dict.fromkeys(folders):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        installed += [n for n in names if n.endswith((".dist-info", ".egg-info"))]
    return {
        "python": sys.version,
        "implementation": sys.implementation.cache_tag,
        "platform": f"{sys.platform}-{platform.machine()}",
        "installed": hashlib.sha256("\n".join(sorted(installed)).encode()).hexdigest(),
    }


def _digest(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"  # the plan itself will refuse it, and that refusal is kept


class PlanCache:
    """Entries for one checkout (one tree) in one folder."""

    def __init__(self, folder: Path, project: PulumiProject, tree: str) -> None:
        self.folder = folder
        self.project = project
        self.tree = tree
        self.env = environment()
        self.warnings: list[str] = []

    def key(self, request: Request) -> dict[str, Any]:
        """Everything that decides `request`'s plan (see the module docstring)."""
        stack_file = self.project.stack_dir / f"Pulumi.{request.stack}{self.project.ext}"
        return {
            "format": FORMAT,
            "tree": self.tree,
            "environment": self.env,
            "stack": request.stack,
            "argv": _argv_without_paths(request),
            "stack_file": _digest(stack_file if stack_file.is_file() else None),
            "project_file": _digest(self.project.file),
            "policy_config": _digest(request.policy_config),
            "usage_file": _digest(request.usage_file),
            "pulumi_config": os.environ.get("PULUMI_CONFIG"),
        }

    def _entry(self, key: Mapping[str, Any]) -> Path:
        name = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:40]
        return self.folder / f"plan-{name}.json"

    def lookup(self, request: Request) -> Printed | None:
        """The kept result of `request`, checked; None (and a warning if it was bad) if none."""
        key = self.key(request)
        path = self._entry(key)
        try:
            with path.open("rb") as stream:
                data = stream.read(MAX_ENTRY_BYTES + 1)
        except FileNotFoundError:
            return None
        except OSError as err:
            self.warnings.append(f"plan cache: {display(path)}: cannot read: {err.strerror}")
            return None
        try:
            return entry_result(data, key, request.stack)
        except BadEntry as err:
            self.warnings.append(
                f"plan cache: {display(path)}: {err}; not used, {request.stack} is planned again"
            )
            return None

    def store(self, request: Request, printed: Printed) -> None:
        """Keep `printed` for `request` (if it is a result the same files give again)."""
        if printed.code not in KEPT_CODES:
            return
        key = self.key(request)
        path = self._entry(key)
        entry = {
            "format": FORMAT,
            "key": key,
            "exit": printed.code,
            "stdout": printed.stdout,
            "stderr": printed.stderr,
        }
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            partial.write_text(json.dumps(entry), encoding="utf-8")
            os.replace(partial, path)  # whole or not at all: a reader never sees half an entry
        except OSError as err:
            self.warnings.append(f"plan cache: {display(path)}: cannot write: {err.strerror}")
            partial.unlink(missing_ok=True)


def _argv_without_paths(request: Request) -> list[str]:
    """The arguments, with the paths of option files left out (their bytes are in the key)."""
    kept: list[str] = []
    skip = False
    for arg in request.argv:
        if skip:
            kept.append("<file>")
            skip = False
            continue
        kept.append(arg)
        skip = arg in ("--policy-config", "--usage-file")
    return kept


def entry_result(data: bytes, key: Mapping[str, Any], stack: str) -> Printed:
    """The result an entry holds; BadEntry saying why it cannot be trusted as `key`'s."""
    from governance.inputs.document import shape_problems
    from governance.review.plan import exit_code
    from governance.untrusted import UntrustedInputError, load_json

    if len(data) > MAX_ENTRY_BYTES:
        raise BadEntry(f"larger than {MAX_ENTRY_BYTES:,} bytes")
    try:
        raw = load_json(data.decode("utf-8"))
    except (UnicodeDecodeError, UntrustedInputError) as err:
        raise BadEntry(f"not a JSON entry ({str(err)[:120]})") from None
    if not isinstance(raw, dict):
        raise BadEntry("not a JSON object")
    entry = cast(dict[str, Any], raw)
    if entry.get("format") != FORMAT:
        raise BadEntry(f"format {str(entry.get('format'))[:20]!r}, expected {FORMAT}")
    if entry.get("key") != key:
        raise BadEntry("its key is not this plan's (a collision, or an edited entry)")
    raw_code: object = entry.get("exit")
    stdout, stderr = entry.get("stdout"), entry.get("stderr")
    if not isinstance(stdout, str) or not isinstance(stderr, str):
        raise BadEntry("stdout and stderr must be strings")
    if not isinstance(raw_code, int) or isinstance(raw_code, bool) or raw_code not in KEPT_CODES:
        raise BadEntry(f"exit {str(raw_code)[:20]!r} is not a kept result (0, 1 or 2)")
    code = raw_code
    if code == Exit.INVALID:
        if stdout:
            raise BadEntry("a refused stack (exit 2) printed no plan, but the entry has one")
        return Printed(Exit.INVALID, "", stderr)
    try:
        doc = load_json(stdout)
    except UntrustedInputError as err:
        raise BadEntry(f"its plan is not JSON ({str(err)[:120]})") from None
    if problems := shape_problems(doc):
        raise BadEntry(f"its plan is not a plan document ({problems[0]})")
    plan = cast(dict[str, Any], doc)
    if plan.get("stack") != stack:
        raise BadEntry(f"its plan is of stack {str(plan.get('stack'))[:40]!r}, not {stack!r}")
    if exit_code(plan) != code:
        raise BadEntry(f"its plan's findings give exit {int(exit_code(plan))}, not {code}")
    return Printed(int(code), stdout, stderr)
