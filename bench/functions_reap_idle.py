"""Benchmark reap_idle_vms: 200 projects x 3 zones, 2,000 idle recommendations, 50 ms per call.

The fake cloud runs in a child process (so its threads do not share our GIL); the function
runs in this process through functions_framework's test client with the real clients.
Usage: .venv/bin/python bench/functions_reap_idle.py [--projects N] [--concurrency C] [--rps R]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "functions")]
ZONES = ["us-central1-a", "us-central1-b", "us-central1-c"]


def serve(
    projects: int, recs_per_project: int, latency: float, queue: multiprocessing.Queue
) -> None:
    from tests.fakegcp.compute import FakeCompute
    from tests.fakegcp.recommender import FakeRecommender
    from tests.fakegcp.server import FakeGcp

    server = FakeGcp(latency_s=latency).start()
    stamps: list[tuple[float, str]] = []
    reply = server._reply  # record when each request arrived, to check per-project rates

    def timed(request):
        stamps.append((time.monotonic(), request.path))
        return reply(request)

    server._reply = timed
    compute, recommender = FakeCompute().install(server), FakeRecommender().install(server)
    for p in range(projects):
        project = f"acme-ml-{p:03d}"
        for i in range(recs_per_project):
            zone = ZONES[i % 3]
            compute.add(project, zone, f"vm-{i}")
            recommender.add(project, zone, f"vm-{i}")
    queue.put(server.url)
    while True:
        cmd = queue.get()
        if cmd == "calls":
            queue.put((len(server.calls()), peak_rate(stamps)))
        elif cmd == "stop":
            server.stop()
            return


def peak_rate(stamps: list[tuple[float, str]]) -> float:
    """Most requests any one project received within one second (sliding window)."""
    import re

    by_project: dict[str, list[float]] = {}
    for t, path in stamps:
        if m := re.search(r"/projects/([^/]+)/", path):
            by_project.setdefault(m[1], []).append(t)
    best = 0
    for times in by_project.values():
        times.sort()
        lo = 0
        for hi, t in enumerate(times):
            while t - times[lo] >= 1.0:
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
            "time_budget_seconds": 3000,
            "max_concurrency": concurrency,
            "max_requests_per_second_per_project": rps,
        }
    )


def run(projects: int, recs: int, concurrency: int, rps: float, latency: float) -> dict[str, float]:
    queue: multiprocessing.Queue = multiprocessing.Queue()
    child = multiprocessing.Process(
        target=serve, args=(projects, recs, latency, queue), daemon=True
    )
    child.start()
    url = queue.get(timeout=120)
    os.environ["MLGOV_API_ENDPOINTS"] = json.dumps({"compute": url, "recommender": url})
    os.environ["MLGOV_POLICY"] = policy(projects, concurrency, rps)
    from functions_framework import create_app

    app: Any = create_app("reap_idle_vms", str(REPO / "functions" / "main.py"), "http")
    client = app.test_client()
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the per-action log lines
    start = time.perf_counter()
    report = client.post("/").get_json()
    wall = time.perf_counter() - start
    sys.stdout = sys.__stdout__
    queue.put("calls")
    calls, peak = queue.get()
    queue.put("stop")
    child.join(10)
    return {
        "wall_s": wall,
        "calls": calls,
        "peak_requests_per_s_per_project": peak,
        "done": report["counts"].get("done", 0),
        "failed": report["counts"].get("failed", 0),
        "errors": len(report["errors"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", type=int, default=200)
    parser.add_argument("--recs-per-project", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rps", type=float, default=10.0)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    results = [
        run(args.projects, args.recs_per_project, args.concurrency, args.rps, args.latency)
        for _ in range(args.runs)
    ]
    out = {k: statistics.median(r[k] for r in results) for k in results[0]}
    print(json.dumps({"args": vars(args), "median": out, "runs": results}))


if __name__ == "__main__":
    main()
