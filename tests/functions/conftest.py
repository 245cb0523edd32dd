"""Fixtures for the functions: a fake cloud (all services on one FakeGcp) and app clients.

The real google-cloud-* clients talk REST to the fake through MLGOV_API_ENDPOINTS; entry points
run through functions_framework.create_app(...).test_client(), as they do deployed, on the
cloud's FakeClock (govern.clock.using): retries, Retry-After waits and time budgets take no
real time.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cloudevents.conversion import to_structured
from cloudevents.http import CloudEvent
from functions_framework import create_app

from govern import clock, execute, gcp
from govern.parse import action_policy
from governance.fakecloud.billing import FakeBilling
from governance.fakecloud.billingbudgets import FakeBudgets
from governance.fakecloud.clock import FakeClock
from governance.fakecloud.cloudasset import FakeAssets
from governance.fakecloud.compute import FakeCompute
from governance.fakecloud.container import FakeContainer
from governance.fakecloud.monitoring import FakeMonitoring
from governance.fakecloud.notebooks import FakeNotebooks
from governance.fakecloud.pubsub import FakePubSub
from governance.fakecloud.recommender import FakeRecommender
from governance.fakecloud.server import FakeGcp
from governance.fakecloud.tpu import FakeTpu
from governance.fakecloud.vertex import FakeVertex

REPO = Path(__file__).resolve().parents[2]
MAIN = str(REPO / "functions" / "main.py")
DATA = Path(__file__).parent / "data"
DEV, PROD = "acme-ml-dev", "acme-ml-prod"
ZONES = ["us-central1-a", "us-central1-b"]
BUDGET = "de72f49d-779b-4945-a127-4d6ce8def0bb"  # the budgetId of the documented example
# "Now" for every functions test on the fake cloud: inside November 2026's budget period (which
# budget_data's costIntervalStart names), so no test depends on the day it runs.
WALL = datetime(2026, 11, 21, 5, 0, tzinfo=UTC)


# What the stack renders about its budget (docs/architecture.md#mlgov-policy's optional budget keys), matching
# the documented notification's billingAccountId and budget_data's amount and currency.
ACCOUNT = "01D4EE-079462-DFD6EC"
STACK_BUDGET = {"billing_account": ACCOUNT, "amount": 1000.0, "currency": "USD", "period": "MONTH"}


def budget_dict(**changes: Any) -> dict[str, Any]:
    """The test policy's budget (stop at 100%, unlink at 120%, the stack's keys), with changes."""
    return {
        "projects": [DEV, PROD],
        "stop_at": 1.0,
        "disable_billing_at": 1.2,
        **STACK_BUDGET,
        **changes,
    }


def policy_dict(**extra: Any) -> dict[str, Any]:
    """The docs/architecture.md#mlgov-policy example (the budget with the keys the stack renders), plus `extra` keys."""
    return {
        "dry_run": False,
        "exempt_label": {"key": "mlgov-exempt", "value": "true"},
        "projects": {
            DEV: {"environment": "dev", "zones": ZONES, "allow_billing_disable": True},
            PROD: {
                "environment": "prod",
                "zones": ["us-central1-a"],
                "allow_billing_disable": False,
            },
        },
        "budgets": {BUDGET: budget_dict()},
        **extra,
    }


@dataclass
class Cloud:
    """The fake cloud with every service the functions use."""

    server: FakeGcp
    compute: FakeCompute
    recommender: FakeRecommender
    billing: FakeBilling
    notebooks: FakeNotebooks
    tpu: FakeTpu
    monitoring: FakeMonitoring
    clock: FakeClock
    container: FakeContainer
    vertex: FakeVertex
    budgets: FakeBudgets
    assets: FakeAssets
    pubsub: FakePubSub

    def mutations(self) -> list[Any]:
        """Requests that change state (anything but GET)."""
        return [r for r in self.server.calls() if r.method != "GET"]


@pytest.fixture
def cloud(monkeypatch: pytest.MonkeyPatch) -> Iterator[Cloud]:
    with new_cloud(monkeypatch) as c:
        yield c


