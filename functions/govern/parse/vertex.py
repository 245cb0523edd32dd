"""Vertex AI REST JSON (aiplatform v1 CustomJob, HyperparameterTuningJob, Endpoint) to models.

Shapes: the aiplatform v1 discovery document (GoogleCloudAiplatformV1CustomJob, ...Endpoint,
...DeployedModel). Names are `projects/P/locations/R/<collection>/ID`; P may be the project
number, so the project we listed under is kept instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from govern.parse.reader import ParseError, integer, items, label_map, sub, text
from govern.vertex import DeployedModel, Endpoint, JobKind, VertexJob

_NAME = re.compile(
    r"projects/[^/]+/locations/(?P<region>[^/]+)/(?P<kind>customJobs|hyperparameterTuningJobs|endpoints)/(?P<id>[^/]+)"
)


def _name(raw: Mapping[str, Any], kind: str) -> re.Match[str]:
    match = _NAME.fullmatch(text(raw, "name"))
    if match is None or match["kind"] != kind:
        raise ParseError(f"Vertex AI {kind}: unexpected name {raw.get('name')!r}")
    return match


def vertex_job(project: str, kind: JobKind, raw: Mapping[str, Any]) -> VertexJob:
    """A CustomJob or HyperparameterTuningJob JSON as a VertexJob.

    Raises:
        ParseError: the name is not a job name of `kind`.
    """
    match = _name(raw, kind)
    return VertexJob(
        kind=kind,
        project=project,
        region=match["region"],
        job_id=match["id"],
        state=text(raw, "state"),
        labels=label_map(raw.get("labels")),
        display_name=text(raw, "displayName"),
    )


def _deployed(raw: Mapping[str, Any]) -> DeployedModel:
    """A DeployedModel JSON: its model and the resources it runs on."""
    kind, resources = "", {}
    for key, name in (("dedicatedResources", "dedicated"), ("automaticResources", "automatic")):
        if key in raw:
            kind, resources = name, sub(raw, key)
    if text(raw, "sharedResources"):
        kind = "shared"
    spec = sub(resources, "machineSpec")
    return DeployedModel(
        id=text(raw, "id"),
        model=text(raw, "model"),
        version=text(raw, "modelVersionId"),
        resources=kind,
        machine_type=text(spec, "machineType"),
        accelerator_type=text(spec, "acceleratorType"),
        accelerator_count=integer(spec.get("acceleratorCount")),
        min_replicas=integer(resources.get("minReplicaCount")),
        max_replicas=integer(resources.get("maxReplicaCount")),
    )


def endpoint(project: str, raw: Mapping[str, Any]) -> Endpoint:
    """An Endpoint JSON as an Endpoint (deployed models in the listed order).

    Raises:
        ParseError: the name is not an endpoint name.
    """
    match = _name(raw, "endpoints")
    traffic = sub(raw, "trafficSplit")
    models = tuple(_deployed(m) for m in items(raw, "deployedModels") if text(m, "id"))
    return Endpoint(
        project=project,
        region=match["region"],
        endpoint_id=match["id"],
        labels=label_map(raw.get("labels")),
        deployed=tuple(m.id for m in models),
        traffic={str(k): integer(v) for k, v in traffic.items()},
        display_name=text(raw, "displayName"),
        models=models,
        etag=text(raw, "etag"),
        name_project=text(raw, "name").split("/")[1],
    )
