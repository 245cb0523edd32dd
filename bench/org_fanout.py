"""Measure (a) of issue 29: a budget alert fanned out over many projects, on the real code.

The fake cloud (Compute, Workbench, TPU, GKE, Vertex AI, Cloud Billing, Asset Inventory) runs in
a child process with `--latency` added to every call; this process runs the dispatcher
(`on_budget_alert` with MLGOV_WORK_TOPIC) and the worker (`on_work_item`) under
functions_framework, with the fake Pub/Sub and the push-delivery harness
(governance/fakecloud/pushdelivery.py): W concurrent deliveries into one worker instance,
at-least-once with `--duplicates` duplicates (half of them concurrent with their twin) and
`--crashes` worker crashes after the function ran (its answer lost: redelivered). Pub/Sub's
retry backoff is scaled to `--backoff` seconds (10 s in production) so a run does not wait out
real minutes.

A folder holds `--projects` governed projects; every fifth has accelerators (a GPU VM, a TPU VM,
a GKE cluster with a GPU pool under NAP, a Vertex AI custom job), the others one plain VM.
Reports: how long the dispatcher took to answer; from the alert to the last stop requested
(a VM or TPU VM stop, a pool resize, a job cancel) and to the last write the fake received;
calls per project, with and without accelerators; the checks that no project was lost (every
item acknowledged, nothing dead-lettered, every VM stopped) and no write was made twice (each
stop and each pool resize at most once); and what the run cost this process (dispatcher, worker
and the Pub/Sub harness: CPU seconds, the most threads alive at once, peak memory) and the fake
cloud's process (CPU seconds). The machine is shared, so CPU time is the steadier figure.
`--single`: the same alert in one invocation (no MLGOV_WORK_TOPIC), for comparison.
`--functions DIR`: run another checkout's functions (e.g. main's, to compare before and after).
Usage: .venv/bin/python bench/org_fanout.py [--projects N] [--workers W] [--runs R] [--single]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.functions_harness import (
    FUNCTIONS,
    FakeCloudProcess,
    budget_alert,
    cpu_seconds,
    folder_policy,
    function_app,
    quiet_stdout,
    serve_commands,
    use_cloud,
    use_functions,
)

if "--functions" in sys.argv:  # before anything imports govern
    FUNCTIONS = Path(sys.argv[sys.argv.index("--functions") + 1]).resolve()
    use_functions(FUNCTIONS)
_STOPS = (":stop", "/stop", ":setSize", ":cancel")
"""Paths of the writes that stop something that bills."""
FOLDER = "folders/100"
ZONE = "us-east1-b"  # a zone no listed project governs: only the scope reaches it
TOPIC = "projects/acme-ops/topics/acme-work"
DEAD = "projects/acme-ops/topics/acme-work-dead"
_PROJECT = re.compile(r"/projects/(p-\d+)/")


def project_ids(n: int) -> list[str]:
    return [f"p-{i:05d}" for i in range(n)]


def accelerated(project: str) -> bool:
    return int(project[2:]) % 5 == 0


def serve(projects: int, latency: float, commands: Any, answers: Any) -> None:
    from governance.fakecloud.billing import FakeBilling
    from governance.fakecloud.cloudasset import FakeAssets
    from governance.fakecloud.compute import FakeCompute
    from governance.fakecloud.container import FakeContainer
    from governance.fakecloud.notebooks import FakeNotebooks
    from governance.fakecloud.server import FakeGcp
    from governance.fakecloud.tpu import FakeTpu
    from governance.fakecloud.vertex import FakeVertex

    server = FakeGcp(latency_s=latency).start()
    compute, tpu = FakeCompute().install(server), FakeTpu().install(server)
    FakeNotebooks().install(server)
    FakeBilling().install(server)
    gke, vertex, assets = FakeContainer(), FakeVertex(), FakeAssets()
    for fake in (gke, vertex, assets):
        fake.install(server)
    assets.add_folder(FOLDER)
    for project in project_ids(projects):
        assets.add_project(project, FOLDER, labels={"mlgov-governed": "true"})
        compute.add(project, ZONE, "vm")
        if accelerated(project):
            compute.add(project, ZONE, "gpu", gpus=1, labels={"workload": "training"})
            tpu.add(project, ZONE, "tpu")
            gke.add_cluster(project, "us-east1", "ml", nap={"nvidia-l4": (0, 8)})
            gke.add_pool(
                project,
                "us-east1",
                "ml",
                "l4",
                machine_type="g2-standard-8",
                gpus=1,
                autoscaling={"enabled": True, "totalMinNodeCount": 0, "totalMaxNodeCount": 4},
                nodes=2,
            )
            vertex.add_job(project, "us-central1", "train")

    def result() -> dict[str, Any]:
        calls = server.calls()
        per_project: Counter[str] = Counter()
        for r in calls:
            if m := _PROJECT.search(r.path):
                per_project[m[1]] += 1
        writes = [r for r in calls if r.method != "GET"]
        stops = [r for r in writes if r.path.endswith(_STOPS)]
        used = resource.getrusage(resource.RUSAGE_SELF)
        return {
            "calls": len(calls),
            "per_project": dict(per_project),
            "asset_searches": sum(1 for r in calls if ":searchAllResources" in r.path),
            "writes": Counter(f"{r.method} {r.path}" for r in writes),
            "last_write_at": max((r.at for r in writes), default=0.0),
            "last_stop_at": max((r.at for r in stops), default=0.0),
            "stops": len(stops),
            "cpu_s": used.ru_utime + used.ru_stime,
            "running_vms": sum(1 for i in compute.instances.values() if i["status"] == "RUNNING"),
            "tpu_ready": sum(1 for n in tpu.nodes.values() if n["state"] == "READY"),
        }

    answers.put(server.url)
    serve_commands(commands, answers, result, server.stop)


def policy(workers: int) -> dict[str, Any]:
    return {
        **folder_policy(FOLDER),
        "budgets": {
            "b1": {
                "projects": [],
                "scopes": [FOLDER],
                "stop_at": 1.0,
                "disable_billing_at": None,
            }
        },
        "time_budget_seconds": 480,
        "max_concurrency": 16,
        "fan_out": {"max_delivery_attempts": 5, "worker_instances": 1},
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    from govern import clock
    from governance.fakecloud.pubsub import FakePubSub
    from governance.fakecloud.pushdelivery import Faults, PushDelivery, Subscription, app_endpoint
    from governance.fakecloud.server import FakeGcp

    cloud = FakeCloudProcess(serve, args.projects, args.latency)
    local = FakeGcp().start()  # Pub/Sub, in this process: the harness subscribes to it
    pubsub = FakePubSub().install(local)
    services = ("compute", "notebooks", "tpu", "container", "aiplatform", "cloudbilling")
    endpoints = {s: cloud.urls for s in (*services, "cloudasset")}
    topic = None if args.single else TOPIC
    use_cloud({**endpoints, "pubsub": local.url}, policy(args.workers), work_topic=topic)
    dispatcher = function_app("on_budget_alert", "cloudevent", FUNCTIONS)
    worker = function_app("on_work_item", "cloudevent", FUNCTIONS)
    dead = function_app("on_dead_letter", "cloudevent", FUNCTIONS)
    faults = Faults(
        duplicate_rate=args.duplicates, concurrent_share=0.5, crash_rate=args.crashes, seed=1
    )
    push = PushDelivery(pubsub, clock.SYSTEM, workers=args.workers, faults=faults)
    work_sub = "projects/acme-ops/subscriptions/acme-work-push"
    push.subscribe(
        Subscription(
            work_sub,
            TOPIC,
            app_endpoint(worker),
            dead_letter_topic=DEAD,
            min_backoff=args.backoff,
            max_backoff=args.backoff * 60,
        )
    )
    push.subscribe(Subscription("projects/acme-ops/subscriptions/dead", DEAD, app_endpoint(dead)))
    headers, body = budget_alert(1000.0, 1.0, "%Y-%m-01T08:00:00Z")
    sampler = Sampler()
    with quiet_stdout():  # the functions' log lines
        cpu0 = cpu_seconds()
        start, t0 = time.perf_counter(), time.monotonic()
        status = dispatcher.test_client().post("/", headers=headers, data=body).status_code
        dispatch_s = time.perf_counter() - start
        push.run(max_seconds=3600)
        total_s = time.perf_counter() - start
        cpu = cpu_seconds() - cpu0
    sampler.stop()
    result = cloud.result(timeout=300)
    local.stop()
    published = {m["messageId"] for m in pubsub.messages.get(TOPIC, [])}
    acked = {mid for s, mid in push.acked if s == work_sub}
    per_project = result["per_project"]
    with_acc = [per_project.get(p, 0) for p in project_ids(args.projects) if accelerated(p)]
    without = [per_project.get(p, 0) for p in project_ids(args.projects) if not accelerated(p)]
    kinds = Counter(a.kind for a in push.attempts)
    return {
        "dispatcher_status": status,
        "dispatcher_answer_s": round(dispatch_s, 2),
        "alert_to_last_stop_s": round(result["last_stop_at"] - t0, 2),
        "alert_to_last_write_s": round(result["last_write_at"] - t0, 2),
        "stops_requested": result["stops"],
        "until_every_item_acknowledged_s": round(total_s, 2),
        "items_published": len(published),
        "items_lost": len(published - acked),
        "dead_lettered": len(push.dead_lettered),
        "deliveries": len(push.attempts),
        "duplicate_deliveries": kinds["duplicate"] + kinds["concurrent duplicate"],
        "crashes": sum(1 for a in push.attempts if a.crashed),
        "redeliveries": kinds["redelivery"],
        "running_vms_left": result["running_vms"],
        "tpu_vms_left_ready": result["tpu_ready"],
        "writes_made_twice": sum(1 for n in result["writes"].values() if n > 1),
        "calls_per_project_with_accelerators": statistics.median(with_acc) if with_acc else 0,
        "calls_per_project_without": statistics.median(without) if without else 0,
        "asset_searches": result["asset_searches"],
        "calls": result["calls"],
        "cpu_s": round(cpu, 2),
        "fake_cloud_cpu_s": round(result["cpu_s"], 2),
        "cpu_ms_per_call": round(1000 * cpu / max(1, result["calls"]), 2),
        "peak_threads": sampler.peak_threads,
        "peak_rss_mb": round(_kb("VmHWM") / 1024, 1),
        "rss_before_mb": sampler.rss_before_mb,
    }


def _kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


class Sampler:
    """The most threads alive at once in this process, sampled every 20 ms."""

    def __init__(self) -> None:
        self.peak_threads = threading.active_count()
        self.rss_before_mb = round(_kb("VmRSS") / 1024, 1)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(0.02):
            self.peak_threads = max(self.peak_threads, threading.active_count())

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--duplicates", type=float, default=0.3)
    parser.add_argument("--crashes", type=float, default=0.01)
    parser.add_argument("--backoff", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--single", action="store_true", help="one invocation, no fan-out")
    parser.add_argument("--functions", type=Path, default=None, help="functions/ to run")
    args = parser.parse_args()
    results = [run(args) for _ in range(args.runs)]
    out = {k: statistics.median(r[k] for r in results) for k in results[0]}
    print(json.dumps({"args": vars(args), "median": out, "runs": results}, default=str))


if __name__ == "__main__":
    main()
