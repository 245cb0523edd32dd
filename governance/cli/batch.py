"""`mlgov plan --all | --stack A --stack B ... --out-dir DIR`: several stacks in one process.

Each stack is planned exactly as `mlgov plan --stack NAME --json` plans it alone (the same
arguments, through the same CLI code), and what that command would print goes to files in DIR:
`NAME.json`, the plan document (only when the stack was planned: exit 0 or 1), `NAME.err`, its
warnings and errors (empty when it printed none), and `status.tsv`, one line per stack in order:
`NAME<TAB>exit code<TAB>planned | mandatory | failed`. Importing Pulumi and pulumi-gcp, most of
a plan's time, is paid once; each run gets a fresh root stack, event loop and config and forgets
the project modules it imported (offline.py), so nothing of one stack reaches the next.

`--base DIR` plans a second checkout too (a pull request's base), into `--base-out-dir`, in the
same process but with the checkout's own mlgov (checkout.py). With `--cache-dir`, a side whose
git work tree is clean is read from, or written to, the plan cache (plan_cache.py). The exit
code is the worst of the planned (not the base) stacks' codes: 0, 1 (a mandatory finding), 2 (a
stack could not be planned), 3 (a bug); a stack that fails does not stop the others.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TextIO, cast

from governance.errors import PROG, CliError, Exit, warn
from governance.inputs.project import STACK_NAME, PulumiProject, display
from governance.text import progress
from governance.text.terminal import SafeStream

STATUS_FILE = "status.tsv"
POLICY_CONFIG_NAME = "config.{stack}.json"
"""A stack's policy-pack config in `--policy-config-dir` (what `make policy-configs` writes)."""


@dataclass(frozen=True)
class Printed:
    """What one `mlgov` command printed, and the code it exited with."""

    code: int
    stdout: str
    stderr: str


Command = Callable[[list[str]], Printed]
"""Runs `mlgov ARGV` (in this process or another) and returns what it printed."""


def outcome_of(code: int) -> str:
    """`planned` (exit 0), `mandatory` (exit 1: planned, a mandatory finding), else `failed`."""
    outcomes: dict[int, str] = {Exit.OK: "planned", Exit.FAILED: "mandatory"}
    return outcomes.get(code, "failed")


@dataclass(frozen=True)
class StackResult:
    """How one stack's plan ended."""

    stack: str
    code: int
    cached: bool = False

    @property
    def outcome(self) -> str:
        """The stack's outcome: planned, mandatory or failed (`outcome_of`)."""
        return outcome_of(self.code)


@dataclass(frozen=True)
class Request:
    """One stack's `plan` invocation: its arguments and the files they name."""

    stack: str
    argv: list[str]
    policy_config: Path | None = None
    usage_file: Path | None = None


@dataclass(frozen=True)
class Side:
    """One checkout to plan: its project, its stacks, where its plans go, its cache."""

    label: str
    """`head` or `base`: named in progress and in the summary lines."""
    project: PulumiProject
    stacks: list[str]
    out_dir: Path
    cache: Cache | None = None


class Cache(Protocol):
    """The plan cache as a side uses it (plan_cache.PlanCache)."""

    warnings: list[str]

    def lookup(self, request: Request) -> Printed | None:
        """The kept result of `request`, or None."""
        ...

    def store(self, request: Request, printed: Printed) -> None:
        """Keep `printed` as the result of `request` (where the same files give it again)."""
        ...


def in_process(main: Callable[[list[str]], int]) -> Command:
    """A Command that runs an mlgov CLI `main(argv)` here, capturing what it prints."""

    def run(argv: list[str]) -> Printed:
        with captured() as (out, err):
            try:
                code = main(argv)
            except SystemExit as ended:  # argparse's usage errors
                code = ended.code if isinstance(ended.code, int) else Exit.INVALID
        return Printed(int(code), out.getvalue(), err.getvalue())

    return run


