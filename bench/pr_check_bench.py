"""Time the PR check's mlgov work as the workflows run it, paired with one single-stack plan.

The check, for the three shipped stacks, as plan.yml and then judge.yml run it (`python -P`):

    head   (plan.yml, the PR's environment, in the head checkout)
           mlgov plan --all --out-dir H --policy-config-dir policies
    base   (judge.yml, the judge's environment: the base's mlgov, in the base checkout)
           mlgov plan --stack=dev --stack=staging --stack=prod --out-dir B \
               --policy-config-dir policies --cache-dir C
    comment (judge.yml, in the base checkout)
           mlgov comment --stack S B/S.json H/S.json ... --untrusted-head \
               --changed-files F --full-report R

against `mlgov plan --stack dev --json` in the head (the unit issue 31's target is set in).

Rows: `cold`, C emptied before each run (a base whose `warm` job has not run); `warm`, C as
judge.yml's `warm` job leaves it for the base commit (every check of a PR into the default
branch once that commit's push was planned); `stack files only`, a PR that changes no
governance code: the judge plans the head's stack files itself (one more process) and reads no
plan of plan.yml, which still makes them (for its HTML report), so both are counted; the base
from C as in `warm`. `--compare` adds the shape the workflows do not use: one process planning
the head and, with `--base`, the base (the PR's program must not plan the base); `--old` the
check before issue 31: a process per stack and side (after `stacks` on each), then the comment.

Each side has its own environment as `make install` gives each checkout (here: this checkout's
installed packages shared through symlinks, with mlgov the side's own checkout, and both
checkouts byte-compiled as `make install` compiles them). Both sides are `git worktree`s made
and removed here; the head has an untracked file, as nothing of it is ever cached. Runs
alternate A B A B after one warm-up of each; figures are medians, the ratio the median of the
per-pair ratios, CPU the user+system seconds of the whole process tree.

    .venv/bin/python bench/pr_check_bench.py [--runs 5] [--base-ref HEAD] [--compare] [--old]
    .venv/bin/python bench/pr_check_bench.py --scripts DIR [--base-ref HEAD]

`--scripts DIR` only sets up (in DIR, left in place) and writes `check-cold.sh`,
`check-warm.sh`, `check-stack-files.sh`, `one-process-base.sh`, `per-stack.sh` and `single.sh`,
for any external timer (e.g. `/usr/bin/time -v bash DIR/check-warm.sh`); remove the two
worktrees afterwards with `git worktree remove --force DIR/head` (and `DIR/base`).
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SITE = Path(sysconfig.get_paths()["purelib"])
STACKS = ("dev", "staging", "prod")


def environment(where: Path, checkout: Path) -> Path:
    """A virtualenv whose mlgov is `checkout` and whose other packages are this one's."""
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
        if not entry.name.startswith(("_editable_impl_mlgov", "__editable__", "__pycache__")):
            (site / entry.name).symlink_to(entry)
    (site / "_mlgov_checkout.pth").write_text(f"{checkout}\n{checkout / 'policies'}\n")
    return where / "bin" / "python"


def scripts(work: Path) -> dict[str, str]:
    """The shell scripts timed: each check's shape, and the single plan."""
    head, base, cache = work / "head", work / "base", work / "cache"
    pr_py, judge_py = work / "pr-env" / "bin" / "python", work / "judge-env" / "bin" / "python"
    q = shlex.quote
    named = " ".join(f"--stack={s}" for s in STACKS)

    def comment(head_plans: Path, untrusted: bool) -> str:
        pairs = " ".join(f"--stack {s} {work}/B/{s}.json {head_plans}/{s}.json" for s in STACKS)
        flags = f"--untrusted-head --changed-files {work}/changed" if untrusted else ""
        return (
            f"(cd {q(str(base))} && {judge_py} -P -m governance comment {pairs} {flags} "
            f"--full-report {work}/report.md > {work}/comment.md) || [ $? -eq 1 ]"
        )

    head_plan = (
        f"(cd {q(str(head))} && {pr_py} -P -m governance plan --all --out-dir {work}/H "
        "--policy-config-dir policies 2>/dev/null) || [ $? -eq 1 ]"
    )
    base_plan = (
        f"(cd {q(str(base))} && {judge_py} -P -m governance plan {named} --out-dir {work}/B "
        f"--policy-config-dir policies --cache-dir {cache} 2>/dev/null) || [ $? -eq 1 ]"
    )
    judge_head = (
        f"(cd {q(str(head))} && {judge_py} -P -m governance plan {named} --out-dir {work}/J "
        "--policy-config-dir policies 2>/dev/null) || [ $? -eq 1 ]"
    )
    one_process = (
        f"(cd {q(str(head))} && {pr_py} -P -m governance plan --all --out-dir {work}/H "
        f"--base {base} --base-out-dir {work}/B --policy-config-dir policies --cache-dir {cache} "
        "2>/dev/null) || [ $? -eq 1 ]"
    )
    per_stack = [f"mkdir -p {work}/H {work}/B"]  # before issue 31: a process per stack and side
    for folder, py, out in ((head, pr_py, "H"), (base, judge_py, "B")):
        per_stack.append(f"(cd {q(str(folder))} && {py} -P -m governance stacks > /dev/null)")
        for s in STACKS:
            per_stack.append(
                f"(cd {q(str(folder))} && {py} -P -m governance plan --stack {s} --json "
                f"--policy-config policies/config.{s}.json > {work}/{out}/{s}.json) || [ $? -eq 1 ]"
            )
    reset = f"rm -rf {work}/H {work}/B {work}/J"
    return {
        "check-cold": "\n".join(
            ["set -e", reset, f"rm -rf {cache}", head_plan, base_plan, comment(work / "H", True)]
        ),
        "check-warm": "\n".join(["set -e", reset, head_plan, base_plan, comment(work / "H", True)]),
        "check-stack-files": "\n".join(
            ["set -e", reset, head_plan, base_plan, judge_head, comment(work / "J", False)]
        ),
        "one-process-base": "\n".join(
            ["set -e", reset, f"rm -rf {cache}", one_process, comment(work / "H", True)]
        ),
        "per-stack": "\n".join(["set -e", reset, *per_stack, comment(work / "H", True)]),
        "single": (
            f"cd {q(str(head))} && {pr_py} -P -m governance plan --stack dev --json > /dev/null"
        ),
    }


