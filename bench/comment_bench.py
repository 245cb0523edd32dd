"""Benchmark: the PR comment for a 3,000-notebook prod stack (plus dev and staging).

Builds the same documents as tests/cli/test_comment_safety.py with bench/comment_plans.py (the
golden plans, prod with 3,000 more notebooks and their office-hours jobs, dry run switched on,
3,000 advisory findings) and times, in-process, `governance_changes` on prod alone and the whole
`build_comment` (governance review, cost diff, escaping, fitting into 65,536 characters, the
unfolded report). Target: the comment in under 5 s. Prints medians; record them in
bench/RESULTS.md under `## comment`.

    .venv/bin/python bench/comment_bench.py [--notebooks 3000] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "policies")]

from bench.comment_plans import golden, weaken, with_notebooks  # noqa: E402
from governance.review.comment import StackPlans, build_comment  # noqa: E402
from governance.review.govdiff import governance_changes  # noqa: E402
from governance.text.fit import size  # noqa: E402


def main() -> None:
    """Time the governance diff and the whole comment; print medians."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--notebooks", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    prod = golden("prod")
    head = weaken(with_notebooks(prod, args.notebooks))
    head["violations"] = [
        {"policy": "mlgov-workbench-gpu-driver", "resource": f"notebooks-nb-{i:04d}",
         "enforcement": "advisory", "message": f"notebook nb-{i:04d} has no GPU driver setting"}
        for i in range(args.notebooks)
    ]  # fmt: skip
    stacks = [
        StackPlans("dev", golden("dev"), golden("dev")),
        StackPlans("prod", head, prod),
        StackPlans("staging", weaken(golden("staging")), golden("staging")),
    ]
    diffs, comments = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        governance_changes(prod, head)
        diffs.append(time.perf_counter() - start)
        start = time.perf_counter()
        comment = build_comment(stacks)
        comments.append(time.perf_counter() - start)
    print(f"resources at head: {len(head['resources'])}, runs: {args.runs}")
    print(f"governance_changes (prod): median {statistics.median(diffs):.2f} s")
    print(f"build_comment (3 stacks): median {statistics.median(comments):.2f} s")
    print(f"comment {size(comment.text):,} characters (folded: {comment.folded}), "
          f"full report {size(comment.full):,}")  # fmt: skip


if __name__ == "__main__":
    main()
