"""What the PR judge (judge.yml) costs on top of the plans: its install and its two checkouts.

Each measure is a whole command, as the workflow runs it, timed N times (medians):

- checkouts: a full-history clone of this repository (what `actions/checkout` with
  `fetch-depth: 0` fetches for the PR's merge commit), then `git worktree add` of the base;
- the judge's install: `make install` in a fresh worktree of this commit (uv's cache warm, as
  on this machine; a CI runner's cold cache downloads the lock's wheels first);
- the judge's own work besides the plans: `mlgov governance-code`, `mlgov stacks` on each side,
  and `mlgov comment` over the three shipped stacks' plans (base = head);
- one `mlgov plan --stack dev --json`, for scale: the judge plans each base stack (once per base
  tree, cached) and, for a PR without governance code, each head stack.

Usage: .venv/bin/python bench/judge_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = str(ROOT / ".venv" / "bin" / "python")
STACKS = ("dev", "staging", "prod")


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _run(*args: str, cwd: Path = ROOT, out: Path | None = None) -> None:
    with out.open("w") if out else open(os.devnull, "w") as sink:
        subprocess.run(args, cwd=cwd, check=True, stdout=sink, stderr=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    tmp = Path(tempfile.mkdtemp(prefix="judge-bench-"))
    results: dict[str, list[float]] = {}
    try:
        for i in range(runs):
            clone, base = tmp / f"clone{i}", tmp / f"base{i}"
            results.setdefault("clone (full history)", []).append(
                _timed(lambda c=clone: _run("git", "clone", "-q", "--no-local", str(ROOT), str(c)))
            )
            worktree = ("git", "-C", str(clone), "worktree", "add", "-q", "--detach", str(base))
            results.setdefault("worktree add (base)", []).append(
                _timed(lambda w=worktree: _run(*w, "HEAD"))
            )
            install = ("make", "-C", str(base), "install", f"PY_BOOT={sys.executable}")
            results.setdefault("make install (judge, warm uv cache)", []).append(
                _timed(lambda i=install: _run(*i))
            )
            shutil.rmtree(clone)
        plans = tmp / "plans"
        plans.mkdir()
        for stack in STACKS:
            _run(PY, "-P", "-m", "governance", "plan", "--stack", stack, "--json",
                 out=plans / f"{stack}.json")  # fmt: skip
        changed = tmp / "changed"
        changed.write_bytes(b"README.md\0stacks/Pulumi.prod.yaml\0")
        comment = [PY, "-P", "-m", "governance", "comment"]
        for stack in STACKS:
            comment += [
                "--stack",
                stack,
                str(plans / f"{stack}.json"),
                str(plans / f"{stack}.json"),
            ]
        judge = "judge: governance-code + stacks x2 + comment (3 stacks)"
        code = (PY, "-P", "-m", "governance", "governance-code", "--changed", str(changed))
        stacks = (PY, "-P", "-m", "governance", "stacks")
        plan = (PY, "-P", "-m", "governance", "plan", "--stack", "dev", "--json")
        for _ in range(runs):
            results.setdefault(judge, []).append(
                _timed(
                    lambda: (
                        _run(*code),
                        _run(*stacks),
                        _run(*stacks),
                        _run(*comment, "--changed-files", str(changed)),
                    )
                )
            )
            results.setdefault("one plan --stack dev --json", []).append(
                _timed(lambda: _run(*plan))
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg()[0]
    print(f"runs: {runs}; load average at the end: {load:.1f}")
    for name, times in results.items():
        each = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name}: median {statistics.median(times):.2f} s ({each})")


if __name__ == "__main__":
    main()
