"""Measure what one project costs each job: calls by API and method, stops, and their dependencies.

Runs the REAL functions (functions/main.py through functions_framework, real google-cloud-*
clients over REST) against the fake cloud (tests/fakegcp/), one fake server per service in a
child process, so every request is named by its service's discovery document
(bench/orgsim/apis.py). Two kinds of project:

- `accelerated`: 3 zones, each with 2 zonal GKE clusters (a system pool, an L4 GPU pool, a v5e
  TPU pool; node auto-provisioning with GPU/TPU limits), one TPU VM and one GPU VM (both
  labelled workload=training, expired, idle: 0% in Monitoring), and one running Vertex AI
  custom job;
- `plain`: 10 plain VMs over the 3 zones (4 of them expired), each with an ACTIVE idle-VM
  recommendation.

Jobs: `budget` (a 150% alert, stop_at 1.0), `budget_unlink` (the same alert, billing unlink
allowed at 1.2), `reap_idle_vms`, `reap_expired`, `reap_idle_gpus`. For each job:

1. counting runs (`--runs`): one invocation over `--projects` projects of each kind, 50 ms per
   call, the deployed limits (64 workers, 10 calls/s per project): the calls every project
   received by method (min/median/max over projects), the handler's wall and CPU time;
2. trace runs (`--trace-runs`): one project of each kind, each call answered after a random
   latency (lognormal, median 80 ms, p99 800 ms, seeded per run) and no rate limit, to find
   which call waits for which (bench/orgsim/profile.py derive_trace; GKE clusters' chains are
   independent but across the one barrier the code has: gke_clusters_unrelated).

`--unit`: `invocation` (the projects listed with their zones, one invocation of the job's entry
point over all of them) or `work_item` (the fan-out case: the projects found through a folder
scope, so governed in every zone, and each project's part run by `on_work_item` from the work
item its dispatcher would publish, `--item-concurrency` items at once in this one process: a
worker instance). Pacing of organization-level quotas is left out of the measurement
(`fan_out.worker_instances` 1: the simulation applies it).

Writes bench/profiles/<name>.json (format: bench/orgsim/profile.py) with the command, the date
and the machine. Usage:
  .venv/bin/python bench/org_profile.py [--unit invocation|work_item] [--projects 20] [--runs 3]
      [--trace-runs 16] [--jobs budget,reap_idle_vms,...] [--out bench/profiles/<unit>.json]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.functions_harness import (
    REPO,
    ZONES,
    FakeCloudProcess,
    add_ml_clusters,
    budget_alert,
    budget_policy,
    cpu_seconds,
    function_app,
    quiet_stdout,
    serve_commands,
    use_cloud,
)
from bench.orgsim import apis
from bench.orgsim.latency import Lognormal
from bench.orgsim.profile import (
    JobProfile,
    KindProfile,
    Observed,
    Profile,
    derive_trace,
    dump,
    gke_clusters_unrelated,
)

SERVICES = tuple(apis.DOCUMENTS)
KINDS = ("accelerated", "plain")
TRACE_LATENCY = (0.08, 0.8)
"""Median and p99 of the trace runs' lognormal latency: wide, so unrelated calls reorder."""
JOBS = {
    "budget": "on_budget_alert",
    "budget_unlink": "on_budget_alert",
    "reap_idle_vms": "reap_idle_vms",
    "reap_expired": "reap_expired",
    "reap_idle_gpus": "reap_idle_gpus",
}
EXPIRED = {"mlgov-expires-on": "2026-01-31"}
FOLDER = "folders/100"
"""The scope that governs every project in the `work_item` unit."""
UNITS = ("invocation", "work_item")
_PROJECT = re.compile(r"projects/([^/]+)")
_CLUSTER = re.compile(r"(projects/[^/]+/locations/[^/]+/clusters/[^/:]+)")


def project_name(kind: str, i: int) -> str:
    return f"acme-{kind[:3]}-{i:03d}"


# -- the fake cloud (child process) --------------------------------------------------------------


