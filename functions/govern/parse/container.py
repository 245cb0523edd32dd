"""GKE REST JSON (container v1 `Cluster`, `NodePool`) to the models of govern/gke.py.

GKE's `Operation` is read in parse/operation.py, with the other APIs' operations.

Shapes: the container v1 discovery document and the recorded answers in
tests/fakegcp/recorded/ (cloud-custodian flights). int64 fields (ResourceLimit.minimum/maximum,
acceleratorCount) arrive as strings, and fields at their default are left out (a zero minimum,
`enabled: false`), so an absent number is 0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from govern.gke import Autoscaling, Cluster, InstanceGroup, NodePool, ResourceLimit
from govern.parse.reader import ParseError, integer, items, label_map, sub, text

_NAME = re.compile(r"[a-z](?:[-a-z0-9]{0,98}[a-z0-9])?")
# NodePool.instanceGroupUrls: https://www.googleapis.com/compute/v1/projects/P/zones/Z/
# instanceGroupManagers/NAME (the recorded clusters.list answers show this shape).
_GROUP = re.compile(r".*/projects/([^/]+)/zones/([^/]+)/instanceGroupManagers/([^/]+)")


def _groups(raw: Mapping[str, Any]) -> tuple[InstanceGroup, ...]:
    urls = raw.get("instanceGroupUrls")
    found: list[InstanceGroup] = []
    for url in urls if isinstance(urls, list) else []:  # pyright: ignore[reportUnknownVariableType]
        if isinstance(url, str) and (m := _GROUP.fullmatch(url)):
            found.append(InstanceGroup(m[1], m[2], m[3]))
    return tuple(found)


def _autoscaling(raw: Mapping[str, Any]) -> Autoscaling | None:
    if not raw:
        return None
    total = "totalMaxNodeCount" in raw or "totalMinNodeCount" in raw
    prefix = "total" if total else ""
    return Autoscaling(
        enabled=bool(raw.get("enabled", False)),
        min_nodes=integer(raw.get(f"{prefix}MinNodeCount" if total else "minNodeCount")),
        max_nodes=integer(raw.get(f"{prefix}MaxNodeCount" if total else "maxNodeCount")),
        total=total,
        location_policy=text(raw, "locationPolicy"),
    )


def node_pool(project: str, location: str, cluster: str, raw: Mapping[str, Any]) -> NodePool:
    """A `NodePool` JSON (inside a Cluster) as a NodePool."""
    config = sub(raw, "config")
    autoscaling = sub(raw, "autoscaling")
    return NodePool(
        project=project,
        location=location,
        cluster=cluster,
        name=text(raw, "name"),
        machine_type=text(config, "machineType"),
        accelerators=sum(integer(a.get("acceleratorCount")) for a in items(config, "accelerators")),
        autoscaling=_autoscaling(autoscaling),
        initial_node_count=integer(raw.get("initialNodeCount")),
        resource_labels=label_map(config.get("resourceLabels")),
        autoprovisioned=bool(autoscaling.get("autoprovisioned", False)),
        status=text(raw, "status"),
        instance_groups=_groups(raw),
    )


def cluster(project: str, raw: Mapping[str, Any]) -> Cluster:
    """A `Cluster` JSON (clusters.list) as a Cluster with its node pools.

    Raises:
        ParseError: the cluster has no usable name or location.
    """
    name, location = text(raw, "name"), text(raw, "location")
    if not _NAME.fullmatch(name) or not location:
        raise ParseError(f"GKE cluster: unexpected name/location {name!r}/{location!r}")
    autoscaling = sub(raw, "autoscaling")
    limits = tuple(
        ResourceLimit(
            text(limit, "resourceType"),
            integer(limit.get("minimum")),
            integer(limit.get("maximum")),
        )
        for limit in items(autoscaling, "resourceLimits")
        if text(limit, "resourceType")
    )
    return Cluster(
        project=project,
        location=location,
        name=name,
        status=text(raw, "status"),
        autopilot=bool(sub(raw, "autopilot").get("enabled", False)),
        resource_labels=label_map(raw.get("resourceLabels")),
        label_fingerprint=text(raw, "labelFingerprint"),
        node_autoprovisioning=bool(autoscaling.get("enableNodeAutoprovisioning", False)),
        limits=limits,
        autoscaling=dict(autoscaling),
        node_pools=tuple(
            node_pool(project, location, name, pool) for pool in items(raw, "nodePools")
        ),
    )