@contextmanager
def captured() -> Generator[tuple[io.StringIO, io.StringIO]]:
    """sys.stdout and sys.stderr into buffers while the block runs (controls made visible)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = cast(TextIO, SafeStream(out)), cast(TextIO, SafeStream(err))
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = saved


def requests(
    project: PulumiProject,
    stacks: Sequence[str],
    policy_config: Path | None,
    policy_config_dir: str | None,
    usage_file: Path | None,
) -> list[Request]:
    """Each stack's `plan --stack NAME --json` arguments, its policy config found per stack.

    `policy_config_dir` is relative to the project's folder (each side's own), or absolute; a
    stack without a file there is planned without one, as the preview does.
    """
    made: list[Request] = []
    for stack in stacks:
        pack = policy_config
        if pack is None and policy_config_dir is not None:
            folder = project.root / policy_config_dir
            candidate = folder / POLICY_CONFIG_NAME.format(stack=stack)
            pack = candidate if candidate.is_file() else None
        argv = ["plan", "--stack", stack, "--json"]
        if pack is not None:
            argv += ["--policy-config", str(pack)]
        if usage_file is not None:
            argv += ["--usage-file", str(usage_file)]
        made.append(Request(stack, argv, pack, usage_file))
    return made


def plan_side(side: Side, made: list[Request], command: Command) -> list[StackResult]:
    """Plan every request of one side with `command`, writing its stacks' files and status."""
    side.out_dir.mkdir(parents=True, exist_ok=True)
    results: list[StackResult] = []
    for i, request in enumerate(made, 1):
        where = f" at the {side.label}" if side.label != "head" else ""
        progress.step(f"planning {request.stack}{where} ({i}/{len(made)})")
        printed = side.cache.lookup(request) if side.cache is not None else None
        cached = printed is not None
        if printed is None:
            printed = command(request.argv)
            if printed.code == Exit.INTERRUPTED:
                raise KeyboardInterrupt
            if side.cache is not None:
                side.cache.store(request, printed)
        _write(side.out_dir, request.stack, printed)
        results.append(StackResult(request.stack, printed.code, cached))
    _write_status(side.out_dir, results)
    return results


def _write(out_dir: Path, stack: str, printed: Printed) -> None:
    plan = out_dir / f"{stack}.json"
    if printed.code in (Exit.OK, Exit.FAILED):
        _write_text(plan, printed.stdout)
    else:
        plan.unlink(missing_ok=True)  # a document from an earlier run would read as this one's
    _write_text(out_dir / f"{stack}.err", printed.stderr)


def _write_status(out_dir: Path, results: list[StackResult]) -> None:
    lines = [f"{r.stack}\t{r.code}\t{r.outcome}\n" for r in results]
    _write_text(out_dir / STATUS_FILE, "".join(lines))


def _write_text(path: Path, text: str) -> None:
    """Write a file whole or not at all (a reader never sees half a plan)."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError as err:
        raise CliError(f"{display(path)}: cannot write: {err.strerror}") from None


def summary(side: Side, results: list[StackResult]) -> list[str]:
    """One stderr line per stack: how it ended, and where its messages are."""
    lines: list[str] = []
    prefix = f"{PROG}: plan" + (f" ({side.label})" if side.label != "head" else "")
    for r in results:
        source = ", from the plan cache" if r.cached else ""
        err = display(side.out_dir / f"{r.stack}.err")
        what = {
            "planned": "planned",
            "mandatory": "planned, with a mandatory finding",
        }.get(r.outcome, f"failed (see {err})")
        lines.append(f"{prefix} {r.stack}: {what} (exit {r.code}){source}")
    return lines


def worst(results: Sequence[StackResult]) -> int:
    """The exit code of the whole batch: the highest of its stacks' (0 with no stack)."""
    return max((r.code for r in results), default=Exit.OK)


