"""Benchmark: hostile and huge input through the whole `mlgov` process (issue 20 item 7).

Each case runs `python -m governance ...` as a process, `--runs` times, and reports the median
wall time, the median CPU time (user + system: what a busy, shared machine distorts least) and
the median peak RSS (`/usr/bin/time`), with the exit code it must have:

- `alias-bomb`: a 2.8 KB stack file of nine levels of nine aliases (~387 million values);
- `deep-yaml`: a stack file nesting lists 10,000 deep;
- `deep-json`: a plan document nesting lists 10,000 deep (`check`);
- `wide-invalid`: the dev stack with 199,000 zones (600 KB, just under the 200,000-value bound),
  none of them a zone: every one is a problem, 100 lines are printed and the rest counted;
- `check-10k`: `check` of a 10,000-resource plan document (bench/check_bench.py's resources);
- `diff-50mb`: `diff --json` of two ~50 MB plan documents (163,000 resources each, 1% changed).

Targets (bench/RESULTS.md): hostile cases exit 2 in < 2 s and < 200 MB; check-10k < 2 s;
diff-50mb < 10 s and < 1.5 GB. `--root DIR` runs another checkout (a "before" tree) with this
venv, e.g. `git worktree add /tmp/before <commit>`.

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
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from check_bench import generate  # noqa: E402 (bench/ is not a package)

TIME = "/usr/bin/time"


def alias_bomb() -> str:
    lines = ['    a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 9):
        lines.append(f"    a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "config:\n  mlgov:settings:\n" + "\n".join(lines) + "\n"


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
    base_resources = generate(163_000)
    head_resources: list[dict[str, Any]] = json.loads(json.dumps(base_resources))
    rng = random.Random(20)
    for resource in rng.sample(head_resources, len(head_resources) // 100):
        resource["name"] += "-changed"
    for name, resources in (("base", base_resources), ("head", head_resources)):
        path = tmp / f"{name}.json"
        path.write_text(
            json.dumps({"stack": "dev", "resources": resources, "policy_config": config})
        )
        files[f"diff-{name}"] = path
    return files


CASES: dict[str, tuple[list[str], int]] = {
    "alias-bomb": (["plan", "--config", "{alias-bomb}"], 2),
    "deep-yaml": (["plan", "--config", "{deep-yaml}"], 2),
    "deep-json": (["check", "{deep-json}"], 2),
    "wide-invalid": (["plan", "--config", "{wide-invalid}"], 2),
    "check-10k": (["check", "{check-10k}"], 1),
    "diff-50mb": (["diff", "{diff-base}", "{diff-head}", "--json"], 0),
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
    parser.add_argument("--root", type=Path, default=REPO, help="checkout to run (default: here)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = documents(Path(tmp))
        sizes = {k: p.stat().st_size for k, p in files.items()}
        print(f"root {args.root}; files: " + ", ".join(f"{k} {v:,} B" for k, v in sizes.items()))
        print("| case | exit | wall median (min-max) | CPU median | peak RSS | last stderr line |")
        print("|---|---|---|---|---|---|")
        for name in args.cases.split(","):
            template, expected = CASES[name]
            argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in template]
            runs = [run_once(args.root, argv) for _ in range(args.runs)]
            codes = sorted({r[0] for r in runs})
            walls = [r[1] for r in runs]
            cpu = statistics.median(r[2] for r in runs)
            rss = statistics.median(r[3] for r in runs) / 1024
            flag = "" if codes == [expected] else f" (expected {expected})"
            tail = runs[-1][4].replace(tmp, "TMP")[:90]
            print(
                f"| {name} | {','.join(map(str, codes))}{flag} | {statistics.median(walls):.2f} s "
                f"({min(walls):.2f}-{max(walls):.2f}) | {cpu:.2f} s | {rss:.0f} MB | {tail} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