def _tracing_server(latency: tuple[float, float], seed: int) -> Any:
    from governance.fakecloud.server import FakeGcp

    class TracingGcp(FakeGcp):
        """FakeGcp that draws each call's latency and notes when each reply was ready."""

        def __init__(self) -> None:
            self.ended: dict[int, float] = {}
            self._draw = random.Random(seed)
            super().__init__(latency_s=latency[0])

        @property
        def latency_s(self) -> float:  # pyright: ignore[reportIncompatibleVariableOverride]
            median, p99 = latency
            if median == p99:
                return median
            return Lognormal.from_median_p99(median, p99).draw(self._draw)

        @latency_s.setter
        def latency_s(self, _value: float) -> None:
            return

        def _route(self, request: Any) -> Any:
            reply = super()._route(request)
            self.ended[id(request)] = time.monotonic()
            return reply

    return TracingGcp()


def _populate(fakes: dict[str, Any], kind: str, project: str) -> None:
    compute, gke, tpu, vertex = fakes["compute"], fakes["container"], fakes["tpu"], fakes["vertex"]
    fakes["billing"].add(project)
    if kind == "plain":
        for i in range(10):
            zone = ZONES[i % 3]
            compute.add(project, zone, f"vm-{i}", labels=EXPIRED if i < 4 else {})
            fakes["recommender"].add(project, zone, f"vm-{i}")
        return
    accel = {"workload": "training", **EXPIRED}
    for zone in ZONES:
        z = zone[-1]
        tpu.add(project, zone, f"tpu-{z}", labels=accel)
        fakes["monitoring"].set_tpu(project, f"tpu-{z}", 0.0)
        vm = compute.add(
            project, zone, f"gpu-{z}", gpus=1, machine_type="g2-standard-8", labels=accel
        )
        fakes["monitoring"].set(project, vm["id"], 0.0)
        add_ml_clusters(gke, project, zone)
    vertex.add_job(project, "us-central1", "train")


def serve(
    projects: dict[str, str], latency: tuple[float, float], seed: int, commands: Any, answers: Any
) -> None:
    from governance.fakecloud.billing import FakeBilling
    from governance.fakecloud.compute import FakeCompute
    from governance.fakecloud.container import FakeContainer
    from governance.fakecloud.monitoring import FakeMonitoring
    from governance.fakecloud.notebooks import FakeNotebooks
    from governance.fakecloud.recommender import FakeRecommender
    from governance.fakecloud.tpu import FakeTpu
    from governance.fakecloud.vertex import FakeVertex

    servers = {s: _tracing_server(latency, seed + i).start() for i, s in enumerate(SERVICES)}
    gke = FakeContainer().install(servers["container"])
    gke.install(servers["compute"])  # the pools' instance groups are Compute's
    fakes = {
        "compute": FakeCompute().install(servers["compute"]),
        "container": gke,
        "tpu": FakeTpu().install(servers["tpu"]),
        "vertex": FakeVertex().install(servers["aiplatform"]),
        "notebooks": FakeNotebooks().install(servers["notebooks"]),
        "recommender": FakeRecommender().install(servers["recommender"]),
        "billing": FakeBilling().install(servers["cloudbilling"]),
        "monitoring": FakeMonitoring().install(servers["monitoring"]),
    }
    for project, kind in projects.items():
        _populate(fakes, kind, project)
    numbers = {v: k for k, v in fakes["recommender"].numbers.items()}
    # Recommendation ids are random (uuid4): name each by the VM it is about instead, so the
    # same call can be recognised across runs.
    recs = {}
    for name, rec in fakes["recommender"].recs.items():
        vm = re.search(r"instances/([^\"/]+)", json.dumps(rec))
        recs[name.rsplit("/", 1)[-1]] = f"rec-{vm[1] if vm else 'unknown'}"

    def result() -> dict[str, Any]:
        records = []
        for service, srv in servers.items():
            for request, reply in list(srv.exchanges):
                body = reply.body if isinstance(reply.body, dict) else {}
                records.append(
                    (
                        service,
                        request.method,
                        request.path,
                        sorted((k, v) for k, vs in request.query.items() for v in vs),
                        request.at,
                        srv.ended.get(id(request), request.at),
                        reply.status,
                        str(body.get("name", "")),
                    )
                )
        return {"records": records, "numbers": numbers, "recs": recs}

    def stop() -> None:
        for srv in servers.values():
            srv.stop()

    answers.put({s: srv.url for s, srv in servers.items()})
    serve_commands(commands, answers, result, stop)


