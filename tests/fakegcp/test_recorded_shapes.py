"""The fake answers as the cloud does: each answer compared with a real recorded one.

For every method the fake answers that a recording in tests/fakegcp/recorded/ covers (SOURCES.md
there: Cloud Custodian flight data), the fake is asked for the same kind of resource and its
answer is compared with the recording, field by field:

- the HTTP status, and the same keys where the shape is fixed (list answers, operations, error
  bodies, the fields mlgov reads);
- the same JSON type wherever both have a field (int64 as strings, int32 as numbers, objects,
  lists), down to every element of a list;
- proto3 APIs (GKE, Vertex AI, Workbench, Monitoring) leave fields at their default out (a zero
  `minimum`, `enabled: false`, an empty map): the fake sends a default only where the recording
  has one at the same place (a field with presence, such as `enablePrivateNodes: false`);
- and the whole answer is valid against the method's response schema in the discovery
  document (types and enums), as tests/functions/test_fake_shapes.py checks the cap's calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

from governance.fakecloud.compute import FakeCompute
from governance.fakecloud.container import FakeContainer
from governance.fakecloud.monitoring import FakeMonitoring
from governance.fakecloud.notebooks import FakeNotebooks
from governance.fakecloud.recommender import FakeRecommender
from governance.fakecloud.server import FakeGcp
from governance.fakecloud.tpu import FakeTpu
from governance.fakecloud.vertex import FakeVertex
from tests.functions.test_fake_shapes import APIS, _check  # pyright: ignore[reportPrivateUsage]
from tests.policies.compat.discovery_documents import document

RECORDED = Path(__file__).parent / "recorded"
P, REGION, ZONE = "acme-ml-prod", "us-central1", "us-central1-a"
# Maps whose keys are data, not fields: a default-looking value there is a value.
MAPS = {"labels", "resourceLabels", "trafficSplit", "metadata", "items"}
# Optional fields with presence, which GKE sends at their default: the recorded
# gke-cluster-set-label/ pools carry `networkConfig.enablePrivateNodes: false`.
PRESENCE = {"enablePrivateNodes"}
# Fields of JSON type `any` (discovery documents): their value's type is the resource's own (a
# Recommender operation's `value` is "RUNNING" for an instance, an object for a disk snapshot).
ANY_TYPED = re.compile(r"\.operations\[\d+\]\.value$")
Json = Any


@dataclass
class Fakes:
    server: FakeGcp
    container: FakeContainer
    compute: FakeCompute
    vertex: FakeVertex
    notebooks: FakeNotebooks
    monitoring: FakeMonitoring
    recommender: FakeRecommender
    tpu: FakeTpu

    def get(self, path: str, **params: str) -> tuple[int, Json]:
        response = requests.get(self.server.url + path, params=params, timeout=10)
        return response.status_code, response.json()

    def post(self, path: str, body: Json) -> tuple[int, Json]:
        response = requests.post(self.server.url + path, json=body, timeout=10)
        return response.status_code, response.json()


@pytest.fixture(scope="module")
def fakes() -> Iterator[Fakes]:
    with FakeGcp() as server:
        f = Fakes(
            server,
            FakeContainer(op_polls=1).install(server),
            FakeCompute().install(server),
            FakeVertex().install(server),
            FakeNotebooks().install(server),
            FakeMonitoring().install(server),
            FakeRecommender().install(server),
            FakeTpu().install(server),
        )
        # Like the recorded ones: a regional Autopilot cluster with NAP limits and a pool; a
        # zonal standard one; a RUNNING VM; a custom and a tuning job; an endpoint; a notebook.
        f.container.add_cluster(
            P,
            REGION,
            "standard-cluster-1",
            nap={"cpu": (0, 100), "memory": (0, 400), "nvidia-tesla-t4": (0, 4)},
            labels={"team": "capacity"},
            autopilot=True,
        )
        f.container.add_pool(
            P,
            REGION,
            "standard-cluster-1",
            "pool-1",
            autoscaling={"enabled": True, "maxNodeCount": 1000, "locationPolicy": "BALANCED"},
            nodes=1,
        )
        f.container.add_cluster(P, ZONE, "zonal-1")
        f.container.add_pool(P, ZONE, "zonal-1", "fixed", nodes=2, initial=2)
        f.compute.add(P, ZONE, "pro-narwhal", labels={"team": "x"})
        f.vertex.add_job(P, REGION, "2406756744756723712", state="JOB_STATE_QUEUED")
        f.vertex.add_job(
            P,
            REGION,
            "6931889207845584896",
            kind="hyperparameterTuningJobs",
            state="JOB_STATE_QUEUED",
        )
        f.vertex.add_endpoint(P, REGION, "e1", models={}, labels={"team": "x"})
        f.notebooks.add(P, ZONE, "nb-1", labels={"team": "x"})
        f.monitoring.set(P, "1234", 0.4)
        f.recommender.add(P, ZONE, "pro-narwhal")
        yield f


def recording(path: str) -> tuple[int, Json]:
    raw = json.loads((RECORDED / path).read_text())
    return int(raw["headers"].get("status", 200)), raw["body"]


# --------------------------------------------------------------------------- the comparison
def _kind(value: Json) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return type(value).__name__


def _default(value: Json) -> bool:
    """A proto3 field at its default: 0, false, "", "0" (an int64), an empty list.

    An empty object is not one: a message that is set but has only defaults is sent as `{}`
    (the recordings have `"autoscaling": {}`, `"windowsNodeConfig": {}`); an empty map is left
    out, which the MAPS check below covers.
    """
    return value in (0, False, "", "0") or value == []


@dataclass
class Comparison:
    proto3: bool
    problems: list[str] = field(default_factory=list[str])

    def walk(self, fake: Json, rec: Json, path: str) -> None:
        """Same JSON types where both have a value; no proto3 default the recording lacks."""
        if ANY_TYPED.search(path):
            return
        if rec is not None and _kind(fake) != _kind(rec):
            self.problems.append(f"{path}: fake sends {_kind(fake)} {fake!r}, recorded {rec!r}")
            return
        if isinstance(fake, dict):
            recorded: dict[str, Json] = rec if isinstance(rec, dict) else {}
            for key, value in fake.items():
                here = f"{path}.{key}"
                if path.rsplit(".", 1)[-1] in MAPS:
                    self.walk(value, recorded.get(key), here)
                    continue
                if self.proto3 and key in MAPS and value == {}:
                    self.problems.append(f"{here}: fake sends an empty map, proto3 leaves it out")
                if (
                    self.proto3
                    and _default(value)
                    and key not in PRESENCE
                    and not _default(recorded.get(key, 1))
                ):
                    self.problems.append(
                        f"{here}: fake sends the default {value!r}, GKE-style "
                        "proto3 JSON leaves it out"
                    )
                self.walk(value, recorded.get(key), here)
        elif isinstance(fake, list):
            items: list[Json] = rec if isinstance(rec, list) else []
            for i, value in enumerate(fake):
                self.walk(value, items[min(i, len(items) - 1)] if items else None, f"{path}[{i}]")


def same_keys(fake: Json, rec: Json, path: str) -> list[str]:
    """The two objects at `path` (dot-separated; `[]` = every element) have the same keys."""
    problems: list[str] = []
    for f, r in zip(_at(fake, path), _at(rec, path), strict=False):
        if isinstance(f, dict) and isinstance(r, dict) and set(f) != set(r):  # pyright: ignore[reportUnknownArgumentType]
            problems.append(
                f"{path or '<answer>'}: fake keys {sorted(f)} != recorded {sorted(r)}"  # pyright: ignore[reportUnknownArgumentType]
            )
    return problems


def _at(value: Json, path: str) -> list[Json]:
    found = [value]
    for part in [p for p in path.split(".") if p]:
        key, many = part.removesuffix("[]"), part.endswith("[]")
        found = [v.get(key) for v in found if isinstance(v, dict)]
        if many:
            found = [item for v in found if isinstance(v, list) for item in v][:1]
    return found


@dataclass(frozen=True)
class Case:
    """A recorded answer and how to get the fake's answer for the same method."""

    method: str  # discovery method id
    recorded: str
    ask: Callable[[Fakes], tuple[int, Json]]
    keys: tuple[str, ...] = ("",)  # paths whose key sets must match
    proto3: bool = True