@contextmanager
def new_cloud(monkeypatch: pytest.MonkeyPatch) -> Iterator[Cloud]:
    """A fake cloud the functions use (MLGOV_API_ENDPOINTS, the test policy, its clock)."""
    clock_ = FakeClock(wall=WALL)
    with FakeGcp(clock=clock_) as server:
        c = Cloud(
            server,
            FakeCompute().install(server),
            FakeRecommender().install(server),
            FakeBilling().install(server),
            FakeNotebooks().install(server),
            FakeTpu().install(server),
            FakeMonitoring().install(server),
            clock_,
            FakeContainer().install(server),
            FakeVertex().install(server),
            FakeBudgets().install(server),
            FakeAssets().install(server),
            FakePubSub(clock_).install(server),
        )
        # Asset Inventory indexes what the fakes hold (the dispatchers' candidate counts).
        c.assets.watch(compute=c.compute, tpu=c.tpu, notebooks=c.notebooks)
        monkeypatch.setenv(
            "MLGOV_API_ENDPOINTS",
            json.dumps(
                {
                    s: server.url
                    for s in (
                        "compute",
                        "recommender",
                        "cloudbilling",
                        "notebooks",
                        "tpu",
                        "monitoring",
                        "container",
                        "aiplatform",
                        "billingbudgets",
                        "cloudasset",
                        "pubsub",
                    )
                }
            ),
        )
        set_policy(monkeypatch)
        with clock.using(clock_):
            yield c


@dataclass(frozen=True)
class AdapterPorts:
    """govern.ports.Ports over the real adapters (and clients), pointed at the fake cloud."""

    compute: Any
    notebooks: Any
    tpus: Any
    billing: Any
    recommender: Any
    monitoring: Any
    container: Any
    vertex: Any
    budgets: Any
    assets: Any
    work: Any


def adapter_ports(cloud: Cloud) -> AdapterPorts:
    url = cloud.server.url
    return AdapterPorts(
        compute=gcp.ADAPTERS["compute"](url),
        notebooks=gcp.ADAPTERS["notebooks"](url),
        tpus=gcp.ADAPTERS["tpu"](url),
        billing=gcp.ADAPTERS["cloudbilling"](url),
        recommender=gcp.ADAPTERS["recommender"](url),
        monitoring=gcp.ADAPTERS["monitoring"](url),
        container=gcp.ADAPTERS["container"](url),
        vertex=gcp.ADAPTERS["aiplatform"](url),
        budgets=gcp.ADAPTERS["billingbudgets"](url),
        assets=gcp.ADAPTERS["cloudasset"](url),
        work=gcp.ADAPTERS["pubsub"](url),
    )


def runner(clock: FakeClock, **extra: Any) -> execute.Runner:
    """A Runner under the test policy (plus `extra` optional keys), on a fake clock."""
    return execute.Runner(action_policy(json.dumps(policy_dict(**extra))), clock)


# The Compute VMs under notebooks, as the recordings show them (tests/functions/data/SOURCES.md):
# a Workbench instance's VM (Notebooks v2: gceSetup.metadata of the recorded v2 list) and a
# user-managed notebook's VM (Notebooks v1: labels and metadata of the recorded v1 list).
_V2_LIST = "get-notebooks.googleapis.com-v2-projects-cloud-custodian-locations---instances_1.json"
_V2_INSTANCE = json.loads((DATA / _V2_LIST).read_text())["body"]["instances"][0]
_V1_LIST = "get-v1-projects-cloud-custodian-locations---instances_1.json"
V1_NOTEBOOK = json.loads((DATA / _V1_LIST).read_text())["body"]["instances"][0]


def workbench_vm(
    cloud: Cloud,
    project: str,
    zone: str,
    name: str,
    labels: dict[str, str] | None = None,
    **kw: Any,
) -> dict[str, Any]:
    """The Compute VM of a Workbench instance: the v2 metadata, naming its own instance."""
    path = f"projects/{project}/locations/{zone}/instances/{name}"
    metadata = {
        **_V2_INSTANCE["gceSetup"]["metadata"],
        "resource-url": f"https://notebooks.googleapis.com/v2/{path}",
        "report-event-url": f"https://notebooks.googleapis.com/v2/{path}:reportInfoSystem",
    }
    all_labels = {"goog-caip-notebook": "", **(labels or {})}
    return cloud.compute.add(project, zone, name, labels=all_labels, metadata=metadata, **kw)


