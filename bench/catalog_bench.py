"""Benchmark: loading the price catalog (governance/costs/prices_regional.json, every region).

Times `load_catalog()` in-process (read + parse + index, a fresh load each run), lookups on the
loaded catalog (in-region, global and nearest-region fallbacks), and a cold interpreter that only
imports the catalog module and loads it (against a bare `python -c pass`). For scale it also
times parsing the 4 MB Billing Catalog export it was built from, where present.

    .venv/bin/python bench/catalog_bench.py [--runs 9] [--pricing PATH]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from governance.costs.catalog import DEFAULT_PATH, load_catalog  # noqa: E402

SHARED = ROOT.parent / "shared" / "realdata" / "google-cloud-pricing" / "pricing.yml"


def median_s(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cold(code: str, runs: int) -> float:
    def run() -> None:
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)

    return median_s(run, runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--pricing", default=str(SHARED), help="full export, for scale only")
    args = parser.parse_args()
    cat = load_catalog()
    size = DEFAULT_PATH.stat().st_size / 1e6
    print(f"catalog: {DEFAULT_PATH.name}, {size:.2f} MB, {len(cat)} prices, "
          f"{len(cat.regions)} locations, dated {cat.generated}")  # fmt: skip
    load = median_s(load_catalog, args.runs)
    print(f"load_catalog() in-process: median {load * 1000:.1f} ms ({args.runs} runs)")
    keys = [
        ("gce.type.n1-standard-8", "europe-west4", "spot"),
        ("gce.n1.vcpu", "asia-east1", "ondemand"),
        ("gpu.nvidia-tesla-t4", "us-central1", "spot"),
        ("gke.cluster", "me-central2", "ondemand"),
        ("sql.enterprise.vcpu", "asia-east1", "ondemand"),
    ]
    lookups = median_s(lambda: [cat.price(*k) for _ in range(2000) for k in keys], args.runs)
    print(f"10,000 price() lookups (1 in 5 a nearest-region fallback): median "
          f"{lookups * 1000:.1f} ms")  # fmt: skip
    bare = cold("pass", args.runs)
    loaded = cold(
        "from governance.costs.catalog import load_catalog; load_catalog()",
        args.runs,
    )
    print(f"cold interpreter: import + load {loaded * 1000:.0f} ms vs bare python "
          f"{bare * 1000:.0f} ms (+{(loaded - bare) * 1000:.0f} ms)")  # fmt: skip
    pricing = Path(args.pricing)
    if pricing.is_file():
        import yaml

        text = pricing.read_text()
        fast = median_s(lambda: yaml.load(text, Loader=yaml.CSafeLoader), 3)
        print(f"for scale: parsing the {len(text) / 1e6:.1f} MB export with libyaml: "
              f"{fast * 1000:.0f} ms (pure-Python YAML takes ~15 s)")  # fmt: skip


if __name__ == "__main__":
    main()