CLUSTERS = f"/v1/projects/{P}/locations"
OTHER = "europe-west4"  # where the operation cases create what they act on (lists unaffected)
FINISHED_OPERATION = (
    "vertexai-endpoint-delete/"
    "delete-v1-projects-cloud-custodian-locations-us-central1-endpoints-c7n-endpoint-central_1.json"
)


def _finished_undeploy(f: Fakes) -> tuple[int, Json]:
    """A Vertex AI undeploy's operation, read once it has finished."""
    f.vertex.add_endpoint(P, OTHER, "e-op", models={"5": 100})
    _, op = f.post(f"{CLUSTERS}/{OTHER}/endpoints/e-op:undeployModel", {"deployedModelId": "5"})
    return f.get(f"/v1/{op['name']}")


def _finished_stop(f: Fakes, kind: str) -> tuple[int, Json]:
    """A Workbench or TPU stop's operation, read once it has finished."""
    zone = f"{OTHER}-a"
    if kind == "notebooks":
        f.notebooks.add(P, zone, "nb-op")
        _, op = f.post(f"/v2/projects/{P}/locations/{zone}/instances/nb-op:stop", {})
    else:
        f.tpu.add(P, zone, "tpu-op")
        _, op = f.post(f"/v2/projects/{P}/locations/{zone}/nodes/tpu-op:stop", {})
    return f.get(f"/v2/{op['name']}")


