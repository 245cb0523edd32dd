"""Time `python -m governance plan --stack STACK --json` as a whole process, beside its floor.

The floor is a bare Python process that only imports the pulumi_gcp submodules the program
uses (read from the plan's own type tokens) and pulumi_random: the plan can't start faster than
that. Plan and floor runs alternate, so a change in machine load hits both; the ratio column is
the median of the per-pair ratios. Prints a markdown table row; record it in bench/RESULTS.md
under `## plan`.

`--in-process N` instead plans the stack N more times in this process after a first plan (which
pays the imports), as `mlgov plan --all` and the test suite do, and prints the median CPU and
wall seconds of one plan. CPU time is the number to compare on a shared machine: other
processes stretch the wall time, not the CPU a plan uses. It plans with the `governance`
package this interpreter imports, so the same script measures another checkout with that
checkout's interpreter (`/other/.venv/bin/python bench/plan_bench.py --in-process 9`).

    .venv/bin/python bench/plan_bench.py [--stack dev] [--runs 7]
    .venv/bin/python bench/plan_bench.py --stack prod --in-process 9
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(cmd: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):
        sys.exit(f"command failed ({result.returncode}): {' '.join(cmd)}\n{result.stderr}")
    return elapsed, result.stdout


def in_process(stack: str, runs: int) -> None:
    """Median CPU and wall seconds of one plan, over `runs` plans after a first one."""
    import governance
    from governance.review.plan import plan_stack

    repo = Path(governance.__file__).resolve().parents[1]
    os.chdir(repo)  # plan_stack finds the project (and its stacks/) from here
    plan_stack(stack)  # the imports, and pulumi_gcp's modules the program loads
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(runs):
        c, w = time.process_time(), time.perf_counter()
        plan_stack(stack)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    print(f"checkout: {repo}, plans after the first: {runs}")
    print("| stack | CPU per plan (median) | wall per plan (median) |")
    print("|---|---|---|")
    print(f"| {stack} | {statistics.median(cpu):.3f} s | {statistics.median(wall):.3f} s |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stack", default="dev")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--in-process", type=int, metavar="N", default=0)
    args = parser.parse_args()
    if args.in_process:
        in_process(args.stack, args.in_process)
        return

    plan_cmd = [sys.executable, "-m", "governance", "plan", "--stack", args.stack, "--json"]
    _, out = timed(plan_cmd)  # warm the OS file cache once
    doc = json.loads(out)
    modules = sorted(
        {
            r["type"].split(":")[1].split("/")[0]
            for r in doc["resources"]
            if r["type"].startswith("gcp:")
        }
    )
    # Any non-introspection attribute forces the lazy submodule to load fully.
    touch = "; ".join(f"getattr(gcp.{m}, '_utilities', None)" for m in modules)
    floor_cmd = [sys.executable, "-c", f"import pulumi_gcp as gcp, pulumi_random; {touch}"]
    timed(floor_cmd)

    plan_times: list[float] = []
    floor_times: list[float] = []
    for _ in range(args.runs):
        plan_times.append(timed(plan_cmd)[0])
        floor_times.append(timed(floor_cmd)[0])
    plan_s, floor_s = statistics.median(plan_times), statistics.median(floor_times)
    ratio = statistics.median(p / f for p, f in zip(plan_times, floor_times, strict=True))
    print(f"pulumi_gcp submodules used ({len(modules)}): {', '.join(modules)}")
    print(f"resources: {len(doc['resources'])}, runs: {args.runs}")
    print("| stack | plan --json median | floor median | ratio of medians | median pair ratio |")
    print("|---|---|---|---|---|")
    print(
        f"| {args.stack} | {plan_s:.2f} s | {floor_s:.2f} s | {plan_s / floor_s:.2f}x "
        f"| {ratio:.2f}x |"
    )


if __name__ == "__main__":
    main()