def user_managed_notebook_vm(
    cloud: Cloud,
    project: str,
    zone: str,
    name: str,
    labels: dict[str, str] | None = None,
    **kw: Any,
) -> dict[str, Any]:
    """The Compute VM of a user-managed (v1) notebook: the recorded v1 labels and metadata."""
    all_labels = {**V1_NOTEBOOK["labels"], **(labels or {})}
    return cloud.compute.add(
        project, zone, name, labels=all_labels, metadata=V1_NOTEBOOK["metadata"], **kw
    )


def seed_budget(cloud: Cloud) -> None:
    """The budget scenario: governed, exempt, stopped, managed and foreign workloads."""
    cloud.compute.add(DEV, ZONES[0], "vm-run")
    cloud.compute.add(DEV, ZONES[0], "gpu-run", gpus=1, labels={"workload": "training"})
    cloud.compute.add(DEV, ZONES[1], "vm-exempt", labels={"mlgov-exempt": "true"})
    cloud.compute.add(DEV, ZONES[0], "vm-stopped", status="TERMINATED")
    cloud.compute.add(DEV, ZONES[0], "gke-node", labels={"goog-gke-node": ""})
    workbench_vm(cloud, DEV, ZONES[0], "nb-vm")
    cloud.compute.add(DEV, "europe-west4-a", "vm-elsewhere")
    cloud.notebooks.add(DEV, ZONES[0], "nb-1")
    cloud.notebooks.add(DEV, ZONES[1], "nb-exempt", labels={"mlgov-exempt": "true"})
    cloud.tpu.add(DEV, ZONES[1], "tpu-1")
    cloud.compute.add(PROD, ZONES[0], "prod-vm")
    cloud.billing.add(DEV)
    cloud.billing.add(PROD)


def set_policy(monkeypatch: pytest.MonkeyPatch, **extra: Any) -> None:
    monkeypatch.setenv("MLGOV_POLICY", json.dumps(policy_dict(**extra)))


def app_client(target: str, kind: str) -> Any:
    """A Flask test client for an entry point (fresh module => fresh policy and clients)."""
    app: Any = create_app(target, MAIN, kind)
    return app.test_client()


def http(target: str) -> Any:
    """A test client for an HTTP entry point."""
    return app_client(target, "http")


def post_report(target: str, status: int = 200, headers: dict[str, str] | None = None) -> Any:
    """POST to an HTTP entry point; the JSON report, after checking the answer's status."""
    response = http(target).post("/", headers=headers or {})
    assert response.status_code == status, response.get_data(as_text=True)
    return response.get_json()


def pubsub_event(
    data: dict[str, Any] | bytes | str,
    attributes: dict[str, str] | None = None,
    message_id: str = "1234567890",
) -> CloudEvent:
    """A Pub/Sub messagePublished CloudEvent as Eventarc delivers it."""
    raw = data if isinstance(data, bytes | str) else json.dumps(data)
    encoded = base64.b64encode(raw.encode() if isinstance(raw, str) else raw).decode()
    return CloudEvent(
        {
            "type": "google.cloud.pubsub.topic.v1.messagePublished",
            "source": "//pubsub.googleapis.com/projects/acme-ml-dev/topics/budget-alerts",
            "id": message_id,
        },
        {
            "message": {
                "data": encoded,
                "attributes": attributes
                if attributes is not None
                else {
                    "billingAccountId": ACCOUNT,
                    "budgetId": BUDGET,
                    "schemaVersion": "1.0",
                },
                "messageId": message_id,
                "publishTime": "2026-11-21T05:00:00Z",
            },
            "subscription": "projects/acme-ml-dev/subscriptions/eventarc-sub",
        },
    )


def send_event(event: CloudEvent, client: Any = None, status: int = 200) -> Any:
    """Deliver a CloudEvent; 200 = acknowledged, 500 = raised (Pub/Sub redelivers it)."""
    client = client or app_client("on_budget_alert", "cloudevent")
    headers, body = to_structured(event)
    response = client.post("/", headers=headers, data=body)
    assert response.status_code == status, response.get_data(as_text=True)
    return response