CASES = [
    Case(
        "container.projects.locations.clusters.list",
        "gke-cluster-set-label/get-v1-projects-cloud-custodian-locations---clusters_1.json",
        lambda f: f.get(f"{CLUSTERS}/-/clusters"),
        keys=(
            "",
            "clusters[].autopilot",
            "clusters[].autoscaling.resourceLimits[]",
            "clusters[].nodePools[].autoscaling",
        ),
    ),
    Case(
        "container.projects.locations.clusters.get",
        "gke-cluster-set-label/get-v1-projects-cloud-custodian-locations-us-central1-clusters-standard-cluster-1_1.json",
        lambda f: f.get(f"{CLUSTERS}/{REGION}/clusters/standard-cluster-1"),
        keys=("autopilot", "autoscaling.resourceLimits[]", "nodePools[].autoscaling"),
    ),
    Case(
        "container.projects.locations.clusters.list",
        "gke-cluster-query/get-v1-projects-cloud-custodian-locations---clusters_1.json",
        lambda f: f.get(f"{CLUSTERS}/-/clusters"),
        keys=("",),
    ),
    Case(
        "container.projects.locations.clusters.nodePools.get",
        "gke-cluster-nodepool-get/get-v1-projects-cloud-custodian-locations-us-central1-a-clusters-standard-cluster-1-nodePools-pool-1_1.json",
        lambda f: f.get(f"{CLUSTERS}/{ZONE}/clusters/zonal-1/nodePools/fixed"),
        keys=(),
    ),
    Case(
        "container.projects.locations.clusters.setResourceLabels",
        "gke-cluster-set-label/post-v1-projects-cloud-custodian-locations-us-central1-clusters-standard-cluster-1-setResourceLabels_1.json",
        lambda f: f.post(
            f"{CLUSTERS}/{REGION}/clusters/standard-cluster-1:setResourceLabels",
            {
                "resourceLabels": {"team": "capacity", "env": "prod"},
                "labelFingerprint": f.container.clusters[(P, REGION, "standard-cluster-1")][
                    "labelFingerprint"
                ],
            },
        ),
    ),
    Case(
        "container.projects.locations.clusters.setResourceLabels",
        "gke-cluster-set-label/post-v1-projects-cloud-custodian-locations-us-central1-clusters-standard-cluster-1-setResourceLabels_2.json",
        lambda f: f.post(
            f"{CLUSTERS}/{ZONE}/clusters/zonal-1:setResourceLabels",
            {"resourceLabels": {"a": "b"}, "labelFingerprint": "dbf4ff9a"},
        ),
        keys=("", "error", "error.details[]"),
    ),
    Case(
        "compute.instances.aggregatedList",
        "instance-pause-resume/get-compute-v1-projects-cloud-custodian-aggregated-instances_1.json",
        lambda f: f.get(f"/compute/v1/projects/{P}/aggregated/instances"),
        keys=("",),
        proto3=False,
    ),
    Case(
        "compute.instances.get",
        "instance-pause-resume/get-compute-v1-projects-cloud-custodian-zones-us-central1-a-instances-pro-narwhal_1.json",
        lambda f: f.get(f"/compute/v1/projects/{P}/zones/{ZONE}/instances/pro-narwhal"),
        keys=(),
        proto3=False,
    ),
    Case(
        "compute.instances.stop",
        "instance-stop/post-compute-v1-projects-cloud-custodian-zones-us-central1-c-instances-instance-1-stop_1.json",
        lambda f: f.post(f"/compute/v1/projects/{P}/zones/{ZONE}/instances/pro-narwhal/stop", {}),
        proto3=False,
    ),
    Case(
        "compute.instanceGroupManagers.list",
        "test_instance_group_manager_query/get-compute-v1-projects-cloud-custodian-zones-us-central1-a-instanceGroupManagers_1.json",
        lambda f: f.get(f"/compute/v1/projects/{P}/zones/{ZONE}/instanceGroupManagers"),
        keys=("", "items[].versions[]", "items[].currentActions"),
        proto3=False,
    ),
    Case(
        "compute.instanceGroupManagers.list",
        "test_instance_group_manager_query/get-compute-v1-projects-cloud-custodian-zones-us-central1-b-instanceGroupManagers_1.json",
        lambda f: f.get(f"/compute/v1/projects/{P}/zones/europe-west4-c/instanceGroupManagers"),
        proto3=False,
    ),
    Case(
        "notebooks.projects.locations.instances.list",
        "notebook_v2/get-notebooks.googleapis.com-v2-projects-cloud-custodian-locations---instances_1.json",
        lambda f: f.get(f"/v2/projects/{P}/locations/-/instances"),
        keys=("",),
    ),
    Case(
        "aiplatform.projects.locations.customJobs.list",
        "vertexai_custom_job_query/get-v1-projects-cloud-custodian-locations-us-central1-customJobs_1.json",
        lambda f: f.get(f"{CLUSTERS}/{REGION}/customJobs"),
        keys=("",),
    ),
    Case(
        "aiplatform.projects.locations.customJobs.cancel",
        "vertexai_custom_job_query/post-v1-projects-cloud-custodian-locations-us-central1-customJobs-2406756744756723712-cancel_1.json",
        lambda f: f.post(f"{CLUSTERS}/{REGION}/customJobs/2406756744756723712:cancel", {}),
    ),
    Case(
        "aiplatform.projects.locations.hyperparameterTuningJobs.list",
        "vertexai_hp_tuning_job_query/get-v1-projects-cloud-custodian-locations-us-central1-hyperparameterTuningJobs_1.json",
        lambda f: f.get(f"{CLUSTERS}/{REGION}/hyperparameterTuningJobs"),
        keys=("",),
    ),
    Case(
        "aiplatform.projects.locations.hyperparameterTuningJobs.cancel",
        "vertexai_hp_tuning_job_query/post-v1-projects-cloud-custodian-locations-us-central1-hyperparameterTuningJobs-6931889207845584896-cancel_1.json",
        lambda f: f.post(
            f"{CLUSTERS}/{REGION}/hyperparameterTuningJobs/6931889207845584896:cancel", {}
        ),
    ),
    Case(
        "aiplatform.projects.locations.endpoints.list",
        "vertexai-endpoint-us-central1/get-v1-projects-cloud-custodian-locations-us-central1-endpoints_1.json",
        lambda f: f.get(f"{CLUSTERS}/{REGION}/endpoints"),
        keys=("", "endpoints[]"),
    ),
    Case(
        "aiplatform.projects.locations.endpoints.get",
        "vertexai_endpoint_get_resource/get-us-central1-aiplatform.googleapis.com-v1-projects-cloud-custodian-locations-us-central1-endpoints-8574775075432038400_1.json",
        lambda f: f.get(f"{CLUSTERS}/{REGION}/endpoints/e1"),
        keys=(),
    ),
    # google.longrunning.Operation, finished: the recorded one is a Vertex AI endpoint delete
    # (`name`, `metadata` with its @type, `done: true`, `response` with its @type); undeploy,
    # Workbench and TPU stops answer the same message (AIP-151). A Workbench or TPU stop's
    # `response` is the whole resource (compared with its own recording above), so proto3
    # defaults are not judged against the delete's empty response there.
    Case(
        "aiplatform.projects.locations.endpoints.operations.get",
        FINISHED_OPERATION,
        _finished_undeploy,
        keys=("", "metadata.genericMetadata"),
    ),
    Case(
        "notebooks.projects.locations.operations.get",
        FINISHED_OPERATION,
        lambda f: _finished_stop(f, "notebooks"),
        keys=("",),
        proto3=False,
    ),
    Case(
        "tpu.projects.locations.operations.get",
        FINISHED_OPERATION,
        lambda f: _finished_stop(f, "tpu"),
        keys=("",),
        proto3=False,
    ),
    Case(
        "recommender.projects.locations.recommenders.recommendations.list",
        "disk-recommend/get-v1-projects-cloud-custodian-locations-us-central1-a-recommenders-google.compute.disk.IdleResourceRecommender-recommendations_1.json",
        lambda f: f.get(
            f"/v1/projects/{P}/locations/{ZONE}/recommenders/"
            "google.compute.instance.IdleResourceRecommender/recommendations",
            filter="stateInfo.state = ACTIVE OR stateInfo.state = CLAIMED",
        ),
        keys=(
            "",
            "recommendations[]",
            "recommendations[].content",
            "recommendations[].content.overview",
            "recommendations[].stateInfo",
        ),
    ),
    Case(
        "monitoring.projects.timeSeries.list",
        "filter-metrics/get-v3-projects-cloud-custodian-timeSeries_1.json",
        lambda f: f.get(
            f"/v3/projects/{P}/timeSeries",
            filter='metric.type = "agent.googleapis.com/gpu/utilization"',
            **{
                "interval.startTime": "2026-11-21T04:00:00Z",
                "interval.endTime": "2026-11-21T05:00:00Z",
            },
        ),
        keys=("", "timeSeries[]", "timeSeries[].points[]", "timeSeries[].points[].interval"),
    ),
    Case(
        "monitoring.projects.timeSeries.list",
        "filter-no-metrics/get-v3-projects-cloud-custodian-timeSeries_1.json",
        lambda f: f.get(
            "/v3/projects/other/timeSeries",
            filter='metric.type = "agent.googleapis.com/gpu/utilization"',
            **{"interval.endTime": "2026-11-21T05:00:00Z"},
        ),
    ),
]