def set_up(work: Path, base_ref: str) -> None:
    """The two worktrees, byte-compiled, and each side's environment."""
    for name, ref in (("head", "HEAD"), ("base", base_ref)):
        tree = work / name
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), ref],
                       cwd=REPO, check=True)  # fmt: skip
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "-j", "0", "governance",
             "policies/mlgov_policies"],
            cwd=tree, check=True, capture_output=True,
        )  # fmt: skip
    (work / "head" / "not-committed.txt").write_text("the head is never read from a cache\n")
    environment(work / "pr-env", work / "head")
    environment(work / "judge-env", work / "base")
    (work / "changed").write_bytes(b"governance/review/plan.py\0stacks/Pulumi.prod.yaml\0")
    for name, text in scripts(work).items():
        (work / f"{name}.sh").write_text(text + "\n")


def timed(script: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of `bash script`, its whole process tree."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{script.name} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(name: str, check: Path, single: Path, runs: int) -> str:
    timed(check)  # warm the OS file cache (and, for `warm`, fill the plan cache)
    timed(single)
    a: list[tuple[float, float]] = []
    b: list[tuple[float, float]] = []
    for _ in range(runs):
        a.append(timed(check))
        b.append(timed(single))

    def median(xs: list[tuple[float, float]], i: int) -> float:
        return statistics.median(x[i] for x in xs)

    cpu = statistics.median(x[1] / y[1] for x, y in zip(a, b, strict=True))
    wall = statistics.median(x[0] / y[0] for x, y in zip(a, b, strict=True))
    return (
        f"| {name} | {runs} | {median(a, 1):.2f} s / {median(a, 0):.1f} s "
        f"| {median(b, 1):.2f} s / {median(b, 0):.1f} s | **{cpu:.2f}x** | {wall:.2f}x |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base-ref", default="HEAD")
    parser.add_argument("--compare", action="store_true", help="also time the --base shape")
    parser.add_argument("--old", action="store_true", help="also time a process per stack")
    parser.add_argument("--scripts", metavar="DIR", help="only set up in DIR and write scripts")
    args = parser.parse_args()
    if args.scripts:
        work = Path(args.scripts).resolve()
        work.mkdir(parents=True, exist_ok=True)
        set_up(work, args.base_ref)
        print(f"scripts in {work}: " + ", ".join(f"{n}.sh" for n in scripts(work)))
        return
    work = Path(tempfile.mkdtemp(prefix="mlgov-pr-bench-"))
    try:
        set_up(work, args.base_ref)
        single = work / "single.sh"
        rows = [
            paired("cold: the base planned in full", work / "check-cold.sh", single, args.runs),
            paired("warm: the base's plans from `warm`", work / "check-warm.sh", single, args.runs),
            paired(
                "stack files only: the judge plans the head too",
                work / "check-stack-files.sh",
                single,
                args.runs,
            ),
        ]
        if args.compare:
            rows.append(paired("not used: one process with --base, cold",
                               work / "one-process-base.sh", single, args.runs))  # fmt: skip
        if args.old:
            rows.append(paired("before issue 31: a process per stack and side",
                               work / "per-stack.sh", single, args.runs))  # fmt: skip
    finally:
        for tree in ("head", "base"):
            subprocess.run(["git", "worktree", "remove", "--force", str(work / tree)], cwd=REPO,
                           check=False)  # fmt: skip
        shutil.rmtree(work, ignore_errors=True)
    print(f"base: {args.base_ref}; stacks: {', '.join(STACKS)}; load average "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    print("| the check | runs | check CPU / wall | one plan CPU / wall | ratio CPU | ratio wall |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
