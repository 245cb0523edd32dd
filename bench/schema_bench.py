"""Benchmark: schema validation of plan inputs against the pulumi-gcp input-type archive.

Measures, each a median over --runs:
  * cold load: a fresh interpreter imports mlgov_policies.schema.validate and loads + compiles the
    types one shipped plan uses (tests/golden/plan.STACK.json); the import of the interpreter
    itself is not counted;
  * validating each shipped plan in-process (types already loaded);
  * validating 10,000-resource synthetic plans, cold (fresh interpreter, archive loads included)
    and warm (in-process, loaded): bench/check_bench.py's generator (10 shallow templates, some
    missing required properties, so it has findings) and the dev plan's 72 real resources cycled
    (36 types, the program's full nested inputs, no findings).
Record the numbers in bench/RESULTS.md under `## schema`.

    .venv/bin/python bench/schema_bench.py [--runs 7] [--resources 10000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "policies"))
sys.path.insert(0, str(ROOT / "bench"))

from check_bench import generate  # noqa: E402

from mlgov_policies.schema.validate import validate_inputs  # noqa: E402

STACKS = ("dev", "staging", "prod")

# Run in a fresh interpreter: import, then validate every resource of the plan at argv[1].
_COLD = """
import json, sys, time
start = time.perf_counter()
sys.path.insert(0, {policies!r})
from mlgov_policies.schema.validate import validate_inputs
imported = time.perf_counter()
resources = json.load(open(sys.argv[1]))["resources"]
parsed = time.perf_counter()
found = sum(1 for r in resources for _ in validate_inputs(r["type"], r["inputs"]))
done = time.perf_counter()
print(json.dumps({{"import": imported - start, "validate": done - parsed, "found": found,
                  "types": len({{r["type"] for r in resources}})}}))
"""


def cold(plan: Path) -> dict[str, Any]:
    code = _COLD.format(policies=str(ROOT / "policies"))
    out = subprocess.run(
        [sys.executable, "-c", code, str(plan)], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out)


def warm(resources: list[dict[str, Any]]) -> tuple[float, int]:
    start = time.perf_counter()
    found = sum(1 for r in resources for _ in validate_inputs(r["type"], r["inputs"]))
    return time.perf_counter() - start, found


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--resources", type=int, default=10_000)
    args = parser.parse_args()

    print("| what | types | resources | findings | median |")
    print("|---|---|---|---|---|")
    for stack in STACKS:
        plan = ROOT / "tests" / "golden" / f"plan.{stack}.json"
        resources = json.loads(plan.read_text())["resources"]
        samples = [cold(plan) for _ in range(args.runs)]
        loads = [s["validate"] for s in samples]
        imports = [s["import"] for s in samples]
        print(
            f"| {stack}: import validate.py (cold) | - | - | - | {median_ms(imports)} |\n"
            f"| {stack}: load the plan's types + validate (cold) | {samples[0]['types']} "
            f"| {len(resources)} | {samples[0]['found']} | {median_ms(loads)} |"
        )
        warm(resources)
        times = [warm(resources)[0] for _ in range(args.runs)]
        print(
            f"| {stack}: validate (types loaded) | {samples[0]['types']} | {len(resources)} "
            f"| {samples[0]['found']} | {median_ms(times)} |"
        )

    dev = json.loads((ROOT / "tests" / "golden" / "plan.dev.json").read_text())["resources"]
    cycled = [dev[i % len(dev)] for i in range(args.resources)]
    for label, synthetic in (
        ("check_bench templates", generate(args.resources)),
        ("dev plan cycled", cycled),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "plan.json"
            path.write_text(json.dumps({"stack": "dev", "resources": synthetic}))
            samples = [cold(path) for _ in range(args.runs)]
        print(
            f"| {label}: load + validate (cold) | {samples[0]['types']} | {len(synthetic)} "
            f"| {samples[0]['found']} | {median_ms([s['validate'] for s in samples])} |"
        )
        warm(synthetic)
        runs = [warm(synthetic) for _ in range(args.runs)]
        print(
            f"| {label}: validate (types loaded) | {samples[0]['types']} | {len(synthetic)} "
            f"| {runs[0][1]} | {median_ms([t for t, _ in runs])} |"
        )


if __name__ == "__main__":
    main()
