"""Vertex AI rules: serving and training capacity users declare is bounded and small outside prod.

Covers the Vertex resources pulumi-gcp lets a program declare with replicas or nodes of its own:
model deployments with dedicated resources (`AiEndpointWithModelGardenDeployment.deployConfig`),
shared deployment resource pools, deployed vector-search indexes, persistent training resources
and Bigtable-backed feature online stores. Field names are aiplatform.v1's (`DedicatedResources`:
`minReplicaCount`, `maxReplicaCount`, `machineSpec.acceleratorType`; `minReplicaCount` is at
least 1 for dedicated resources). Plain `AiEndpoint`s hold no capacity until a model is deployed
(outside Pulumi); their labels and region are labels.py's and location.py's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, as_number, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule


@dataclass(frozen=True)
class _Scaled:
    """One block of replicas (or nodes): where it is, its bounds, its accelerator."""

    path: str
    low_key: str
    high_key: str
    low: Any
    high: Any
    serving: bool
    accelerator: Any = None


def _dedicated(path: str, block: Any, serving: bool) -> _Scaled:
    return _Scaled(
        path,
        "minReplicaCount",
        "maxReplicaCount",
        dig(block, "minReplicaCount"),
        dig(block, "maxReplicaCount"),
        serving,
        dig(block, "machineSpec", "acceleratorType"),
    )


def _scaled(type_: str, props: Mapping[str, Any]) -> Iterator[_Scaled]:
    """The replica/node blocks of a Vertex resource (none for types without capacity)."""
    if type_ == v.VERTEX_MODEL_GARDEN_ENDPOINT:
        block = dig(props, "deployConfig", "dedicatedResources")
        if block is not None:
            yield _dedicated("deployConfig.dedicatedResources", block, serving=True)
    elif type_ == v.VERTEX_DEPLOYMENT_POOL:
        yield _dedicated("dedicatedResources", dig(props, "dedicatedResources"), serving=True)
    elif type_ == v.VERTEX_DEPLOYED_INDEX:
        for key in ("dedicatedResources", "automaticResources"):
            if (block := dig(props, key)) is not None:
                yield _dedicated(key, block, serving=True)
    elif type_ == v.VERTEX_PERSISTENT_RESOURCE:
        for i, pool in enumerate(as_list(dig(props, "resourcePools"))):
            spec = dig(pool, "autoscalingSpec")
            fixed = dig(pool, "replicaCount")
            yield _Scaled(
                f"resourcePools[{i}].autoscalingSpec",
                "minReplicaCount",
                "maxReplicaCount",
                dig(spec, "minReplicaCount") if spec is not None else fixed,
                dig(spec, "maxReplicaCount"),
                serving=False,
            )
    elif type_ == v.VERTEX_FEATURE_ONLINE_STORE:
        block = dig(props, "bigtable", "autoScaling")
        if dig(props, "bigtable") is not None:
            yield _Scaled(
                "bigtable.autoScaling",
                "minNodeCount",
                "maxNodeCount",
                dig(block, "minNodeCount"),
                dig(block, "maxNodeCount"),
                serving=True,
            )


def autoscaling_bounds(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Vertex serving and training capacity sets explicit minimum and maximum replicas."""
    del config
    for s in _scaled(type_, props):
        if is_unknown(s.low) or is_unknown(s.high):
            continue
        low, high = as_number(s.low), as_number(s.high)
        if high is None:
            yield (
                f"{s.path}.{s.high_key} is not set: capacity cannot scale down below a fixed "
                "size, nor is its growth bounded"
            )
        elif low is not None and high < low:
            yield f"{s.path}.{s.high_key} ({high:g}) is below {s.low_key} ({low:g})"


AUTOSCALING_BOUNDS = ResourceRule(
    name="mlgov-vertex-autoscaling-bounds",
    check=autoscaling_bounds,
    types=frozenset(
        {
            v.VERTEX_MODEL_GARDEN_ENDPOINT,
            v.VERTEX_DEPLOYMENT_POOL,
            v.VERTEX_DEPLOYED_INDEX,
            v.VERTEX_PERSISTENT_RESOURCE,
            v.VERTEX_FEATURE_ONLINE_STORE,
        }
    ),
    enforcement="mandatory",
    why="Vertex bills every provisioned replica or node by the hour, busy or not; bounds are "
    "what lets capacity follow traffic and caps it when traffic spikes.",
    remediation="Set both minReplicaCount and maxReplicaCount (autoscalingSpec for persistent "
    "resources, autoScaling.minNodeCount/maxNodeCount for Bigtable online stores).",
)


def min_replicas(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Outside prod, Vertex capacity keeps at most one replica (or node) when idle."""
    if config.environment == "prod":
        return
    for s in _scaled(type_, props):
        low = as_number(s.low)
        if low is not None and low > 1:
            yield (
                f"{s.path}.{s.low_key} is {low:g} in {config.environment}: {low:g} replicas bill "
                "around the clock with no traffic; use 0 or 1 outside prod"
            )


MIN_REPLICAS = ResourceRule(
    name="mlgov-vertex-min-replicas",
    check=min_replicas,
    types=AUTOSCALING_BOUNDS.types,
    enforcement="mandatory",
    config_keys=("environment",),
    why="Dev and staging endpoints sit idle most of the day; every replica above one is paid "
    "for doing nothing.",
    remediation="Set the minimum replicas (or nodes) to 0 or 1 outside prod; scale up with "
    "maxReplicaCount.",
)


def serving_accelerators(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Vertex serving uses accelerators only from the environment's allow-list."""
    for s in _scaled(type_, props):
        kind = as_str(s.accelerator)
        if not s.serving or kind is None or kind == "ACCELERATOR_TYPE_UNSPECIFIED":
            continue
        if kind not in config.vertex_serving_gpu_types:
            allowed = list(config.vertex_serving_gpu_types) or "none"
            yield (
                f"{s.path}.machineSpec.acceleratorType is {kind!r}, not allowed for serving in "
                f"{config.environment} (allowed: {allowed})"
            )


SERVING_ACCELERATORS = ResourceRule(
    name="mlgov-vertex-serving-accelerators",
    check=serving_accelerators,
    types=frozenset({v.VERTEX_MODEL_GARDEN_ENDPOINT, v.VERTEX_DEPLOYMENT_POOL}),
    enforcement="mandatory",
    config_keys=("environment", "vertex_serving_gpu_types"),
    why="A GPU behind an endpoint bills every hour the endpoint is deployed; many models serve "
    "well on CPUs, and large GPUs are for prod only by decision.",
    remediation="Serve on CPU machine types, or add the accelerator to "
    "limits.vertex_serving_gpu_types for this environment.",
)
