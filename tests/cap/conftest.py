"""The prod stack's governed project on the fake cloud, capped by the real budget function.

stacks/Pulumi.prod.yaml: project acme-ml-prod, zones europe-west4-a/b, cluster acme-prod-ml
(MlCluster's name), training pools l4-spot (max 16) and tpu-v5e (max 8), NAP limits
nvidia-tesla-t4 16 and nvidia-l4 32. The scenario holds what the cap changes and restore must
give back: autoscaled and fixed pools (the fixed one resized since creation), a pool node
auto-provisioning made, NAP limits, a cluster the stack does not declare, a TPU VM, and an
endpoint serving two models at 70/30. `cap_prod` delivers a budget alert at 125% through
functions_framework with the policy the Pulumi program renders for the stack.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from govern import clock
from governance.cli.main import main
from governance.components.action_settings import action_settings
from governance.fakecloud.billing import FakeBilling
from governance.fakecloud.billingbudgets import FakeBudgets
from governance.fakecloud.clock import FakeClock
from governance.fakecloud.compute import FakeCompute
from governance.fakecloud.container import FakeContainer
from governance.fakecloud.logging import FakeLogging
from governance.fakecloud.notebooks import FakeNotebooks
from governance.fakecloud.server import FakeGcp
from governance.fakecloud.tpu import FakeTpu
from governance.fakecloud.vertex import FakeVertex
from governance.inputs.project import read_stack_config
from governance.settings import settings_from_config
from tests.functions.conftest import WALL, pubsub_event, send_event

REPO = Path(__file__).resolve().parents[2]
PROJECT, REGION, CLUSTER = "acme-ml-prod", "europe-west4", "acme-prod-ml"
A, B = "europe-west4-a", "europe-west4-b"
OTHER = "team-b"  # a zonal cluster in the governed project that the stack does not declare
ENDPOINT = f"projects/{PROJECT}/locations/{REGION}/endpoints/e-opted"
BUDGET = "prod-budget"
# billingbudgets: the prod stack declares a spend cap, which `cap status` lists too.
SERVICES = (
    "compute",
    "notebooks",
    "tpu",
    "cloudbilling",
    "container",
    "aiplatform",
    "billingbudgets",
)


@dataclass
class ProdCloud:
    server: FakeGcp
    container: FakeContainer
    vertex: FakeVertex
    tpu: FakeTpu
    compute: FakeCompute
    clock: FakeClock
    logging: FakeLogging

    def writes(self) -> int:
        # Cloud Logging's entries.list reads by POST (status reads the fan-out runs with it).
        reads = ("/v2/entries:list",)
        return len([r for r in self.server.calls() if r.method != "GET" and r.path not in reads])

    def state(self) -> dict[str, Any]:
        """Every setting the cap changes and restore gives back, as the APIs answer them."""
        gke = self.container
        pools = {
            f"{c}/{p['name']}": {
                "autoscaling": p.get("autoscaling"),
                "labels": p["config"].get("resourceLabels", {}),
                "nodes": gke.group_size(PROJECT, loc, c, p["name"]),
            }
            for (_, loc, c), cluster in gke.clusters.items()
            for p in cluster["nodePools"]
        }
        clusters = {
            c: {
                "labels": cluster.get("resourceLabels", {}),
                "limits": gke.limits(PROJECT, loc, c),
                "autoscaling": {
                    k: v for k, v in cluster["autoscaling"].items() if k != "resourceLimits"
                },
            }
            for (_, loc, c), cluster in gke.clusters.items()
        }
        endpoint = self.vertex.endpoints[ENDPOINT]
        deployed = {
            d["id"]: {
                k: v for k, v in d.items() if k in ("model", "modelVersionId", "dedicatedResources")
            }
            for d in endpoint.get("deployedModels", [])
        }
        return copy.deepcopy(
            {
                "pools": pools,
                "clusters": clusters,
                "endpoint": {
                    "deployed": deployed,
                    "split": endpoint.get("trafficSplit", {}),
                    "labels": endpoint.get("labels", {}),
                },
            }
        )


def policy() -> str:
    """MLGOV_POLICY as the Pulumi program renders it for the prod stack, opted in to undeploy.

    Without the stack's folder scope: these tests cap the stack's own project, one invocation
    (the fan-out and the scope's projects are tests/functions' and tests/cap/test_cap_runs.py's).
    """
    config = read_stack_config(REPO / "stacks" / "Pulumi.prod.yaml")
    raw = dict(config["mlgov:settings"])
    raw["automation"] = {**raw["automation"], "scopes": {}, "fan_out": False}
    raw["automation"].pop("organization", None)
    settings = settings_from_config({**config, "mlgov:settings": raw})
    rendered = json.loads(action_settings(settings, BUDGET).model_dump_json())
    rendered["undeploy_endpoints"] = True
    return json.dumps(rendered)


def seed(cloud: ProdCloud) -> None:
    gke = cloud.container
    gke.add_cluster(
        PROJECT,
        REGION,
        CLUSTER,
        zones=[A, B],
        labels={"team": "ml-platform"},
        nap={
            "cpu": (0, 512),
            "memory": (0, 2048),
            "nvidia-tesla-t4": (0, 16),
            "nvidia-l4": (0, 32),
        },
    )
    gke.add_pool(
        PROJECT,
        REGION,
        CLUSTER,
        "system",
        autoscaling={
            "enabled": True,
            "totalMinNodeCount": 1,
            "totalMaxNodeCount": 5,
            "locationPolicy": "BALANCED",
        },
        nodes=1,
        initial=1,
    )
    gke.add_pool(
        PROJECT,
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
        PROJECT,
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
        nodes=2,
        locations=[B],
    )
    gke.add_pool(
        PROJECT,
        REGION,
        CLUSTER,
        "t4-fixed",
        machine_type="n1-standard-8",
        gpus=2,
        gpu_type="nvidia-tesla-t4",
        nodes=3,  # resized by hand since it was created with 2 per zone
        initial=2,
    )
    gke.add_pool(
        PROJECT,
        REGION,
        CLUSTER,
        "nap-n1-standard-8-gpu1",
        machine_type="n1-standard-8",
        gpus=1,
        gpu_type="nvidia-tesla-t4",
        autoprovisioned=True,
        autoscaling={"enabled": True, "maxNodeCount": 1000, "locationPolicy": "BALANCED"},
        nodes=2,
        locations=[A],
    )
    gke.add_cluster(PROJECT, A, OTHER)
    gke.add_pool(
        PROJECT,
        A,
        OTHER,
        "gpu",
        machine_type="g2-standard-8",
        gpus=1,
        autoscaling={"enabled": True, "minNodeCount": 1, "maxNodeCount": 3},
        nodes=2,
    )
    cloud.tpu.add(PROJECT, B, "research-v5e", labels={"workload": "training"})
    cloud.vertex.add_endpoint(
        PROJECT,
        REGION,
        "e-opted",
        models={"11": 70, "12": 30},
        labels={"mlgov-undeploy-at-cap": "true"},
        deployments={
            "12": {
                "model": f"projects/{PROJECT}/locations/{REGION}/models/reranker",
                "modelVersionId": "3",
                "dedicatedResources": {
                    "machineSpec": {"machineType": "n1-standard-4"},
                    "minReplicaCount": 2,
                    "maxReplicaCount": 4,
                },
            }
        },
    )
    cloud.vertex.add_job(PROJECT, REGION, "train-1")


@pytest.fixture
def prod(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProdCloud]:
    fake_clock = FakeClock(wall=WALL)  # inside the budget period the alert names
    with FakeGcp(clock=fake_clock) as server:
        compute = FakeCompute().install(server)
        FakeNotebooks().install(server)
        FakeBilling().install(server)
        FakeBudgets().install(server).add_account()
        cloud = ProdCloud(
            server,
            FakeContainer().install(server),
            FakeVertex().install(server),
            FakeTpu().install(server),
            compute,
            fake_clock,
            FakeLogging().install(server),
        )
        monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps(dict.fromkeys(SERVICES, server.url)))
        monkeypatch.setenv("MLGOV_POLICY", policy())
        monkeypatch.chdir(REPO)
        seed(cloud)
        with clock.using(fake_clock):
            yield cloud


def cap_prod(capsys: pytest.CaptureFixture[str]) -> None:
    """The budget function at 125% of the prod budget (stop_at 110%), as Pub/Sub delivers it."""
    data = {
        "budgetDisplayName": "acme prod",
        "costAmount": 50000.0,
        "costIntervalStart": "2026-11-01T07:00:00Z",
        "budgetAmount": 40000.0,
        "budgetAmountType": "SPECIFIED_AMOUNT",
        "currencyCode": "USD",
        "alertThresholdExceeded": 1.1,
    }
    attributes = {
        "billingAccountId": "01D4EE-079462-DFD6EC",
        "budgetId": BUDGET,
        "schemaVersion": "1.0",
    }
    send_event(pubsub_event(data, attributes))
    capsys.readouterr()  # the function's log lines


def mlgov(server: FakeGcp, *argv: str) -> int:
    return main(["cap", *argv, "--stack", "prod", "--endpoint", server.url])
