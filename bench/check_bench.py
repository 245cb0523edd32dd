"""Benchmark: policy evaluation over a generated 10,000-resource plan document.

Times `mlgov_policies.evaluate.evaluate_resources` in-process, a fresh process that only imports
the rules (`import mlgov_policies.evaluate`, against a bare `python -c pass`), and, once
governance/__main__.py exists, the whole `python -m governance check PLAN` process (start-up
included). Target: < 2 s each. Prints medians; record them in bench/RESULTS.md under
`## policies`.

    .venv/bin/python bench/check_bench.py [--resources 10000] [--runs 7]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "policies"))

from mlgov_policies.config import PolicyConfig  # noqa: E402
from mlgov_policies.evaluate import evaluate_resources  # noqa: E402

LABELS = {
    "team": "research",
    "env": "dev",
    "cost-center": "cc-1",
    "workload": "x",
    "managed-by": "mlgov",
}
TOPIC = "projects/acme-ml-dev/topics/budget"

TEMPLATES: list[dict[str, Any]] = [
    {
        "type": "gcp:workbench/instance:Instance",
        "inputs": {
            "location": "us-central1-a",
            "labels": LABELS,
            "gceSetup": {
                "machineType": "n1-standard-4",
                "disablePublicIp": True,
                "acceleratorConfigs": [{"type": "NVIDIA_TESLA_T4", "coreCount": "1"}],
                "metadata": {
                    "idle-timeout-seconds": "3600",
                    "enable-guest-attributes": "TRUE",
                    "install-nvidia-driver": "True",
                },
            },
        },
    },
    {
        "type": "gcp:container/nodePool:NodePool",
        "inputs": {
            "location": "us-central1",
            "cluster": "acme-dev-gke",
            "nodeLocations": ["us-central1-a"],
            "initialNodeCount": 0.0,
            "autoscaling": {"totalMinNodeCount": 0.0, "totalMaxNodeCount": 4.0},
            "nodeConfig": {
                "machineType": "n1-standard-8",
                "spot": True,
                "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1.0}],
                "resourceLabels": LABELS,
            },
        },
    },
    {
        "type": "gcp:compute/instance:Instance",
        "inputs": {
            "zone": "us-central1-b",
            "machineType": "g2-standard-8",
            "guestAccelerators": [{"type": "nvidia-l4", "count": 1.0}],
            "scheduling": {
                "provisioningModel": "SPOT",
                "preemptible": True,
                "automaticRestart": False,
                "onHostMaintenance": "TERMINATE",
                "instanceTerminationAction": "STOP",
                "maxRunDuration": {"seconds": 28800.0},
            },
            "bootDisk": {"initializeParams": {"labels": LABELS}},
            "networkInterfaces": [{"network": "net", "subnetwork": "subnet"}],
            "labels": LABELS,
        },
    },
    {
        "type": "gcp:bigquery/dataset:Dataset",
        "inputs": {
            "datasetId": "features",
            "location": "us-central1",
            "defaultTableExpirationMs": "86400000",
            "labels": LABELS,
        },
    },
    {
        "type": "gcp:bigquery/table:Table",
        "inputs": {
            "datasetId": "features",
            "tableId": "events",
            "timePartitioning": {"type": "DAY"},
            "labels": LABELS,
        },
    },
    {
        "type": "gcp:sql/databaseInstance:DatabaseInstance",
        "inputs": {
            "region": "us-central1",
            "databaseVersion": "POSTGRES_15",
            "settings": {
                "tier": "db-g1-small",
                "userLabels": LABELS,
                "ipConfiguration": {"ipv4Enabled": False},
            },
        },
    },
    {
        "type": "gcp:storage/bucketIAMMember:BucketIAMMember",
        "inputs": {
            "bucket": "acme-dev-fn-source",
            "role": "roles/storage.objectViewer",
            "member": "serviceAccount:a@b.iam.gserviceaccount.com",
        },
    },
    {
        "type": "gcp:cloudscheduler/job:Job",
        "inputs": {
            "region": "us-central1",
            "httpTarget": {
                "uri": "https://fn-abc-uc.a.run.app",
                "oidcToken": {"serviceAccountEmail": "s@b"},
            },
        },
    },
    {"type": "gcp:compute/network:Network", "inputs": {"name": "net"}},
    {"type": "mlgov:index:NotebookFleet", "inputs": {}},
]


def generate(count: int) -> list[dict[str, Any]]:
    """`count` resources cycling through the templates; every 9th one has a violation.

    The templates are complete, schema-valid inputs (required properties included), so the only
    findings are the deliberate ones: a missing `labels` map.
    """
    resources: list[dict[str, Any]] = []
    for i in range(count - 2):
        template = TEMPLATES[i % len(TEMPLATES)]
        inputs = copy.deepcopy(template["inputs"])
        if i % 9 == 0 and "labels" in inputs:
            del inputs["labels"]
        resources.append({"type": template["type"], "name": f"r{i}", "inputs": inputs})
    resources.append(
        {
            "type": "gcp:billing/budget:Budget",
            "name": "budget",
            "inputs": {
                "billingAccount": "01D4EE-079462-DFD6EC",
                # `check` also prices the plan now, and a budget without an amount is bad input.
                "amount": {"specifiedAmount": {"currencyCode": "USD", "units": "5000"}},
                "thresholdRules": [{"thresholdPercent": 0.5}],
                "allUpdatesRule": {"pubsubTopic": TOPIC},
            },
        }
    )
    resources.append(
        {
            "type": "gcp:cloudfunctionsv2/function:Function",
            "name": "fn",
            "inputs": {
                "location": "us-central1",
                "labels": LABELS,
                "serviceConfig": {"serviceAccountEmail": "gov@acme.iam.gserviceaccount.com"},
                "eventTrigger": {
                    "eventType": "google.cloud.pubsub.topic.v1.messagePublished",
                    "pubsubTopic": TOPIC,
                    "retryPolicy": "RETRY_POLICY_RETRY",
                },
            },
        }
    )
    return resources


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--resources", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    resources = generate(args.resources)
    config_raw = {"environment": "dev", "region": "us-central1"}
    config = PolicyConfig.from_mapping(config_raw)

    times: list[float] = []
    found = 0
    for _ in range(args.runs):
        start = time.perf_counter()
        found = len(evaluate_resources(resources, config, stack="dev"))
        times.append(time.perf_counter() - start)
    print(
        f"evaluate_resources: {len(resources)} resources, {found} violations, "
        f"median {statistics.median(times):.3f}s (min {min(times):.3f}s, {args.runs} runs)"
    )

    import_times: list[float] = []
    bare_times: list[float] = []
    for _ in range(args.runs):
        for code, sink in (("import mlgov_policies.evaluate", import_times), ("pass", bare_times)):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], cwd=ROOT / "policies", check=True)
            sink.append(time.perf_counter() - start)
    print(
        f"import mlgov_policies.evaluate (fresh process): median "
        f"{statistics.median(import_times):.3f}s, bare python "
        f"{statistics.median(bare_times):.3f}s"
    )

    if not (ROOT / "governance" / "__main__.py").exists():
        print("governance/__main__.py missing: CLI timing skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.json"
        path.write_text(
            json.dumps({"stack": "dev", "resources": resources, "policy_config": config_raw})
        )
        cli_times: list[float] = []
        code = None
        for _ in range(args.runs):
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "governance", "check", str(path)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=False,
            )
            cli_times.append(time.perf_counter() - start)
            code = proc.returncode
            if code not in (0, 1):
                print(f"governance check exited {code}: {proc.stderr.strip()[-500:]}")
                return
        print(
            f"python -m governance check: exit {code}, median {statistics.median(cli_times):.3f}s "
            f"(min {min(cli_times):.3f}s, {args.runs} runs)"
        )


if __name__ == "__main__":
    main()