def stacks_of(project: PulumiProject, named: Sequence[str] | None) -> list[str]:
    """The stacks to plan: those named (each once, in order), or every stack file's."""
    if named:
        # Checked before anything is written: a name becomes a file name in the out folder.
        for name in named:
            if not STACK_NAME.fullmatch(name) or name.startswith("."):
                raise CliError(f"--stack: {name[:80]!r} is not a stack name (e.g. dev, prod)")
        return list(dict.fromkeys(named))
    found = project.stacks()
    if not found:
        raise CliError(
            f"--all: no stack files in {display(project.stack_dir)} "
            f"(Pulumi.<stack>{project.ext}); nothing to plan"
        )
    # A file name can hold what a stack name cannot (a tab, a newline): status.tsv could not
    # say which stack a line is about. Pulumi refuses such names too.
    if bad := [n for n in found if not STACK_NAME.fullmatch(n) or n.startswith(".")]:
        raise CliError(
            f"--all: {display(project.stack_dir / f'Pulumi.{n}{project.ext}')}: {n[:80]!r} is "
            "not a stack name Pulumi accepts (letters, digits, -, _ and .); rename or remove it"
            for n in bad
        )
    return found


@dataclass(frozen=True)
class Options:
    """What `plan --out-dir` was asked for; every path absolute (the base runs in its folder)."""

    stacks: list[str] | None
    """The stacks named with --stack, or None for --all (every stack file's)."""
    out_dir: Path
    base: Path | None = None
    base_out_dir: Path | None = None
    cache_dir: Path | None = None
    policy_config: Path | None = None
    policy_config_dir: str | None = None
    usage_file: Path | None = None
    debug: bool = False
    """`--debug` was given: each stack's plan gets it (a bug's traceback goes to NAME.err)."""


def run(options: Options, main: Callable[[list[str]], int]) -> int:
    """Plan the head's stacks (and the base's), write their files; the head's worst exit code."""
    # Imported now: while the base checkout runs, `governance` imports from there (checkout.py).
    from governance.cli.checkout import checkout_command, checkout_imports
    from governance.cli.plan_cache import NotCacheable, PlanCache, git_tree
    from governance.inputs.project import find_project

    notes: list[str] = []

    def cache_of(label: str, project: PulumiProject) -> Cache | None:
        if options.cache_dir is None:
            return None
        try:
            return PlanCache(options.cache_dir, project, git_tree(project.root))
        except NotCacheable as err:
            notes.append(f"plan cache: the {label}'s plans are not cached: {err}")
            return None

    head = find_project()
    head_side = Side(
        "head", head, stacks_of(head, options.stacks), options.out_dir, cache_of("head", head)
    )
    base_side: Side | None = None
    if options.base is not None and options.base_out_dir is not None:  # checked before planning
        base = find_project(options.base)
        if base.root.resolve() != options.base.resolve():
            raise CliError(f"--base: {display(options.base)} is not the folder of a Pulumi project")
        base_side = Side(
            "base", base, stacks_of(base, options.stacks), options.base_out_dir,
            cache_of("base", base),
        )  # fmt: skip
    results = plan_side(head_side, _requests(head_side, options), in_process(main))
    lines = summary(head_side, results)
    sides = [head_side]
    if base_side is not None:
        made = _requests(base_side, options)
        with checkout_imports(base_side.project.root):
            command = tolerate_old_flags(checkout_command(base_side.project.root))
            base_results = plan_side(base_side, made, command)
        lines += summary(base_side, base_results)
        sides.append(base_side)
    for line in lines:
        print(line, file=sys.stderr)
    for side in sides:
        if side.cache is not None:
            notes += side.cache.warnings
    if notes:
        warn(notes)
    return worst(results)


def _requests(side: Side, options: Options) -> list[Request]:
    made = requests(
        side.project, side.stacks, options.policy_config, options.policy_config_dir,
        options.usage_file,
    )  # fmt: skip
    if options.debug:
        for request in made:
            request.argv.append("--debug")
    return made


def tolerate_old_flags(command: Command) -> Command:
    """Plan a checkout from before `plan --policy-config` as it was planned then (without it)."""

    def run_it(argv: list[str]) -> Printed:
        printed = command(argv)
        if (
            printed.code == Exit.INVALID
            and "--policy-config" in argv
            and "unrecognized arguments" in printed.stderr
        ):
            i = argv.index("--policy-config")
            return command(argv[:i] + argv[i + 2 :])
        return printed

    return run_it
