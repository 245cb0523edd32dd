"""Benchmark reap_idle_vms: 200 projects x 3 zones, 2,000 idle VMs, 1% of calls failing.

The fake cloud runs in a child process (so its threads do not share our GIL) and fails a random
`--fail-rate` of all requests transiently: a 503, a connection reset, or a 429 with
`Retry-After: 1` (governance/fakecloud/server.py Chaos). The function runs in this process through
functions_framework's test client with the real clients and the real clock. A run passes when
every governed idle VM is stopped in that one run and no recommendation is left CLAIMED; it
reports the wall time and the busiest project's request rate (1 s and 60 s windows), to compare
with Compute's per-project rate quota (1,500 requests/minute per quota group:
https://cloud.google.com/compute/api-quota).
Usage: .venv/bin/python bench/functions_reap_idle.py [--projects N] [--fail-rate F] [--runs R]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "functions")]
ZONES = ["us-central1-a", "us-central1-b", "us-central1-c"]
_PROJECT = re.compile(r"/projects/([^/]+)/")


def serve(
    projects: int,
    recs_per_project: int,
    latency: float,
    fail_rate: float,
    queue: multiprocessing.Queue,
) -> None:
    from governance.fakecloud.compute import FakeCompute
    from governance.fakecloud.recommender import FakeRecommender
    from governance.fakecloud.server import Chaos, FakeGcp

    server = FakeGcp(latency_s=latency).start()
    compute, recommender = FakeCompute().install(server), FakeRecommender().install(server)
    for p in range(projects):
        project = f"acme-ml-{p:03d}"
        for i in range(recs_per_project):
            zone = ZONES[i % 3]
            compute.add(project, zone, f"vm-{i}")
            recommender.add(project, zone, f"vm-{i}")
    if fail_rate:
        server.chaotic(Chaos(fail_rate))
    queue.put(server.url)
    while True:
        cmd = queue.get()
        if cmd == "stats":
            calls = server.calls()
            stopped = sum(1 for i in compute.instances.values() if i["status"] == "TERMINATED")
            states = [r["stateInfo"]["state"] for r in recommender.recs.values()]
            queue.put(
                {
                    "calls": len(calls),
                    "peak_per_s": peak(calls, 1.0),
                    "peak_per_min": peak(calls, 60.0),
                    "stopped": stopped,
                    "claimed_left": states.count("CLAIMED"),
                    "succeeded": states.count("SUCCEEDED"),
                }
            )
        elif cmd == "stop":
            server.stop()
            return


def peak(calls: list[Any], window: float) -> int:
    """Most requests any one project received within `window` seconds (sliding)."""
    by_project: dict[str, list[float]] = {}
    for r in calls:
        if m := _PROJECT.search(r.path):
            by_project.setdefault(m[1], []).append(r.at)
    best = 0
    for times in by_project.values():
        times.sort()
        lo = 0
        for hi, t in enumerate(times):
            while t - times[lo] >= window:
                lo += 1
            best = max(best, hi - lo + 1)
    return best


def policy(projects: int, concurrency: int, rps: float) -> str:
    return json.dumps(
        {
            "dry_run": False,
            "exempt_label": {"key": "mlgov-exempt", "value": "true"},
            "projects": {
                f"acme-ml-{p:03d}": {
                    "environment": "dev",
                    "zones": ZONES,
                    "allow_billing_disable": False,
                }
                for p in range(projects)
            },
            "budgets": {},
            # What governance renders for a scheduled function (900 s timeout - 60 s).
            "time_budget_seconds": 840,
            "max_concurrency": concurrency,
            "max_requests_per_second_per_project": rps,
            # The bench measures how fast a run stops thousands of idle VMs; the default
            # blast-radius ceiling (100 stops a run) would hold them all.
            "blast_radius": {"max_stops_per_run": 1_000_000},
        }
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    queue: multiprocessing.Queue = multiprocessing.Queue()
    child = multiprocessing.Process(
        target=serve,
        args=(args.projects, args.recs_per_project, args.latency, args.fail_rate, queue),
        daemon=True,
    )
    child.start()
    url = queue.get(timeout=300)
    os.environ["MLGOV_API_ENDPOINTS"] = json.dumps({"compute": url, "recommender": url})
    os.environ["MLGOV_POLICY"] = policy(args.projects, args.concurrency, args.rps)
    from functions_framework import create_app

    app: Any = create_app("reap_idle_vms", str(REPO / "functions" / "main.py"), "http")
    client = app.test_client()
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the per-action log lines
    start = time.perf_counter()
    response = client.post("/")
    wall = time.perf_counter() - start
    sys.stdout = sys.__stdout__
    report = response.get_json()
    queue.put("stats")
    stats = queue.get()
    queue.put("stop")
    child.join(10)
    return {
        "wall_s": round(wall, 2),
        "status": response.status_code,
        "done": report["counts"].get("done", 0),
        "failed": report["counts"].get("failed", 0),
        "errors": len(report["errors"]),
        **stats,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", type=int, default=200)
    parser.add_argument("--recs-per-project", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rps", type=float, default=10.0)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--fail-rate", type=float, default=0.01)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    results = [run(args) for _ in range(args.runs)]
    median = {k: statistics.median(r[k] for r in results) for k in results[0]}
    print(json.dumps({"args": vars(args), "median": median, "runs": results}))


if __name__ == "__main__":
    main()
