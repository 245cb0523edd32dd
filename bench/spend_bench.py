"""Benchmark `spend` on 30 days of billing export for 200 projects (~2.3 M rows per table).

The emulator (bqemulator 1.4.0, DuckDB, in memory; `make bqemulator`) is loaded the way one
loads BigQuery from files: the rows are written once as newline-delimited JSON (the shapes of
governance/fakecloud/export_rows.py: the dev stack's 16 billed SKUs, renamed into 200 projects,
one row per SKU per hour), in files of 500,000 rows (the emulator takes at most 1 GiB per
upload), and each file is one load job (`load_table_from_file`, WRITE_APPEND), not streaming.
Then `python -m governance.spend` runs as a child process, as a user runs it, N times per
scenario: `--stack dev` (the stack's one project among the 200) and `--stack dev --project`
x 200 (every project counted); both build the dev plan under Pulumi mocks. Reported: medians of
the command's wall time, of each query's wall time (dry run + run + fetching rows, as the
runner records them in the report's `queries`) and of the command's peak RSS (wait4).

Usage: .venv/bin/python bench/spend_bench.py [--projects 200] [--days 30] [--runs 5]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "policies")]

from governance.fakecloud import export_rows as ex  # noqa: E402
from governance.fakecloud.bqemulator import (  # noqa: E402
    create_export_table,
    load_file,
    running,
    write_ndjson,
)

SUFFIX = ex.ACCOUNT.replace("-", "_")
DATASET = "acme-ml-dev.billing_export"
ROWS_PER_FILE = 500_000  # ~0.7 GB of NDJSON


def project_ids(count: int) -> list[str]:
    """acme-ml-dev (the dev stack's project) and count-1 others."""
    return ["acme-ml-dev"] + [f"acme-ml-p{i:03d}" for i in range(1, count)]


def write_files(
    folder: Path, usages: list[ex.Usage], now: datetime, days: int, detailed: bool
) -> list[tuple[Path, int]]:
    """NDJSON files of at most ROWS_PER_FILE rows (the emulator caps one upload at 1 GiB)."""
    rows = ex.rows(usages, now, days, slot_hours=1, lag=timedelta(hours=4), with_resource=detailed)
    files: list[tuple[Path, int]] = []
    while True:
        path = folder / f"rows-{len(files):03d}.json"
        count = write_ndjson(itertools.islice(rows, ROWS_PER_FILE), path)
        if count == 0:
            path.unlink()
            return files
        files.append((path, count))


def peak_rss(argv: list[str], env: dict[str, str]) -> tuple[float, int, dict[str, Any]]:
    """Like run_spend, but reaps the child with wait4 to read its own peak RSS."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "governance.spend", *argv, "--json"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=err,
        )
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"spend failed ({child.returncode}): {err.read().decode()[-2000:]}")
        return wall, usage.ru_maxrss * 1024, json.loads(out.read())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--projects", type=int, default=200)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    now = datetime.now(UTC)
    projects = project_ids(args.projects)
    base = ex.stack_usages("dev")
    usages = [u for i, p in enumerate(projects) for u in ex.renamed(base, p, f"{100000000000 + i}")]
    with (
        tempfile.TemporaryDirectory(prefix="spend-bench-") as tmp,
        running("acme-ml-dev") as emulator,
    ):
        client = emulator.client()
        for table, schema, detailed in (
            (f"{DATASET}.gcp_billing_export_v1_{SUFFIX}", ex.STANDARD_SCHEMA, False),
            (f"{DATASET}.gcp_billing_export_resource_v1_{SUFFIX}", ex.DETAILED_SCHEMA, True),
        ):
            t0 = time.perf_counter()
            files = write_files(Path(tmp), usages, now, args.days, detailed)
            written = sum(count for _, count in files)
            size = sum(path.stat().st_size for path, _ in files) / 1e9
            t1 = time.perf_counter()
            create_export_table(client, table, schema)
            for path, _ in files:
                loaded = load_file(client, table, schema, path)
                path.unlink()
            t2 = time.perf_counter()
            assert loaded == written, (loaded, written)
            print(f"{table}: {loaded:,} rows, {size:.2f} GB NDJSON in {len(files)} files")
            print(
                f"  written in {t1 - t0:.0f} s, {len(files)} load jobs in {t2 - t1:.0f} s",
                flush=True,
            )

        env = {**os.environ, "MLGOV_API_ENDPOINTS": json.dumps({"bigquery": emulator.url})}
        scenarios = {
            "--stack dev (1 of the projects, plan built)": [
                "--stack",
                "dev",
                "--days",
                str(args.days),
            ],
            f"--project x {len(projects)} (every project counted, plan built)": [
                "--stack",
                "dev",
                "--days",
                str(args.days),
                *[a for p in projects for a in ("--project", p)],
            ],
        }
        for title, argv in scenarios.items():
            walls: list[float] = []
            rss: list[int] = []
            per_query: dict[str, list[float]] = {}
            last: dict[str, Any] = {}
            for _ in range(args.runs):
                wall, peak, last = peak_rss(argv, env)
                walls.append(wall)
                rss.append(peak)
                for q in last["queries"]:
                    per_query.setdefault(q["name"], []).append(q["seconds"])
            print(f"\n{title}: {args.runs} runs, net_cost {last['net_cost']:,.2f}")
            print(f"  command wall median {_spread(walls)}")
            print(f"  peak RSS median {statistics.median(rss) / 2**20:.0f} MiB")
            for name, seconds in per_query.items():
                rows = next(q["rows"] for q in last["queries"] if q["name"] == name)
                print(f"  {name}: median {_spread(seconds)}, {rows} result rows")
        print(f"\nemulator RSS after the runs: {_rss_of(emulator.pid) / 2**30:.1f} GiB")


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f})"


def _rss_of(pid: int | None) -> int:
    if pid is None:
        return 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


if __name__ == "__main__":
    main()
