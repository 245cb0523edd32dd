"""Time the README's commands as a newcomer meets them: a fresh clone and an empty uv cache.

Each run: `git clone SOURCE` into a new temporary folder, a new empty UV_CACHE_DIR, then the
commands in order, each timed (wall clock): by default `make plan` (first run: builds .tools
and .venv, downloading every package), `make plan` again (the everyday run), and, with --demo
and --test, `make demo` and `make test`. Prints each run and the medians; the clone and the
cache are removed after each run.

Usage: .venv/bin/python bench/first_run.py [--source /work/main] [--runs 3] [--demo] [--test]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    took = time.monotonic() - start
    if done.returncode != 0:
        tail = f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{tail}")
    return took


def one_run(source: str, commands: list[tuple[str, list[str]]]) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="mlgov-bench-first-run-"))
    try:
        clone, cache = root / "clone", root / "uv-cache"
        cache.mkdir()
        subprocess.run(["git", "clone", "--quiet", source, str(clone)], check=True)
        env = {**os.environ, "UV_CACHE_DIR": str(cache)}
        env.pop("VIRTUAL_ENV", None)
        return {label: timed(argv, clone, env) for label, argv in commands}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", default="/work/main")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--test", action="store_true")
    args = parser.parse_args()
    commands = [("make plan (first)", ["make", "plan"]), ("make plan (again)", ["make", "plan"])]
    if args.demo:
        commands.append(("make demo", ["make", "demo"]))
    if args.test:
        commands.append(("make test", ["make", "test"]))
    results: list[dict[str, float]] = []
    for i in range(args.runs):
        result = one_run(args.source, commands)
        results.append(result)
        print(f"run {i + 1}: " + ", ".join(f"{k} {v:.1f} s" for k, v in result.items()), flush=True)
    for label, _ in commands:
        values = [r[label] for r in results]
        print(f"median {label}: {statistics.median(values):.1f} s  (runs: {values})")
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