def _schema(method_id: str) -> tuple[str, dict[str, Any]]:
    """(API short name, response schema) of a discovery method id."""
    api = method_id.partition(".")[0]
    doc = document(APIS[api])

    def find(resource: dict[str, Any]) -> dict[str, Any] | None:
        for method in resource.get("methods", {}).values():
            if method["id"] == method_id:
                return method
        for sub in resource.get("resources", {}).values():
            if (found := find(sub)) is not None:
                return found
        return None

    method = find(doc)
    assert method is not None, method_id
    return api, method.get("response", {})


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{c.method}:{Path(c.recorded).parent}" for c in CASES]
)
def test_the_fake_answers_like_the_recording(fakes, case):
    status, recorded = recording(case.recorded)
    got, answer = case.ask(fakes)
    assert got == status, f"HTTP {got}, recorded {status}: {answer}"
    comparison = Comparison(case.proto3)
    comparison.walk(answer, recorded, case.method)
    problems = comparison.problems
    for path in case.keys:
        problems += same_keys(answer, recorded, path)
    assert problems == []
    if status < 400:
        api, schema = _schema(case.method)
        _check(api, answer, schema, f"{case.method} response")


def test_every_recording_is_compared():
    used = {c.recorded for c in CASES}
    files = {str(p.relative_to(RECORDED)) for p in RECORDED.rglob("*.json")}
    assert files == used


