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
import base64
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
NAP = {"cpu": (0, 512), "memory": (0, 2048), "nvidia-l4": (0, 32), "tpu-v5-lite-podslice": (0, 64)}


def serve(projects: int, latency: float, queue: multiprocessing.Queue) -> None:
    from bench.functions_reap_idle import peak
    from governance.fakecloud.compute import FakeCompute
    from governance.fakecloud.container import FakeContainer
    from governance.fakecloud.notebooks import FakeNotebooks
    from governance.fakecloud.server import FakeGcp
    from governance.fakecloud.tpu import FakeTpu
    from governance.fakecloud.vertex import FakeVertex

    server = FakeGcp(latency_s=latency).start()
    FakeCompute().install(server)
    FakeNotebooks().install(server)
    tpu, gke, vertex = FakeTpu().install(server), FakeContainer().install(server), FakeVertex()
    vertex.install(server)
    auto = {
        "enabled": True,
        "totalMinNodeCount": 0,
        "totalMaxNodeCount": 8,
        "locationPolicy": "ANY",
    }
    for p in range(projects):
        project = f"acme-ml-{p:03d}"
        for zone in ZONES:
            tpu.add(project, zone, f"tpu-{zone[-1]}", labels={"workload": "training"})
            for c in range(2):
                name = f"ml-{zone[-1]}{c}"
                gke.add_cluster(project, zone, name, nap=NAP)
                gke.add_pool(project, zone, name, "system", nodes=1, initial=1)
                gke.add_pool(
                    project,
                    zone,
                    name,
                    "l4",
                    machine_type="g2-standard-8",
                    gpus=1,
                    autoscaling=auto,
                    nodes=4,
                )
                gke.add_pool(
                    project,
                    zone,
                    name,
                    "v5e",
                    machine_type="ct5lp-hightpu-4t",
                    autoscaling=auto,
                    nodes=2,
                )
        vertex.add_job(project, "us-central1", "train")
    queue.put(server.url)
    while True:
        cmd = queue.get()
        if cmd == "result":
            pools = [size for (_p, _z, _c, pool), size in gke.sizes.items() if pool != "system"]
            calls = server.calls()  # each request with its arrival time (`at`, monotonic)
            writes = [r.at for r in calls if r.method != "GET"]
            queue.put(
                {
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
                    "tpu_vms_stopped": sum(
                        1 for n in tpu.nodes.values() if n["state"] == "STOPPED"
                    ),
                    "jobs_cancelled": sum(
                        1 for j in vertex.jobs.values() if j["state"] == "JOB_STATE_CANCELLING"
                    ),
                    "refused_400": sum(1 for _q, r in server.exchanges if r.status == 400),
                }
            )
        elif cmd == "stop":
            server.stop()
            return


def policy(projects: int, concurrency: int, rps: float) -> str:
    names = [f"acme-ml-{p:03d}" for p in range(projects)]
    return json.dumps(
        {
            "dry_run": False,
            "exempt_label": {"key": "mlgov-exempt", "value": "true"},
            "projects": {
                n: {"environment": "prod", "zones": ZONES, "allow_billing_disable": False}
                for n in names
            },
            "budgets": {"b1": {"projects": names, "stop_at": 1.0, "disable_billing_at": None}},
            "time_budget_seconds": 480,  # what the deployed budget function gets (540 s - 60 s)
            "max_concurrency": concurrency,
            "max_requests_per_second_per_project": rps,
        }
    )


def run(projects: int, concurrency: int, rps: float, latency: float) -> dict[str, Any]:
    queue: multiprocessing.Queue = multiprocessing.Queue()
    child = multiprocessing.Process(target=serve, args=(projects, latency, queue), daemon=True)
    child.start()
    url = queue.get(timeout=300)
    services = ("compute", "notebooks", "tpu", "container", "aiplatform")
    os.environ["MLGOV_API_ENDPOINTS"] = json.dumps({s: url for s in services})
    os.environ["MLGOV_POLICY"] = policy(projects, concurrency, rps)
    from cloudevents.conversion import to_structured
    from cloudevents.http import CloudEvent
    from functions_framework import create_app

    app: Any = create_app("on_budget_alert", str(REPO / "functions" / "main.py"), "cloudevent")
    client = app.test_client()
    data = {
        "costAmount": 1500.0,
        "budgetAmount": 1000.0,
        "alertThresholdExceeded": 1.5,
        "currencyCode": "USD",
        # This month's: a notification of an earlier period acts on nothing.
        "costIntervalStart": time.strftime("%Y-%m-01T00:00:00Z", time.gmtime()),
    }
    event = CloudEvent(
        {"type": "google.cloud.pubsub.topic.v1.messagePublished", "source": "//bench", "id": "1"},
        {
            "message": {
                "data": base64.b64encode(json.dumps(data).encode()).decode(),
                "attributes": {"budgetId": "b1", "schemaVersion": "1.0"},
                "messageId": "1",
            }
        },
    )
    headers, body = to_structured(event)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the per-action log lines
    start_wall, start = time.perf_counter(), time.monotonic()
    status = client.post("/", headers=headers, data=body).status_code
    wall = time.perf_counter() - start_wall
    sys.stdout = sys.__stdout__
    queue.put("result")
    result = queue.get(timeout=120)
    queue.put("stop")
    child.join(10)
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
