"""Benchmark: hostile and huge input through the whole `mlgov` process (issue 20 item 7).

Each case runs `python -m governance ...` as a process, `--runs` times, and reports the median
wall time, the median CPU time (user + system: what a busy, shared machine distorts least) and
the median peak RSS (`/usr/bin/time`), with the exit code it must have:

- `alias-bomb`: the dev stack plus 566 bytes under another config key: nine levels of nine
  aliases (~387 million values; the shape of the issue's 2.8 KB file);
- `deep-yaml`: a stack file nesting lists 10,000 deep;
- `deep-json`: a plan document nesting lists 10,000 deep (`check`);
- `wide-invalid`: the dev stack with 199,000 zones (600 KB, just under the 200,000-value bound),
  none of them a zone: every one is a problem, 100 lines are printed and the rest counted;
- `check-10k`: `check` of a 10,000-resource plan document (bench/check_bench.py's resources);
- `diff-50mb`: `diff --json` of two ~50 MB plan documents as `check --json` writes them
  (32,000 resources each, every one with its monthly_usd and cost lines, 1% renamed);
- `diff-50mb-reestimate`: the same two documents with inputs only (~10 MB each), which `diff`
  re-estimates resource by resource.

Targets and results: bench/RESULTS.md, `## hostile and huge input`. `--root DIR` runs another
checkout (a "before" tree, e.g. `git archive <commit> | tar -x -C DIR`) with this venv and the
same input files.

    .venv/bin/python bench/hostile_bench.py [--runs 5] [--cases alias-bomb,deep-json] [--root DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, cast

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "policies"), str(REPO / "bench")]

from check_bench import generate  # noqa: E402 (bench/ is not a package)

from governance.review.plan import evaluate_document  # noqa: E402

TIME = "/usr/bin/time"


def alias_bomb() -> str:
    """The dev stack plus a config key of nine levels of nine aliases (~387 million values).

    The settings are valid, so before the bound the whole stack went on to the program run,
    which passes every config value to Pulumi as JSON: the expansion happened there.
    """
    lines = ['    a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 9):
        lines.append(f"    a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    dev = (REPO / "stacks" / "Pulumi.dev.yaml").read_text()
    return dev + "  acme:laughs:\n" + "\n".join(lines) + "\n"


def wide_invalid(count: int = 199_000) -> str:
    """The dev stack with `count` zones that are not zones (~600 KB; just under MAX_VALUES)."""
    dev = (REPO / "stacks" / "Pulumi.dev.yaml").read_text()
    zones = "    zones: [" + ", ".join(["z"] * count) + "]\n"
    return dev.replace("    zones: [us-central1-a, us-central1-b]\n", zones)


def documents(tmp: Path) -> dict[str, Path]:
    files: dict[str, Path] = {}
    files["alias-bomb"] = tmp / "Pulumi.bomb.yaml"
    files["alias-bomb"].write_text(alias_bomb())
    files["deep-yaml"] = tmp / "Pulumi.deep.yaml"
    files["deep-yaml"].write_text(
        "config:\n  mlgov:settings: " + "[" * 10_000 + "]" * 10_000 + "\n"
    )
    files["deep-json"] = tmp / "deep.json"
    files["deep-json"].write_text(
        '{"stack": "dev", "resources": ' + "[" * 10_000 + "]" * 10_000 + "}"
    )
    files["wide-invalid"] = tmp / "Pulumi.wide.yaml"
    files["wide-invalid"].write_text(wide_invalid())
    config = {"environment": "dev", "region": "us-central1"}
    check = {"stack": "dev", "resources": generate(10_000), "policy_config": config}
    files["check-10k"] = tmp / "check.json"
    files["check-10k"].write_text(json.dumps(check))
    # `diff` of plan documents as `plan` and `check` write them (each resource with its
    # monthly_usd), and of the same documents with inputs only (`diff` re-estimates them).
    resources = generate(32_000)
    head_resources: list[dict[str, Any]] = json.loads(json.dumps(resources))
    rng = random.Random(20)
    for resource in rng.sample(head_resources, len(head_resources) // 100):
        resource["name"] += "-changed"
    for name, listed in (("base", resources), ("head", head_resources)):
        bare = {"stack": "dev", "resources": listed, "policy_config": config}
        files[f"bare-{name}"] = tmp / f"bare-{name}.json"
        files[f"bare-{name}"].write_text(json.dumps(bare))
        checked = evaluate_document(cast(Any, json.loads(json.dumps(bare))))
        files[f"diff-{name}"] = tmp / f"{name}.json"
        files[f"diff-{name}"].write_text(json.dumps(checked))
    return files


CASES: dict[str, tuple[list[str], int]] = {
    "alias-bomb": (["plan", "--config", "{alias-bomb}"], 2),
    "deep-yaml": (["plan", "--config", "{deep-yaml}"], 2),
    "deep-json": (["check", "{deep-json}"], 2),
    "wide-invalid": (["plan", "--config", "{wide-invalid}"], 2),
    "check-10k": (["check", "{check-10k}"], 1),
    "diff-50mb": (["diff", "{diff-base}", "{diff-head}", "--json"], 0),
    "diff-50mb-reestimate": (["diff", "{bare-base}", "{bare-head}", "--json"], 0),
}


def run_once(root: Path, argv: list[str]) -> tuple[int, float, float, int, str]:
    """(exit code, wall s, CPU s, peak RSS in KB, last stderr line) of one process."""
    env = {**os.environ, "PYTHONPATH": f"{root}:{root / 'policies'}"}
    cmd = [TIME, "-f", "TIME %e %U %S %M", sys.executable, "-m", "governance", *argv]
    result = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, check=False)
    lines = result.stderr.strip().splitlines()
    stat = next(line for line in reversed(lines) if line.startswith("TIME "))
    _, wall, user, system, rss = stat.split()
    other = [line for line in lines if not line.startswith(("TIME ", "Command exited"))]
    cpu = float(user) + float(system)
    return result.returncode, float(wall), cpu, int(rss), (other[-1] if other else "")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument(
        "--root",
        type=Path,
        action="append",
        help="checkout to run (default: here); give it twice to compare, runs interleaved",
    )
    args = parser.parse_args()
    roots: list[Path] = args.root or [REPO]
    with tempfile.TemporaryDirectory() as tmp:
        files = documents(Path(tmp))
        sizes = {k: p.stat().st_size for k, p in files.items()}
        print("files: " + ", ".join(f"{k} {v:,} B" for k, v in sizes.items()))
        print(
            "| case | root | exit | wall median (min-max) | CPU median | peak RSS | last stderr |"
        )
        print("|---|---|---|---|---|---|---|")
        for name in args.cases.split(","):
            template, expected = CASES[name]
            argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in template]
            runs: dict[Path, list[tuple[int, float, float, int, str]]] = {r: [] for r in roots}
            for _ in range(args.runs):
                for root in roots:  # interleaved, so a change in machine load hits each root
                    runs[root].append(run_once(root, argv))
            for root, done in runs.items():
                codes = sorted({r[0] for r in done})
                walls = [r[1] for r in done]
                cpu = statistics.median(r[2] for r in done)
                rss = statistics.median(r[3] for r in done) / 1024
                flag = "" if codes == [expected] else f" (expected {expected})"
                tail = done[-1][4].replace(tmp, "TMP")[:80]
                print(
                    f"| {name} | {root.name} | {','.join(map(str, codes))}{flag} | "
                    f"{statistics.median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}) | "
                    f"{cpu:.2f} s | {rss:.0f} MB | {tail} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