# -- one invocation -----------------------------------------------------------------------------


def policy(
    job: str, projects: dict[str, str], concurrency: int, rps: float, unit: str = "invocation"
) -> dict[str, Any]:
    unlink = job == "budget_unlink"
    # What governance renders: event function 540 s - 60 s; HTTP 900 s - 60 s.
    time_budget = 480 if job.startswith("budget") else 840
    doc = budget_policy(
        list(projects), concurrency=concurrency, rps=rps, time_budget_seconds=time_budget,
        unlink=unlink,
    )  # fmt: skip
    if unit == "work_item":
        # Found through a folder: every zone (aggregatedList, locations/-), Vertex AI in
        # us-central1. One worker instance: its pacing share is the whole half of each quota.
        doc["projects"] = {}
        doc["scopes"] = {
            FOLDER: {
                "environment": "prod",
                "allow_billing_disable": unlink,
                "vertex_regions": ["us-central1"],
            }
        }
        doc["budgets"]["b1"]["projects"] = []
        doc["budgets"]["b1"]["scopes"] = [FOLDER]
        doc["time_budget_seconds"] = 480  # on_work_item is an event function
        doc["fan_out"] = {"max_delivery_attempts": 20, "worker_instances": 1}
    return doc


def _item_body(job: str, project: str) -> bytes:
    """The push body of the work item `job`'s dispatcher would publish for `project`."""
    from govern import workitems
    from govern.admission import period_stamp
    from govern.periods import period_start

    now = datetime.now(UTC)
    item: Any
    if job.startswith("budget"):
        began = period_stamp(period_start("MONTH", now))
        item = workitems.BudgetItem(
            project=project,
            run="bench",
            key=workitems.budget_key("b1", began, 1.2 if job == "budget_unlink" else 1.0, project),
            scope=FOLDER,
            budget_id="b1",
            ratio=1.5,
            period_start=began,
            stop=True,
            unlink=job == "budget_unlink",
        )
    else:
        item = workitems.ReaperItem(
            job=job,  # type: ignore[arg-type]
            project=project,
            run="bench",
            key=workitems.reaper_key(job, "bench", project),
            scope=FOLDER,
            allowance=None,
            dry_run=False,
            started=now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
    message = workitems.message(item)
    return json.dumps(
        {
            "message": {
                "data": base64.b64encode(message.data).decode(),
                "attributes": dict(message.attributes),
                "messageId": f"{job}-{project}",
            },
            "subscription": "projects/acme-ops/subscriptions/acme-work-push",
        }
    ).encode()


def invoke(
    job: str,
    projects: dict[str, str],
    latency: tuple[float, float],
    seed: int,
    concurrency: int,
    rps: float,
    unit: str = "invocation",
    item_concurrency: int = 8,
) -> dict[str, Any]:
    """One run of `job` over `projects` against a fresh fake cloud: records and times.

    `invocation`: one invocation of the job's entry point; `work_item`: one on_work_item
    delivery per project, `item_concurrency` at once.
    """
    cloud = FakeCloudProcess(serve, projects, latency, seed)
    endpoints = {s: u for s, u in cloud.urls.items() if s not in ("cloudasset", "pubsub")}
    use_cloud(endpoints, policy(job, projects, concurrency, rps, unit))
    entry = "on_work_item" if unit == "work_item" else JOBS[job]
    kind = "cloudevent" if entry in ("on_budget_alert", "on_work_item") else "http"
    app = function_app(entry, kind)
    headers, body = budget_alert() if kind == "cloudevent" else ({}, b"")
    with quiet_stdout():  # the per-action log lines
        cpu0 = cpu_seconds()
        start = time.perf_counter()
        status = _deliver(app, job, projects, item_concurrency) if unit == "work_item" else (
            app.test_client().post("/", headers=headers, data=body).status_code
        )  # fmt: skip
        wall = time.perf_counter() - start
        cpu = cpu_seconds() - cpu0
    result = cloud.result()
    return {"status": status, "wall_s": wall, "cpu_s": cpu, **result}


def _deliver(app: Any, job: str, projects: dict[str, str], item_concurrency: int) -> int:
    """One on_work_item delivery per project, `item_concurrency` at once: the worst status."""
    from concurrent.futures import ThreadPoolExecutor

    def deliver(project: str) -> int:
        push = {"Content-Type": "application/json"}
        answer = app.test_client().post("/", headers=push, data=_item_body(job, project))
        return int(answer.status_code)

    with ThreadPoolExecutor(max_workers=item_concurrency) as pool:
        return max(pool.map(deliver, sorted(projects)))


# -- from records to a profile ------------------------------------------------------------------


def observe(result: dict[str, Any]) -> dict[str, list[Observed]]:
    """The requests of one invocation as Observed calls, per project."""
    numbers: dict[str, str] = result["numbers"]
    recs: dict[str, str] = result["recs"]
    rows = sorted(result["records"], key=lambda r: r[4])
    writes_by_op: dict[tuple[str, str], str] = {}
    seen: Counter[str] = Counter()
    out: dict[str, list[Observed]] = defaultdict(list)
    for service, http_method, path, query, at, end, status, op_name in rows:
        method = apis.identify(service, http_method, path)
        if service == "recommender":
            path = re.sub(
                r"recommendations/([^/:]+)",
                lambda m: f"recommendations/{recs.get(m[1], m[1])}",
                path,
            )
        found = _PROJECT.search(path)
        project = numbers.get(found[1], found[1]) if found else ""
        confirms = ""
        if method.call_class == "poll":
            write = writes_by_op.get((service, path.rsplit("/", 1)[-1]))
            base = f"poll of {write}" if write else f"{service} {method.id} {path}"
            confirms = write or ""
        else:
            # A Monitoring read names its time interval (now - window): left out of the key.
            kept = [(k, v) for k, v in query if "interval" not in k]
            base = f"{service} {method.id} {path}?{'&'.join(f'{k}={v}' for k, v in kept)}"
        seen[base] += 1
        key = f"{base} #{seen[base]}"
        if method.call_class == "write" and op_name:
            writes_by_op[(service, op_name.rsplit("/", 1)[-1])] = key
        cluster = ""
        if service == "container" and method.call_class != "read":
            found_cluster = _CLUSTER.search(path)
            cluster = found_cluster[1] if found_cluster else ""
        if not cluster and confirms.startswith("container"):
            found_cluster = _CLUSTER.search(confirms)
            cluster = found_cluster[1] if found_cluster else ""
        out[project].append(
            Observed(
                key=key,
                service=service,
                method=method.id,
                call_class=method.call_class,
                role=apis.role(method.id) if status < 400 else "",
                start=at,
                end=end,
                cluster=cluster,
                confirms=confirms,
            )
        )
    return out


def count_rows(per_project: list[list[Observed]]) -> list[dict[str, Any]]:
    """Per (service, method): class, quota, role and per-project min/median/max."""
    counts = [Counter((o.service, o.method) for o in calls) for calls in per_project]
    rows = []
    for service, method in sorted({k for c in counts for k in c}):
        values = [c.get((service, method), 0) for c in counts]
        m = apis.identify_id(service, method)
        rows.append(
            {
                "service": service,
                "method": method,
                "class": m.call_class,
                "quota": apis.QUOTAS[service].scope if service in apis.QUOTAS else "project",
                "organization_quota": service in apis.ORGANIZATION_SERVICES,
                "role": apis.role(method),
                "per_project": {
                    "min": min(values),
                    "median": statistics.median(values),
                    "max": max(values),
                },
            }
        )
    return rows


def measure_job(job: str, args: argparse.Namespace) -> JobProfile:
    projects = {project_name(k, i): k for k in KINDS for i in range(args.projects)}
    walls, cpus, totals = [], [], []
    per_kind: dict[str, list[list[Observed]]] = defaultdict(list)
    for run in range(args.runs):
        result = invoke(
            job,
            projects,
            (args.latency, args.latency),
            run,
            args.concurrency,
            10.0,
            args.unit,
            args.item_concurrency,
        )
        calls = observe(result)
        walls.append(round(result["wall_s"], 3))
        cpus.append(round(result["cpu_s"], 3))
        totals.append(sum(len(v) for v in calls.values()))
        for project, kind in projects.items():
            per_kind[kind].append(calls.get(project, []))
        print(
            f"  {job} run {run + 1}: HTTP {result['status']}, {walls[-1]} s, {totals[-1]} calls",
            file=sys.stderr,
        )
    traced = {project_name(k, 900): k for k in KINDS}
    traces: dict[str, list[list[Observed]]] = defaultdict(list)
    for run in range(args.trace_runs):
        result = invoke(
            job,
            traced,
            TRACE_LATENCY,
            1000 + run,
            args.concurrency,
            1000.0,
            args.unit,
            args.item_concurrency,
        )
        calls = observe(result)
        for project, kind in traced.items():
            traces[kind].append(calls.get(project, []))
    kinds: dict[str, KindProfile] = {}
    for kind in KINDS:
        rows = count_rows(per_kind[kind])
        trace = derive_trace(traces[kind], gke_clusters_unrelated)
        per_project = [len(c) for c in per_kind[kind]]
        kinds[kind] = KindProfile(
            kind=kind,
            projects=args.projects,
            calls=rows,
            trace=trace,
            trace_runs=args.trace_runs,
            stops=statistics.median(sum(o.role == "stop" for o in c) for c in per_kind[kind]),
            unlinks=statistics.median(sum(o.role == "unlink" for o in c) for c in per_kind[kind]),
            calls_per_project=statistics.median(per_project),
        )
        if len(trace) != statistics.median(per_project):
            print(
                f"  note: {job}/{kind}: trace has {len(trace)} calls, counting runs "
                f"{statistics.median(per_project)} per project",
                file=sys.stderr,
            )
    entry = "on_work_item" if args.unit == "work_item" else JOBS[job]
    return JobProfile(job, entry, kinds, walls, cpus, totals)


def machine() -> dict[str, Any]:
    """What ran the measurement (the env skill's description of this machine)."""
    model = ""
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        model = next(
            (
                ln.split(":", 1)[1].strip()
                for ln in lscpu.splitlines()
                if ln.startswith("Model name")
            ),
            "",
        )
    except OSError:
        pass
    mem_kb = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal"):
            mem_kb = int(line.split()[1])
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kb / 1024 / 1024),
        "python": platform.python_version(),
        "os": platform.platform(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--projects", type=int, default=20, help="projects of EACH kind")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--trace-runs", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--jobs", default=",".join(JOBS))
    parser.add_argument("--unit", choices=UNITS, default="invocation")
    parser.add_argument(
        "--item-concurrency", type=int, default=8, help="work items at once (work_item unit)"
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.out is None:
        args.out = REPO / "bench" / "profiles" / f"{args.unit}.json"
    # Warm the imports (compute_v1 alone ~1 s) so no measured run pays them.
    invoke("reap_expired", {project_name("plain", 999): "plain"}, (0.0, 0.0), 0, 4, 1000.0)
    started = datetime.now(UTC)
    load_before = [round(x, 2) for x in os.getloadavg()]
    jobs = {}
    for job in args.jobs.split(","):
        print(f"measuring {job}", file=sys.stderr)
        jobs[job] = measure_job(job, args)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    meta = {
        "command": " ".join(["bench/org_profile.py", *sys.argv[1:]]),
        "date": started.isoformat(timespec="seconds"),
        "commit": commit,
        "machine": {**machine(), "load_average_before": load_before},
        "governed_by": "projects (explicit, with zones)"
        if args.unit == "invocation"
        else f"a folder scope ({FOLDER}): every zone, Vertex AI in us-central1",
        "item_concurrency": args.item_concurrency if args.unit == "work_item" else None,
        "latency_s": args.latency,
        "trace_latency_s": {"median": TRACE_LATENCY[0], "p99": TRACE_LATENCY[1]},
        "projects_per_kind": args.projects,
        "runs": args.runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    dump(Profile(args.unit, jobs, meta), args.out)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