def test_the_comparison_catches_what_the_fake_used_to_get_wrong():
    # A zero minimum sent, an int64 sent as a number, and a 409 for a stale fingerprint.
    c = Comparison(proto3=True)
    c.walk(
        {"resourceType": "cpu", "minimum": "0", "maximum": 8},
        {"resourceType": "cpu", "maximum": "1000000000"},
        "limit",
    )
    assert c.problems == [
        "limit.minimum: fake sends the default '0', GKE-style proto3 JSON leaves it out",
        "limit.maximum: fake sends integer 8, recorded '1000000000'",
    ]
    assert same_keys(
        {"error": {"code": 409, "message": "m", "status": "ABORTED"}},
        recording(
            "gke-cluster-set-label/post-v1-projects-cloud-custodian-locations-us-central1-clusters-standard-cluster-1-setResourceLabels_2.json"
        )[1],
        "error",
    )


def test_partial_answers_have_the_documented_shapes():
    # No recording holds a partial answer: the fake's are checked against the documents.
    from governance.fakecloud.tpu import FakeTpu

    with FakeGcp() as server:
        compute, gke = FakeCompute().install(server), FakeContainer().install(server)
        tpu, notebooks = FakeTpu().install(server), FakeNotebooks().install(server)
        compute.add(P, ZONE, "vm")
        compute.unreachable.add((P, "us-central1-b"))
        gke.add_cluster(P, REGION, "c")
        gke.missing_zones.add((P, "us-central1-f"))
        tpu.unreachable.add((P, ZONE))
        notebooks.unreachable.add((P, ZONE))
        asks = {
            "compute.instances.aggregatedList": (
                f"/compute/v1/projects/{P}/aggregated/instances?returnPartialSuccess=true",
                "unreachables",
                ["zones/us-central1-b"],
            ),
            "container.projects.locations.clusters.list": (
                f"{CLUSTERS}/-/clusters",
                "missingZones",
                ["us-central1-f"],
            ),
            "tpu.projects.locations.nodes.list": (
                f"/v2/projects/{P}/locations/{ZONE}/nodes",
                "unreachable",
                [f"projects/{P}/locations/{ZONE}"],
            ),
            "notebooks.projects.locations.instances.list": (
                f"/v2/projects/{P}/locations/-/instances",
                "unreachable",
                [f"projects/{P}/locations/{ZONE}"],
            ),
        }
        for method, (path, key, expected) in asks.items():
            answer = requests.get(server.url + path, timeout=10).json()
            assert answer[key] == expected, method
            api, schema = _schema(method)
            _check(api, answer, schema, f"{method} response")