def budget_data(
    fraction: float | None, cost: float = 0.0, budget: float = 1000.0
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "budgetDisplayName": "acme dev",
        "costAmount": cost,
        "costIntervalStart": "2026-11-01T07:00:00Z",
        "budgetAmount": budget,
        "budgetAmountType": "SPECIFIED_AMOUNT",
        "currencyCode": "USD",
    }
    if fraction is not None:
        data["alertThresholdExceeded"] = fraction
    return data


def log_lines(out: str) -> list[dict[str, Any]]:
    lines = []
    for line in out.splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            continue
    return lines


# -- the prod-like accelerator scenario (issue 12): GKE pools and NAP, a TPU VM, Vertex AI ------
REGION = "us-central1"
CLUSTER = "acme-prod-ml"
GKE_ZONES = ["us-central1-a", "us-central1-b"]
NAP = {
    "cpu": (0, 512),
    "memory": (0, 2048),
    "nvidia-l4": (0, 32),
    "nvidia-tesla-t4": (0, 16),
    "tpu-v5-lite-podslice": (0, 64),
}


def seed_accelerators(cloud: Cloud, project: str = PROD) -> None:
    """GPU and TPU pools (one exempt), a system pool, NAP, a TPU VM, jobs and endpoints."""
    # Every governed project has billing info (Cloud Billing answers for any existing project).
    for governed in (DEV, PROD):
        cloud.billing.add(governed)
    gke = cloud.container
    gke.add_cluster(
        project, REGION, CLUSTER, nap=NAP, labels={"team": "ml-platform"}, zones=GKE_ZONES
    )
    gke.add_pool(
        project,
        REGION,
        CLUSTER,
        "system",
        nodes=2,
        initial=1,
        autoscaling={
            "enabled": True,
            "totalMinNodeCount": 1,
            "totalMaxNodeCount": 5,
            "locationPolicy": "BALANCED",
        },
    )
    gke.add_pool(
        project,
        REGION,
        CLUSTER,
        "l4-spot",
        machine_type="g2-standard-16",
        gpus=1,
        autoscaling={
            "enabled": True,
            "totalMinNodeCount": 0,
            "totalMaxNodeCount": 16,
            "locationPolicy": "ANY",
        },
        nodes=3,  # per zone: 6 in all
        labels={"team": "ml-platform", "workload": "training"},
    )
    gke.add_pool(
        project,
        REGION,
        CLUSTER,
        "tpu-v5e",
        machine_type="ct5lp-hightpu-4t",
        autoscaling={
            "enabled": True,
            "totalMinNodeCount": 0,
            "totalMaxNodeCount": 8,
            "locationPolicy": "ANY",
        },
        nodes=4,
        locations=["us-central1-a"],
    )
    gke.add_pool(
        project,
        REGION,
        CLUSTER,
        "t4-fixed",
        machine_type="n1-standard-8",
        gpus=2,
        gpu_type="nvidia-tesla-t4",
        nodes=2,
        initial=2,
    )
    gke.add_pool(
        project,
        REGION,
        CLUSTER,
        "a100-exempt",
        machine_type="a2-highgpu-1g",
        autoscaling={"enabled": True, "minNodeCount": 1, "maxNodeCount": 2},
        nodes=2,
        labels={"mlgov-exempt": "true"},
    )
    cloud.tpu.add(project, "us-central1-a", "research-v5e", labels={"workload": "training"})
    vertex = cloud.vertex
    vertex.add_job(project, REGION, "train-1")
    vertex.add_job(project, REGION, "train-queued", state="JOB_STATE_QUEUED")
    vertex.add_job(project, REGION, "train-exempt", labels={"mlgov-exempt": "true"})
    vertex.add_job(project, REGION, "train-done", state="JOB_STATE_SUCCEEDED")
    vertex.add_job(project, REGION, "hpt-1", kind="hyperparameterTuningJobs")
    vertex.add_endpoint(
        project,
        REGION,
        "e-opted",
        models={"11": 70, "12": 30},
        labels={"mlgov-undeploy-at-cap": "true"},
    )
    vertex.add_endpoint(project, REGION, "e-serving", models={"21": 100})
    cloud.billing.add(project)
