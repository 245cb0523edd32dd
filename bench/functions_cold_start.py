# ruff: noqa: E501 - the child scripts are kept one statement per line
"""Cold start of the functions: `import main`, and one budget alert end to end, in fresh processes.

Each measurement spawns a new interpreter (no warm imports). The budget alert runs through
functions_framework's test client against the fake cloud (in the parent process), stopping one
VM, one Workbench instance and one TPU VM, scaling one GKE GPU pool to zero and closing NAP,
cancelling one Vertex AI job and unlinking billing: every client and session is imported and
built. Usage: .venv/bin/python bench/functions_cold_start.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO)]

IMPORT_MAIN = """
import json, resource, sys, time
t = time.perf_counter()
sys.path.insert(0, "functions")
import main
dt = time.perf_counter() - t
google = sorted(m for m in sys.modules if m.startswith("google.") and m != "google.cloud")
print(json.dumps({"import_s": dt, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "google": google}))
"""

BUDGET_ALERT = """
import base64, json, resource, sys, time
t0 = time.perf_counter()
from functions_framework import create_app
from cloudevents.conversion import to_structured
from cloudevents.http import CloudEvent
t1 = time.perf_counter()
client = create_app("on_budget_alert", "functions/main.py", "cloudevent").test_client()
# costIntervalStart: this month's (a notification of an earlier period acts on nothing).
data = {"costAmount": 1300.0, "budgetAmount": 1000.0, "alertThresholdExceeded": 1.2, "currencyCode": "USD",
        "costIntervalStart": time.strftime("%Y-%m-01T00:00:00Z", time.gmtime())}
event = CloudEvent({"type": "google.cloud.pubsub.topic.v1.messagePublished",
                    "source": "//pubsub.googleapis.com/projects/p/topics/t", "id": "1"},
                   {"message": {"data": base64.b64encode(json.dumps(data).encode()).decode(),
                                "attributes": {"budgetId": "b1", "schemaVersion": "1.0"}, "messageId": "1"}})
headers, body = to_structured(event)
t2 = time.perf_counter()
status = client.post("/", headers=headers, data=body).status_code
t3 = time.perf_counter()
sys.stderr.write(json.dumps({"framework_import_s": t1 - t0, "alert_s": t3 - t2, "total_s": t3 - t0,
    "status": status, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}) + "\\n")
"""


def _fake():
    from governance.fakecloud.billing import FakeBilling
    from governance.fakecloud.compute import FakeCompute
    from governance.fakecloud.container import FakeContainer
    from governance.fakecloud.notebooks import FakeNotebooks
    from governance.fakecloud.server import FakeGcp
    from governance.fakecloud.tpu import FakeTpu
    from governance.fakecloud.vertex import FakeVertex

    server = FakeGcp().start()
    gke, vertex = FakeContainer().install(server), FakeVertex().install(server)
    gke.add_cluster("acme-ml-dev", "us-central1", "ml", nap={"cpu": (0, 64), "nvidia-l4": (0, 8)})
    gke.add_pool(
        "acme-ml-dev",
        "us-central1",
        "ml",
        "l4",
        machine_type="g2-standard-8",
        gpus=1,
        autoscaling={"enabled": True, "totalMinNodeCount": 0, "totalMaxNodeCount": 4},
        nodes=2,
    )
    vertex.add_job("acme-ml-dev", "us-central1", "train")
    return (
        server,
        FakeCompute().install(server),
        FakeNotebooks().install(server),
        FakeTpu().install(server),
        FakeBilling().install(server),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    # The budget alert makes ~17 calls in its one project; at the default 10/s per project the
    # rate limiter alone holds it ~0.7 s. --rps 1000 measures the cold start without that wait.
    parser.add_argument("--rps", type=float, default=10.0)
    args = parser.parse_args()
    py = sys.executable
    # pip writes bytecode when it installs packages (as the Cloud Functions build does); this
    # machine sets PYTHONDONTWRITEBYTECODE=1, which would make every sample compile from source
    # whatever `make install` did not compile (it compiles only what a plan imports):
    # google/cloud/compute_v1/types/compute.py alone is 5.6 MB, ~0.9 s. Compile site-packages
    # once (compileall skips what is already current), so the samples import as deployed.
    import sysconfig

    site = sysconfig.get_paths()["purelib"]
    subprocess.run(
        [py, "-m", "compileall", "-q", "-j", "0", site],
        check=False,
        capture_output=True,
    )
    imports = []
    for _ in range(args.runs):
        out = subprocess.run(
            [py, "-W", "ignore", "-c", IMPORT_MAIN],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        imports.append(json.loads(out))
    alerts = []
    for _ in range(args.runs):
        server, compute, notebooks, tpu, billing = _fake()
        compute.add("acme-ml-dev", "us-central1-a", "vm-1")
        notebooks.add("acme-ml-dev", "us-central1-a", "nb-1")
        tpu.add("acme-ml-dev", "us-central1-a", "tpu-1")
        billing.add("acme-ml-dev")
        env = dict(
            os.environ,
            MLGOV_API_ENDPOINTS=json.dumps(
                {
                    s: server.url
                    for s in (
                        "compute",
                        "notebooks",
                        "tpu",
                        "cloudbilling",
                        "container",
                        "aiplatform",
                    )
                }
            ),
            MLGOV_POLICY=json.dumps(
                {
                    "dry_run": False,
                    "exempt_label": {"key": "mlgov-exempt", "value": "true"},
                    "projects": {
                        "acme-ml-dev": {
                            "environment": "dev",
                            "zones": ["us-central1-a"],
                            "allow_billing_disable": True,
                        }
                    },
                    "budgets": {
                        "b1": {
                            "projects": ["acme-ml-dev"],
                            "stop_at": 1.0,
                            "disable_billing_at": 1.2,
                        }
                    },
                    "max_requests_per_second_per_project": args.rps,
                }
            ),
        )
        proc = subprocess.run(
            [py, "-W", "ignore", "-c", BUDGET_ALERT],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        result = json.loads(proc.stderr.strip().splitlines()[-1])
        result["mutations"] = len([r for r in server.calls() if r.method != "GET"])
        alerts.append(result)
        server.stop()
    summary = {
        "import_main_s": statistics.median(r["import_s"] for r in imports),
        "import_main_rss_mb": statistics.median(r["rss_mb"] for r in imports),
        "google_modules_at_import": imports[0]["google"],
        "alert_total_s": statistics.median(r["total_s"] for r in alerts),
        "alert_framework_import_s": statistics.median(r["framework_import_s"] for r in alerts),
        "alert_handler_s": statistics.median(r["alert_s"] for r in alerts),
        "alert_rss_mb": statistics.median(r["rss_mb"] for r in alerts),
        "alert_mutations": alerts[0]["mutations"],
    }
    print(json.dumps({"runs": args.runs, "median": summary, "alerts": alerts}))


if __name__ == "__main__":
    main()
