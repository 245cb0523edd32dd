"""Benchmark the budget cap's reach: a 150% alert over many projects' GKE, TPU VMs and Vertex AI.

Default: 200 projects x 3 zones, each zone with 2 zonal clusters x 3 node pools (a GPU pool, a
TPU pool, a system pool; NAP with GPU/TPU limits), one TPU VM per zone and one running custom
job per project; 50 ms added to every call. The fake cloud (GKE operations finish on their first
poll, and a cluster refuses a write while one runs, as GKE does) runs in a child process; the
function runs here through functions_framework with the real adapters.
Reports the handler's wall time, when the last accelerator write arrived, the calls made, the
peak requests per second any one project received, and what the fake ended in.
Usage: .venv/bin/python bench/functions_cap.py [--projects N] [--runs R]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.functions_harness import (
    ZONES,
    FakeCloudProcess,
    add_ml_clusters,
    budget_alert,
    budget_policy,
    function_app,
    quiet_stdout,
    serve_commands,
    use_cloud,
)


def serve(projects: int, latency: float, commands: Any, answers: Any) -> None:
    from bench.functions_reap_idle import peak
    from governance.fakecloud.billing import FakeBilling
    from governance.fakecloud.compute import FakeCompute
    from governance.fakecloud.container import FakeContainer
    from governance.fakecloud.notebooks import FakeNotebooks
    from governance.fakecloud.server import FakeGcp
    from governance.fakecloud.tpu import FakeTpu
    from governance.fakecloud.vertex import FakeVertex

    server = FakeGcp(latency_s=latency).start()
    FakeCompute().install(server)
    FakeNotebooks().install(server)
    billing = FakeBilling().install(server)  # the budget flow reads each project's billing
    tpu, gke, vertex = FakeTpu().install(server), FakeContainer().install(server), FakeVertex()
    vertex.install(server)
    for p in range(projects):
        project = f"acme-ml-{p:03d}"
        billing.add(project)
        for zone in ZONES:
            tpu.add(project, zone, f"tpu-{zone[-1]}", labels={"workload": "training"})
            add_ml_clusters(gke, project, zone)
        vertex.add_job(project, "us-central1", "train")

    def result() -> dict[str, Any]:
        pools = [size for (_p, _z, _c, pool), size in gke.sizes.items() if pool != "system"]
        calls = server.calls()  # each request with its arrival time (`at`, monotonic)
        writes = [r.at for r in calls if r.method != "GET"]
        return {
            "calls": len(calls),
            "peak_requests_per_s_per_project": peak(calls, 1.0),
            "last_write_at": max(writes) if writes else 0.0,
            "accelerator_pools": len(pools),
            "accelerator_pools_at_zero": sum(1 for s in pools if s == 0),
            "nap_closed": sum(
                1
                for key in gke.clusters
                if all(
                    hi == 0
                    for t, (_lo, hi) in gke.limits(*key).items()
                    if t not in ("cpu", "memory")
                )
            ),
            "tpu_vms_stopped": sum(1 for n in tpu.nodes.values() if n["state"] == "STOPPED"),
            "jobs_cancelled": sum(
                1 for j in vertex.jobs.values() if j["state"] == "JOB_STATE_CANCELLING"
            ),
            "refused_400": sum(1 for _q, r in server.exchanges if r.status == 400),
        }

    answers.put(server.url)
    serve_commands(commands, answers, result, server.stop)


def run(projects: int, concurrency: int, rps: float, latency: float) -> dict[str, Any]:
    cloud = FakeCloudProcess(serve, projects, latency, timeout=300)
    services = ("compute", "notebooks", "tpu", "container", "aiplatform", "cloudbilling")
    names = [f"acme-ml-{p:03d}" for p in range(projects)]
    # time_budget_seconds 480 (the default): what the deployed budget function gets (540 - 60 s)
    policy = budget_policy(names, concurrency=concurrency, rps=rps)
    use_cloud({s: cloud.urls for s in services}, policy)
    app = function_app("on_budget_alert", "cloudevent")
    client = app.test_client()
    headers, body = budget_alert()
    with quiet_stdout():  # the per-action log lines
        start_wall, start = time.perf_counter(), time.monotonic()
        status = client.post("/", headers=headers, data=body).status_code
        wall = time.perf_counter() - start_wall
    result = cloud.result(timeout=120)
    # Both processes read CLOCK_MONOTONIC (same boot clock on Linux).
    result["last_accelerator_write_s"] = round(result.pop("last_write_at") - start, 2)
    return {"status": status, "wall_s": round(wall, 2), **result}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rps", type=float, default=10.0)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    results = [
        run(args.projects, args.concurrency, args.rps, args.latency) for _ in range(args.runs)
    ]
    out = {k: statistics.median(r[k] for r in results) for k in results[0]}
    print(json.dumps({"args": vars(args), "median": out, "runs": results}))


if __name__ == "__main__":
    main()
