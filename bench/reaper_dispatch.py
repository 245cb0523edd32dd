"""What keeping the blast radius costs a fanned-out reaper's dispatcher (issue 29).

The fake cloud (Compute, Asset Inventory indexing its VMs) runs in a child process with
`--latency` added to every call; this process runs the `reap_expired` dispatcher
(MLGOV_WORK_TOPIC set, the fake Pub/Sub in-process) under functions_framework. A folder holds
`--projects` governed projects, each with one plain VM; every `--expired-every`-th also has a VM
whose `mlgov-expires-on` date has passed. Three policies are compared:

- `reap_idle_vms`: nothing to count, the ceiling split evenly (the dispatcher as it was, plus
  the split);
- `reap_expired`: one more Asset Inventory search per 500 expired workloads (candidate count);
- `reap_expired --percent`: `max_stop_percent` set, so the search reads the whole running
  estate (one call per 500 running VMs).

Reports the dispatcher's answer time and its Asset Inventory calls, median of `--runs`.
Usage: .venv/bin/python bench/reaper_dispatch.py [--projects N] [--latency S] [--runs R]
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
FOLDER = "folders/100"

from bench.functions_harness import folder_policy  # noqa: E402

ZONE = "us-east1-b"
TOPIC = "projects/acme-ops/topics/acme-work"


def serve(projects: int, expired_every: int, latency: float, queue: Any, answers: Any) -> None:
    from governance.fakecloud.cloudasset import FakeAssets
    from governance.fakecloud.compute import FakeCompute
    from governance.fakecloud.server import FakeGcp

    server = FakeGcp(latency_s=latency).start()
    compute, assets = FakeCompute().install(server), FakeAssets().install(server)
    assets.watch(compute=compute)
    assets.add_folder(FOLDER)
    for i in range(projects):
        project = f"p-{i:05d}"
        assets.add_project(project, FOLDER, labels={"mlgov-governed": "true"})
        compute.add(project, ZONE, "vm")
        if i % expired_every == 0:
            compute.add(project, ZONE, "old", labels={"mlgov-expires-on": "2020-01-01"})
    answers.put(server.url)
    while True:
        cmd = queue.get()
        if cmd == "searches":
            answers.put(sum(1 for r in server.calls() if ":searchAllResources" in r.path))
        elif cmd == "stop":
            server.stop()
            return


def policy(percent: bool, projects: int) -> str:
    radius: dict[str, Any] = {"max_stops_per_run": projects}
    if percent:
        radius["max_stop_percent"] = 100
    return json.dumps({**folder_policy(FOLDER), "blast_radius": radius})


def run(args: argparse.Namespace, job: str, percent: bool) -> dict[str, Any]:
    from functions_framework import create_app

    from governance.fakecloud.pubsub import FakePubSub
    from governance.fakecloud.server import FakeGcp

    queue: Any = multiprocessing.Queue()
    answers: Any = multiprocessing.Queue()
    child = multiprocessing.Process(
        target=serve,
        args=(args.projects, args.expired_every, args.latency, queue, answers),
        daemon=True,
    )
    child.start()
    url = answers.get(timeout=600)
    local = FakeGcp().start()
    pubsub = FakePubSub().install(local)
    pubsub.add_topic(TOPIC)
    os.environ["MLGOV_API_ENDPOINTS"] = json.dumps(
        {"compute": url, "cloudasset": url, "pubsub": local.url}
    )
    os.environ["MLGOV_POLICY"] = policy(percent, args.projects)
    os.environ["MLGOV_WORK_TOPIC"] = TOPIC
    app: Any = create_app(job, str(REPO / "functions" / "main.py"), "http")
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the functions' log lines
    start = time.perf_counter()
    response = app.test_client().post("/")
    answer_s = time.perf_counter() - start
    sys.stdout = sys.__stdout__
    queue.put("searches")
    searches = answers.get(timeout=60)
    queue.put("stop")
    child.join(10)
    local.stop()
    report = response.get_json()
    return {
        "status": response.status_code,
        "answer_s": round(answer_s, 2),
        "asset_searches": searches,
        "items": report["dispatch"]["items"],
        "bound": report["dispatch"]["blast_radius"]["bound"],
        "counted_candidates": report["dispatch"]["blast_radius"]["counted_candidates"],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--expired-every", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    out: dict[str, Any] = {"args": vars(args)}
    for name, job, percent in [
        ("reap_idle_vms", "reap_idle_vms", False),
        ("reap_expired", "reap_expired", False),
        ("reap_expired --percent", "reap_expired", True),
    ]:
        results = [run(args, job, percent) for _ in range(args.runs)]
        out[name] = {
            "median": {k: statistics.median(r[k] for r in results) for k in results[0]},
            "runs": results,
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
