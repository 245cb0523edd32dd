"""The marks the budget cap leaves on what it changed, decoded: pure, no API, no settings.

The budget function writes them (functions/govern/gke.py and functions/govern/vertex.py hold
the formats; governance never imports functions/, so they are decoded here on their own, and
tests/contract/test_cap_marks.py pins the two together):

- node pool `mlgov-cap-prev`: `autoscale-<total|zone>-<min>-<max>[-<any|balanced>]
  [-n<nodes>[-z<a>_<b>...]][-nap]` or `fixed-n<nodes>[-z<a>_<b>...]` (`-z`: each zone's count,
  zones in name order), and from earlier versions `fixed-<n per zone>`, the autoscale form
  without `-n`, and either without `-z`;
- cluster `mlgov-cap-nap-<resourceType>`: `<min>-<max>`;
- endpoint `mlgov-cap-dm-<id>`: `<traffic>_<d|a><min>-<max>_<machineType>_<accelerator>_<count>`
  and `mlgov-cap-dm-<id>-m`: `<version>_<location>_<modelId>`.

A value that does not parse is `Unreadable`: restore reports it and leaves that resource alone
(the rest is restored). Deciding what to write is gke.py's and vertex.py's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

POOL_LABEL = "mlgov-cap-prev"
NAP_PREFIX = "mlgov-cap-nap-"
DEPLOYMENT_PREFIX = "mlgov-cap-dm-"
MODEL_SUFFIX = "-m"

_AUTOSCALE = re.compile(
    r"autoscale-(total|zone)-(\d+)-(\d+)(?:-(any|balanced))?(?:-n(\d+)(?:-z(\d+(?:_\d+)+))?)?"
    r"(-nap)?"
)
_FIXED = re.compile(r"fixed-(?:n(\d+)(?:-z(\d+(?:_\d+)+))?|(\d+))")
_LIMIT = re.compile(r"(\d+)-(\d+)")
_DEPLOYMENT = re.compile(r"(\d+)_([da])(\d+)-(\d+)_([a-z0-9-]*)_([a-z0-9-]*)_(\d+)")
_MODEL = re.compile(r"(\d*)_([a-z0-9-]*)_([a-z0-9_-]+)")
_DEPLOYED_ID = re.compile(r"\d{1,19}")
_INT32 = 2**31 - 1


class Unreadable(ValueError):
    """A mark this version cannot read; the message names the label and its value."""


def _count(text: str, key: str, value: str) -> int:
    number = int(text)
    if number > _INT32:
        raise Unreadable(f"{key}={value!r}: {number} is beyond what GKE or Vertex AI accept")
    return number


@dataclass(frozen=True)
class PoolMark:
    """A node pool's settings before the cap, from its `mlgov-cap-prev` label.

    `autoscaling`: the NodePoolAutoscaling JSON it had (None: a fixed-size pool); `nodes`: its
    node count at cap time over all zones (None: not recorded); `zone_nodes`: each zone's count
    then, zones in name order (None: not recorded, e.g. by earlier versions, or a pool in one
    zone); `per_zone`: an earlier version's fixed size per zone (its initialNodeCount);
    `autoprovisioned`: node auto-provisioning made it.
    """

    autoscaling: dict[str, Any] | None
    nodes: int | None = None
    per_zone: int | None = None
    autoprovisioned: bool = False
    zone_nodes: tuple[int, ...] | None = None

    @property
    def total(self) -> bool:
        """Whether its autoscaling bounds count nodes in total (else per zone)."""
        return self.autoscaling is not None and "totalMaxNodeCount" in self.autoscaling

    @property
    def low(self) -> int:
        """Its autoscaling minimum (0 for a fixed pool)."""
        a = self.autoscaling or {}
        return int(a.get("totalMinNodeCount" if self.total else "minNodeCount", 0))

    @property
    def high(self) -> int:
        """Its autoscaling maximum (0 for a fixed pool)."""
        a = self.autoscaling or {}
        return int(a.get("totalMaxNodeCount" if self.total else "maxNodeCount", 0))

    def describe(self) -> str:
        """What it was, in words."""
        if self.autoscaling is None:
            size = (
                f"{self.nodes} node(s)" if self.nodes is not None else f"{self.per_zone} per zone"
            )
            return f"fixed size, {size}{self._by_zone()}"
        where = "in total" if self.total else "per zone"
        policy = self.autoscaling.get("locationPolicy")
        text = f"autoscaling {self.low}-{self.high} nodes {where}"
        text += f", location policy {policy}" if policy else ""
        text += ", made by node auto-provisioning" if self.autoprovisioned else ""
        if self.nodes is not None:
            text += f", {self.nodes} node(s) at cap time{self._by_zone()}"
        return text

    def _by_zone(self) -> str:
        if self.zone_nodes is None:
            return ""
        return f" ({'/'.join(map(str, self.zone_nodes))} by zone)"


def decode_pool(value: str) -> PoolMark:
    """The settings a `mlgov-cap-prev` value records.

    Raises:
        Unreadable: the value is not one the budget function writes.
    """
    if m := _FIXED.fullmatch(value):
        if m[1] is not None:
            nodes = _count(m[1], POOL_LABEL, value)
            return PoolMark(None, nodes=nodes, zone_nodes=_zones(m[2], nodes, value))
        return PoolMark(None, per_zone=_count(m[3], POOL_LABEL, value))
    m = _AUTOSCALE.fullmatch(value)
    if m is None:
        raise Unreadable(f"{POOL_LABEL}={value!r}: not a value the budget cap writes")
    total = m[1] == "total"
    low, high = _count(m[2], POOL_LABEL, value), _count(m[3], POOL_LABEL, value)
    if low > high:
        raise Unreadable(f"{POOL_LABEL}={value!r}: minimum {low} above maximum {high}")
    autoscaling: dict[str, Any] = {
        "enabled": True,
        "totalMinNodeCount" if total else "minNodeCount": low,
        "totalMaxNodeCount" if total else "maxNodeCount": high,
    }
    if m[4]:
        autoscaling["locationPolicy"] = m[4].upper()
    nodes = _count(m[5], POOL_LABEL, value) if m[5] else None
    zones = _zones(m[6], nodes or 0, value)
    return PoolMark(autoscaling, nodes=nodes, autoprovisioned=bool(m[7]), zone_nodes=zones)


def _zones(text: str | None, nodes: int, value: str) -> tuple[int, ...] | None:
    """The per-zone counts of `-z<a>_<b>...`, which must add up to the total `-n<nodes>`."""
    if text is None:
        return None
    counts = tuple(_count(n, POOL_LABEL, value) for n in text.split("_"))
    if sum(counts) != nodes:
        raise Unreadable(
            f"{POOL_LABEL}={value!r}: the zones' counts add up to {sum(counts)}, not {nodes}"
        )
    return counts


def decode_nap(
    labels: Mapping[str, str],
) -> tuple[dict[str, tuple[int, int]], dict[str, Unreadable]]:
    """({accelerator resource type: (min, max)}, {label key: why unreadable}) of a cluster."""
    found: dict[str, tuple[int, int]] = {}
    bad: dict[str, Unreadable] = {}
    for key, value in sorted(labels.items()):
        if not key.startswith(NAP_PREFIX):
            continue
        try:
            found[key.removeprefix(NAP_PREFIX)] = _limit(key, value)
        except Unreadable as err:
            bad[key] = err
    return found, bad


def _limit(key: str, value: str) -> tuple[int, int]:
    m = _LIMIT.fullmatch(value)
    if m is None:
        raise Unreadable(f"{key}={value!r}: not <min>-<max>")
    low, high = _count(m[1], key, value), _count(m[2], key, value)
    if low > high:
        raise Unreadable(f"{key}={value!r}: minimum {low} above maximum {high}")
    return low, high


@dataclass(frozen=True)
class DeploymentMark:
    """One deployed model an endpoint had before the cap, from its two labels."""

    id: str
    traffic: int
    dedicated: bool
    min_replicas: int
    max_replicas: int
    machine_type: str
    accelerator_type: str  # the MachineSpec enum (NVIDIA_L4), "" for none
    accelerator_count: int
    model_id: str
    version: str
    location: str  # the model's location when not the endpoint's, else ""

    @property
    def keys(self) -> tuple[str, str]:
        """Its two label keys."""
        return (f"{DEPLOYMENT_PREFIX}{self.id}", f"{DEPLOYMENT_PREFIX}{self.id}{MODEL_SUFFIX}")

    def model(self, project: str, region: str) -> str:
        """The Model resource name to deploy (with `@version` when one was recorded)."""
        name = f"projects/{project}/locations/{self.location or region}/models/{self.model_id}"
        return f"{name}@{self.version}" if self.version else name

    def deployed_model(self, project: str, region: str) -> dict[str, Any]:
        """The DeployedModel JSON of endpoints.deployModel (aiplatform v1) for this mark."""
        replicas = {"minReplicaCount": self.min_replicas, "maxReplicaCount": self.max_replicas}
        body: dict[str, Any] = {"id": self.id, "model": self.model(project, region)}
        if not self.dedicated:
            body["automaticResources"] = replicas
            return body
        spec: dict[str, Any] = {"machineType": self.machine_type}
        if self.accelerator_type:
            spec["acceleratorType"] = self.accelerator_type
            spec["acceleratorCount"] = self.accelerator_count
        body["dedicatedResources"] = {"machineSpec": spec, **replicas}
        return body

    def describe(self) -> str:
        """What it was, in words."""
        model = self.model_id + (f"@{self.version}" if self.version else "")
        spec = self.machine_type or "automatic resources"
        if self.accelerator_type:
            spec += f" + {self.accelerator_count} {self.accelerator_type}"
        return (
            f"model {model} on {spec}, {self.min_replicas}-{self.max_replicas} replicas, "
            f"{self.traffic}% of traffic"
        )


def decode_deployments(
    labels: Mapping[str, str],
) -> tuple[list[DeploymentMark], dict[str, Unreadable]]:
    """(deployments recorded on an endpoint, {deployed model id: why unreadable})."""
    ids = {
        k.removeprefix(DEPLOYMENT_PREFIX).removesuffix(MODEL_SUFFIX)
        for k in labels
        if k.startswith(DEPLOYMENT_PREFIX)
    }
    found: list[DeploymentMark] = []
    bad: dict[str, Unreadable] = {}
    for dm in sorted(ids, key=lambda i: (len(i), i)):
        try:
            found.append(_deployment(dm, labels))
        except Unreadable as err:
            bad[dm] = err
    return found, bad


def _deployment(dm: str, labels: Mapping[str, str]) -> DeploymentMark:
    key = f"{DEPLOYMENT_PREFIX}{dm}"
    if not _DEPLOYED_ID.fullmatch(dm):
        raise Unreadable(f"{key}: {dm!r} is not a deployed model id")
    if key not in labels or f"{key}{MODEL_SUFFIX}" not in labels:
        raise Unreadable(f"{key}: one of its two labels ({key}, {key}{MODEL_SUFFIX}) is missing")
    value, which = labels[key], labels[f"{key}{MODEL_SUFFIX}"]
    m, w = _DEPLOYMENT.fullmatch(value), _MODEL.fullmatch(which)
    if m is None:
        raise Unreadable(f"{key}={value!r}: not a deployment the budget cap writes")
    if w is None:
        raise Unreadable(f"{key}{MODEL_SUFFIX}={which!r}: not <version>_<location>_<modelId>")
    traffic = _count(m[1], key, value)
    low, high = _count(m[3], key, value), _count(m[4], key, value)
    if traffic > 100 or (high and low > high):
        raise Unreadable(f"{key}={value!r}: traffic above 100% or replicas min above max")
    dedicated = m[2] == "d"
    if dedicated and not m[5]:
        raise Unreadable(f"{key}={value!r}: dedicated resources without a machine type")
    return DeploymentMark(
        id=dm,
        traffic=traffic,
        dedicated=dedicated,
        min_replicas=low,
        max_replicas=high,
        machine_type=m[5],
        accelerator_type=m[6].upper().replace("-", "_"),
        accelerator_count=_count(m[7], key, value),
        model_id=w[3],
        version=w[1],
        location=w[2],
    )
