"""The fake GKE, Vertex AI and Monitoring speak the REST shapes of Google's discovery documents.

A fake's answers must come from documented shapes, never from what our code happens to send:
every request the cap scenario makes must be a documented method (HTTP method + flatPath),
every request body must use only fields of the method's request schema, and every answer only
fields of its response schema, with the documented JSON types (int64 as strings, enums).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest

from tests.functions.conftest import (
    PROD,
    budget_data,
    post_report,
    pubsub_event,
    seed_accelerators,
    send_event,
    set_policy,
)
from tests.policies.compat.discovery_documents import document

APIS = {
    "container": "container.v1",
    "aiplatform": "aiplatform.v1",
    "monitoring": "monitoring.v3",
    "compute": "compute.v1",
    "notebooks": "notebooks.v2",
    "tpu": "tpu.v2",
    "recommender": "recommender.v1",
    "cloudasset": "cloudasset.v1",
    "pubsub": "pubsub.v1",
}


# Once per API: each request of the scenario is matched against every method of its document.
@functools.cache
def _methods(api: str) -> tuple[tuple[str, re.Pattern[str], dict[str, Any]], ...]:
    found: list[tuple[str, re.Pattern[str], dict[str, Any]]] = []
    service_path = document(APIS[api]).get("servicePath", "")

    def walk(resource: dict[str, Any]) -> None:
        for method in resource.get("methods", {}).values():
            pattern = re.sub(
                r"\{[^}]+\}",
                r"[^/:]+",
                re.escape(method["flatPath"]).replace(r"\{", "{").replace(r"\}", "}"),
            )
            found.append(
                (method["httpMethod"], re.compile(f"/{re.escape(service_path)}{pattern}"), method)
            )
        for sub in resource.get("resources", {}).values():
            walk(sub)

    walk(document(APIS[api]))
    return tuple(found)


def _api(path: str) -> str | None:
    if "/instanceGroupManagers" in path:
        return "compute"
    # The long-running operations of a stop (governance/fakecloud/longrunning.py names them apart).
    if "/operations/operation-nb-" in path:
        return "notebooks"
    if "/operations/operation-tpu-" in path:
        return "tpu"
    if "/clusters" in path or re.search(r"/operations/operation-", path):
        return "container"
    if re.search(r"/(customJobs|hyperparameterTuningJobs|endpoints)", path):
        return "aiplatform"
    if path.endswith("/timeSeries"):
        return "monitoring"
    return None


def _check(api: str, value: Any, schema: dict[str, Any], where: str) -> None:
    schemas = document(APIS[api])["schemas"]
    if "$ref" in schema:
        schema = schemas[schema["$ref"]]
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        assert isinstance(value, dict), where
        for key, item in value.items():
            assert key in schema["properties"] or key == "@type", f"{where}.{key}: not documented"
            _check(api, item, schema["properties"].get(key, {}), f"{where}.{key}")
    elif kind == "object" and "additionalProperties" in schema:
        assert isinstance(value, dict), where
        for key, item in value.items():
            _check(api, item, schema["additionalProperties"], f"{where}[{key}]")
    elif kind == "array":
        assert isinstance(value, list), where
        for i, item in enumerate(value):
            _check(api, item, schema.get("items", {}), f"{where}[{i}]")
    elif kind == "string":
        assert isinstance(value, str), (
            f"{where}: {value!r} must be a string ({schema.get('format')})"
        )
        if "enum" in schema:
            assert value in schema["enum"], f"{where}: {value!r} not in the enum"
    elif kind == "integer":
        assert isinstance(value, int) and not isinstance(value, bool), f"{where}: {value!r}"
    elif kind == "boolean":
        assert isinstance(value, bool), f"{where}: {value!r}"


@pytest.fixture
def exchanges(cloud, monkeypatch):
    set_policy(monkeypatch, undeploy_endpoints=True)
    cloud.container.op_polls = 1
    seed_accelerators(cloud)
    cloud.notebooks.add(PROD, "us-central1-a", "nb")  # its stop's operation is checked too
    send_event(pubsub_event(budget_data(1.5, 1500)))
    post_report("reap_idle_gpus")
    return [(q, r) for q, r in cloud.server.exchanges if _api(q.path)]


def test_every_request_is_a_documented_method_with_documented_bodies(exchanges):
    used: set[str] = set()
    for request, reply in exchanges:
        api = _api(request.path)
        assert api is not None
        matches = [
            m
            for verb, pattern, m in _methods(api)
            if verb == request.method and pattern.fullmatch(request.path)
        ]
        assert len(matches) == 1, f"{request.method} {request.path}: {[m['id'] for m in matches]}"
        method = matches[0]
        used.add(method["id"])
        if request.body is not None:
            _check(api, request.body, method.get("request", {}), f"{method['id']} request")
        if reply.status < 400:
            _check(api, reply.body, method.get("response", {}), f"{method['id']} response")
    assert used == {
        "container.projects.locations.clusters.list",
        "container.projects.locations.clusters.update",
        "container.projects.locations.clusters.setResourceLabels",
        "container.projects.locations.clusters.nodePools.update",
        "container.projects.locations.clusters.nodePools.setSize",
        "container.projects.locations.clusters.nodePools.setAutoscaling",
        "container.projects.locations.operations.get",
        "aiplatform.projects.locations.customJobs.list",
        "aiplatform.projects.locations.customJobs.cancel",
        "aiplatform.projects.locations.hyperparameterTuningJobs.list",
        "aiplatform.projects.locations.hyperparameterTuningJobs.cancel",
        "aiplatform.projects.locations.endpoints.list",
        "aiplatform.projects.locations.endpoints.patch",
        "aiplatform.projects.locations.endpoints.undeployModel",
        "aiplatform.projects.locations.endpoints.operations.get",
        "notebooks.projects.locations.operations.get",
        "tpu.projects.locations.operations.get",
        "compute.instanceGroupManagers.get",
        "monitoring.projects.timeSeries.list",
    }


def test_the_checker_catches_an_undocumented_field():
    with pytest.raises(AssertionError, match="not documented"):
        _check("container", {"nodeCount": 0, "size": 0}, {"$ref": "SetNodePoolSizeRequest"}, "x")
    with pytest.raises(AssertionError, match="must be a string"):
        _check("container", {"maximum": 8}, {"$ref": "ResourceLimit"}, "x")
