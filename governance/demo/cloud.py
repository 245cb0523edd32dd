# pyright: basic
"""The demo's Google Cloud: tests/fakegcp's fake, holding what the dev stack's plan deploys.

The fake speaks the real REST paths and JSON shapes (recorded answers, tests/functions/data), so
`mlgov jobs`, `mlgov cap` and the budget function use the real Google client libraries against
it. `seed` reads the plan document, not a copy of the stack: the Workbench instances (and the
Compute VMs under them), the GKE cluster with its NAP limits and node pools (and their node
VMs), the cleanup jobs, and the project's billing link are the plan's. What the plan cannot say
is made up and said so: how many nodes are busy right now (`BUSY_NODES`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from governance.endpoints import KNOWN_SERVICES
from governance.fakecloud.billing import FakeBilling
from governance.fakecloud.compute import FakeCompute
from governance.fakecloud.container import FakeContainer
from governance.fakecloud.monitoring import FakeMonitoring
from governance.fakecloud.notebooks import FakeNotebooks
from governance.fakecloud.recommender import FakeRecommender
from governance.fakecloud.scheduler import FakeScheduler
from governance.fakecloud.server import FakeGcp
from governance.fakecloud.tpu import FakeTpu
from governance.fakecloud.vertex import FakeVertex

# Nodes running per zone when the demo starts, per node pool (the plan gives only the bounds):
# the system pool at one node per zone, and a training job holding a T4 node in each zone.
BUSY_NODES = {"system": 1, "t4-spot": 1}
# The endpoint keys (docs/architecture.md) the fake serves (BigQuery is the emulator's; the demo
# declares no spend caps, so nothing calls the Budget API).
SERVICES = tuple(s for s in KNOWN_SERVICES if s not in ("bigquery", "billingbudgets"))


@dataclass
class Cloud:
    """The fake and its services, seeded with one stack."""

    server: FakeGcp
    compute: FakeCompute = field(default_factory=FakeCompute)
    notebooks: FakeNotebooks = field(default_factory=FakeNotebooks)
    container: FakeContainer = field(default_factory=FakeContainer)
    scheduler: FakeScheduler = field(default_factory=FakeScheduler)
    billing: FakeBilling = field(default_factory=FakeBilling)
    tpu: FakeTpu = field(default_factory=FakeTpu)
    vertex: FakeVertex = field(default_factory=FakeVertex)
    recommender: FakeRecommender = field(default_factory=FakeRecommender)
    monitoring: FakeMonitoring = field(default_factory=FakeMonitoring)

    def __post_init__(self) -> None:
        for service in (
            self.compute,
            self.notebooks,
            self.container,
            self.scheduler,
            self.billing,
            self.tpu,
            self.vertex,
            self.recommender,
            self.monitoring,
        ):
            service.install(self.server)

    def writes(self) -> int:
        """How many requests so far could have changed something (anything but GET)."""
        return len([r for r in self.server.calls() if r.method != "GET"])


def _of_type(plan: Mapping[str, Any], token: str) -> Iterator[Mapping[str, Any]]:
    for resource in plan["resources"]:
        if resource["type"] == token:
            yield resource["inputs"]


@dataclass(frozen=True)
class Seeded:
    """What `seed` put into the fake, for the narration and the checks."""

    project: str
    region: str
    notebooks: tuple[tuple[str, str], ...]  # (zone, name)
    cluster: str
    pools: tuple[str, ...]
    accelerator_pools: tuple[str, ...]
    nap: Mapping[str, tuple[int, int]]
    jobs: tuple[str, ...]


def _count(value: Any) -> int:
    return round(float(value or 0))


def seed(cloud: Cloud, plan: Mapping[str, Any]) -> Seeded:
    """Put the plan's notebooks, GKE cluster, cleanup jobs and billing link into the fake."""
    project, region = str(plan["project"]), str(plan["region"])
    notebooks: list[tuple[str, str]] = []
    for nb in _of_type(plan, "gcp:workbench/instance:Instance"):
        zone, name, setup = nb["location"], nb["name"], nb["gceSetup"]
        gpus = sum(_count(a.get("coreCount")) for a in setup.get("acceleratorConfigs") or [])
        labels = dict(nb.get("labels") or {})
        cloud.notebooks.add(project, zone, name, labels=labels, gpus=gpus)
        # The VM Workbench runs the notebook on: the budget function leaves it to the
        # notebook's own stop (its metadata names the instance).
        path = f"projects/{project}/locations/{zone}/instances/{name}"
        cloud.compute.add(
            project,
            zone,
            name,
            labels={"goog-caip-notebook": "", **labels},
            gpus=gpus,
            machine_type=setup["machineType"],
            metadata={
                **setup.get("metadata", {}),
                "resource-url": f"https://notebooks.googleapis.com/v2/{path}",
            },
        )
        notebooks.append((zone, name))

    (cluster,) = _of_type(plan, "gcp:container/cluster:Cluster")
    limits = cluster["clusterAutoscaling"]["resourceLimits"]
    nap = {lim["resourceType"]: (_count(lim["minimum"]), _count(lim["maximum"])) for lim in limits}
    name = cluster["name"]
    cloud.container.add_cluster(
        project,
        region,
        name,
        nap=nap,
        labels=dict(cluster["resourceLabels"]),
        zones=list(cluster.get("nodeLocations") or []) or None,
    )
    pools: list[str] = []
    accelerated: list[str] = []
    for pool in _of_type(plan, "gcp:container/nodePool:NodePool"):
        config = pool["nodeConfig"]
        accelerators = config.get("guestAccelerators") or []
        autoscaling = {
            k: _count(v) if k.endswith("Count") else v for k, v in pool["autoscaling"].items()
        }
        nodes = BUSY_NODES.get(pool["name"], 0)
        zones = list(pool.get("nodeLocations") or cluster.get("nodeLocations") or [f"{region}-a"])
        cloud.container.add_pool(
            project,
            region,
            name,
            pool["name"],
            machine_type=config["machineType"],
            gpus=sum(_count(a["count"]) for a in accelerators),
            gpu_type=accelerators[0]["type"] if accelerators else "nvidia-l4",
            autoscaling={"enabled": True, **autoscaling},
            nodes=nodes,
            initial=_count(pool.get("initialNodeCount")),
            labels=dict(config.get("resourceLabels") or {}),
            locations=zones,
        )
        for node_zone in zones:  # the pool's node VMs: GKE manages them, the cap scales the pool
            for i in range(nodes):
                cloud.compute.add(
                    project,
                    node_zone,
                    f"gke-{name}-{pool['name']}-{node_zone[-1]}{i}",
                    labels={"goog-gke-node": "", "goog-k8s-cluster-name": name},
                    machine_type=config["machineType"],
                )
        pools.append(pool["name"])
        if accelerators:
            accelerated.append(pool["name"])

    jobs: list[str] = []
    for job in _of_type(plan, "gcp:cloudscheduler/job:Job"):
        target = job.get("httpTarget") or {}
        if "oidcToken" not in target:  # office-hours start/stop jobs call the Notebooks API
            continue
        body = cloud.scheduler.add(project, region, job["name"], schedule=job["schedule"])
        body["timeZone"] = job["timeZone"]
        body["httpTarget"]["uri"] = target["uri"]
        jobs.append(job["name"])
    cloud.billing.add(project, f"billingAccounts/{plan_account(plan)}")
    return Seeded(
        project,
        region,
        tuple(notebooks),
        name,
        tuple(pools),
        tuple(accelerated),
        nap,
        tuple(jobs),
    )


def plan_account(plan: Mapping[str, Any]) -> str:
    """The billing account the plan's budget watches."""
    (budget,) = _of_type(plan, "gcp:billing/budget:Budget")
    return str(budget["billingAccount"]).removeprefix("billingAccounts/")


def function_policy(plan: Mapping[str, Any], entry_point: str) -> str:
    """The MLGOV_POLICY the plan deploys with a function (its environment, as rendered)."""
    for fn in _of_type(plan, "gcp:cloudfunctionsv2/function:Function"):
        if fn["buildConfig"]["entryPoint"] == entry_point:
            return str(fn["serviceConfig"]["environmentVariables"]["MLGOV_POLICY"])
    raise LookupError(f"the plan deploys no {entry_point} function")
