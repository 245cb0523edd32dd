"""Benchmark: estimate a generated 10,000-resource plan (mixed types); median of several runs.

Also times a cold start (new interpreter: import + catalog load + estimate) and the `diff`
command re-estimating two 10,000-resource documents end to end.

    .venv/bin/python bench/cost_bench.py [--resources 10000] [--runs 7]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cost_plan import full_plan  # noqa: E402
from governance.costs.assumptions import UsageAssumptions  # noqa: E402
from governance.costs.estimate import estimate_resources  # noqa: E402


def generate(n: int) -> list[dict[str, Any]]:
    """n resources cycling through every type the program emits, with unique names."""
    template = full_plan()
    out: list[dict[str, Any]] = []
    i = 0
    while len(out) < n:
        for res in template:
            if len(out) == n:
                break
            item = copy.deepcopy(res)
            item["name"] = f"{res['name']}-{i}"
            out.append(item)
        i += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--resources", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    plan = generate(args.resources)
    usage = UsageAssumptions(as_of=date(2026, 11, 1))
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        report = estimate_resources(plan, usage)
        times.append(time.perf_counter() - start)
    types = len({r["type"] for r in plan})
    print(f"estimate {len(plan)} resources ({types} types), {args.runs} runs: "
          f"median {statistics.median(times):.3f} s, min {min(times):.3f} s, "
          f"max {max(times):.3f} s; total ${report.monthly_usd:,.0f}/month")  # fmt: skip

    with tempfile.TemporaryDirectory() as tmp:
        doc = {"stack": "bench", "resources": plan, "assumptions": usage.model_dump(mode="json")}
        base = Path(tmp, "base.json")
        base.write_text(json.dumps(doc))
        head_doc = copy.deepcopy(doc)
        head_doc["resources"] = plan[:-100]
        head = Path(tmp, "head.json")
        head.write_text(json.dumps(head_doc))
        cold = []
        cli = []
        snippet = (
            "import json,sys; from governance.costs.estimate import estimate_resources; "
            f"estimate_resources(json.load(open({str(base)!r}))['resources'])"
        )
        for _ in range(max(3, args.runs // 2)):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", snippet], check=True, cwd=ROOT)
            cold.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "governance", "diff", str(base),
                            str(head)], check=True, cwd=ROOT, capture_output=True)  # fmt: skip
            cli.append(time.perf_counter() - start)
        print(f"cold process (import + catalog + estimate {len(plan)}): "
              f"median {statistics.median(cold):.3f} s")  # fmt: skip
        print(f"`python -m governance diff` 2 x {len(plan)} resources re-estimated: "
              f"median {statistics.median(cli):.3f} s")  # fmt: skip


if __name__ == "__main__":
    main()
