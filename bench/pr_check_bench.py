"""Time the PR check's mlgov work as whole processes, paired with one single-stack plan.

"The check" is what the pull-request job runs for every stack at the head and at the base, then
the comment:

    mlgov plan --all --out-dir H --base BASE --base-out-dir B --policy-config-dir policies \
        [--cache-dir C]
    mlgov comment --stack S B/S.json H/S.json ... --full-report R

against `mlgov plan --stack dev --json` (the unit the target is set in). `cold`: nothing
cached (a PR's first push); `warm`: the base's plans in the cache (every later push: the base
does not change; the head does, so it is planned each time). `--old` adds the check as the
workflow ran it before: a process per stack and side, plus `stacks` twice. Runs alternate A B A
B, so machine load hits both; the ratio is the median of the per-pair ratios.

Both sides are `git worktree`s made and removed here, as the workflow has them: the head (of
HEAD, with an untracked file so its plans are never read from the cache, as a new push's are
not) byte-compiled as `make install` compiles the checkout; the base (of `--base-ref`) not,
as the workflow's `git worktree add` leaves it. Every command runs in the head.

    .venv/bin/python bench/pr_check_bench.py [--runs 5] [--base-ref HEAD] [--old]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
STACKS = ("dev", "staging", "prod")


def timed(script: str, cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"failed ({done.returncode}):\n{script}\n{done.stderr[-2000:]}")
    return elapsed


def check_script(work: Path, base: Path, cache: Path | None) -> str:
    head_out, base_out = work / "head-plans", work / "base-plans"
    cached = f" --cache-dir {cache}" if cache is not None else ""
    pairs = " ".join(f"--stack {s} {base_out}/{s}.json {head_out}/{s}.json" for s in STACKS)
    return (
        f"rm -rf {head_out} {base_out}; {PY} -m governance plan --all --out-dir {head_out} "
        f"--base {base} --base-out-dir {base_out} --policy-config-dir policies{cached}; "
        f"{PY} -m governance comment {pairs} --full-report {work}/report.md > {work}/comment.md"
    )


def old_script(work: Path, base: Path) -> str:
    lines = [f"mkdir -p {work}/oh {work}/ob", f"{PY} -m governance stacks > /dev/null"]
    lines.append(f"(cd {base} && {PY} -m governance stacks > /dev/null)")
    for s in STACKS:
        pack = f"--policy-config policies/config.{s}.json"
        lines.append(f"{PY} -m governance plan --stack {s} --json {pack} > {work}/oh/{s}.json")
        at_base = f"cd {base} && {PY} -m governance plan --stack {s} --json {pack}"
        lines.append(f"({at_base}) > {work}/ob/{s}.json")
    pairs = " ".join(f"--stack {s} {work}/ob/{s}.json {work}/oh/{s}.json" for s in STACKS)
    lines.append(f"{PY} -m governance comment {pairs} --full-report {work}/r.md > {work}/c.md")
    return "; ".join(lines)


def paired(name: str, a: str, b: str, runs: int, cwd: Path) -> str:
    timed(a, cwd)  # warm the OS file cache (and, for `warm`, fill the plan cache)
    timed(b, cwd)
    a_s: list[float] = []
    b_s: list[float] = []
    for _ in range(runs):
        a_s.append(timed(a, cwd))
        b_s.append(timed(b, cwd))
    ratio = statistics.median(x / y for x, y in zip(a_s, b_s, strict=True))
    return (
        f"| {name} | {statistics.median(a_s):.2f} s | {statistics.median(b_s):.2f} s "
        f"| {ratio:.2f}x | {runs} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base-ref", default="HEAD")
    parser.add_argument("--old", action="store_true", help="also time the old per-process check")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mlgov-pr-bench-"))
    head, base = work / "head", work / "base"
    for tree, ref in ((head, "HEAD"), (base, args.base_ref)):
        subprocess.run(
            ["git", "worktree", "add", "--detach", "--quiet", str(tree), ref],
            cwd=REPO, check=True,
        )  # fmt: skip
    subprocess.run(
        [PY, "-m", "compileall", "-q", "-j", "0", "governance", "policies/mlgov_policies"],
        cwd=head, check=True, capture_output=True,
    )  # fmt: skip
    (head / "not-committed.txt").write_text("a new push: never read from the plan cache\n")
    single = f"{PY} -m governance plan --stack dev --json > {work}/single.json"
    try:
        rows = [
            paired("cold: nothing cached", check_script(work, base, None), single, args.runs, head),
            paired(
                "warm: base plans cached",
                check_script(work, base, work / "cache"),
                single,
                args.runs,
                head,
            ),
        ]
        if args.old:
            rows.append(paired("old: a process per stack and side", old_script(work, base),
                               single, args.runs, head))  # fmt: skip
    finally:
        for tree in (head, base):
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(tree)], cwd=REPO, check=False
            )
        shutil.rmtree(work, ignore_errors=True)
    print(f"base: {args.base_ref}; stacks: {', '.join(STACKS)}")
    print("| check | check median | single plan median | median pair ratio | runs |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
