# Raw REST JSON from the container API is handled as Any at this boundary.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""GKE in `mlgov cap`: the node pools and NAP limits the cap marked, and how restore undoes it.

A pool marked `mlgov-cap-prev` gets back its autoscaling (range, location policy, and
`autoprovisioned` for a pool node auto-provisioning made: such a pool's autoscaling was never
changed, so it is written only if it differs), its size at cap time (the node count its
instance groups had, recorded as `n<nodes>` and set back per zone with setSize; marks of earlier
versions without it: the autoscaling minimum, or a fixed pool's recorded count per zone), and
then loses the label. A cluster's `mlgov-cap-nap-<type>` limits are set back in one
clusters.update (the cluster's autoscaling sent back as read, only those limits changed), then
those labels are removed with a fresh labelFingerprint. Nothing is raised above the stack's
ceilings (stack.py); a clamp is reported. Reading and writing: api.py; marks: marks.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from governance.cap.api import Api
from governance.cap.marks import (
    NAP_PREFIX,
    POOL_LABEL,
    PoolMark,
    Unreadable,
    decode_nap,
    decode_pool,
)
from governance.cap.plan import Item, Step, relabel
from governance.cap.stack import Ceiling, Stack


def _proto3(autoscaling: Mapping[str, Any]) -> dict[str, Any]:
    """NodePoolAutoscaling as GKE answers it (defaults left out), to compare two of them."""
    return {
        k: v
        for k, v in autoscaling.items()
        if v not in (0, False, "", None, "LOCATION_POLICY_UNSPECIFIED")
    }


def _now(pool: Mapping[str, Any]) -> str:
    a = _proto3(pool.get("autoscaling") or {})
    if not a.get("enabled"):
        return "autoscaling off"
    total = "totalMaxNodeCount" in a
    low = a.get("totalMinNodeCount" if total else "minNodeCount", 0)
    high = a.get("totalMaxNodeCount" if total else "maxNodeCount", 0)
    return f"autoscaling {low}-{high} nodes {'in total' if total else 'per zone'}"


def cluster_items(project: str, cluster: Mapping[str, Any], stack: Stack) -> list[Item]:
    """The capped pools and NAP limits of one cluster (clusters.list JSON)."""
    location, name = str(cluster.get("location", "")), str(cluster.get("name", ""))
    path = f"projects/{project}/locations/{location}/clusters/{name}"
    items = [
        _pool_item(project, location, name, pool, stack)
        for pool in cluster.get("nodePools") or []
        if POOL_LABEL in ((pool.get("config") or {}).get("resourceLabels") or {})
    ]
    labels = cluster.get("resourceLabels") or {}
    if any(k.startswith(NAP_PREFIX) for k in labels):
        items.append(_nap_item(project, location, name, path, cluster, stack))
    return items


# --------------------------------------------------------------------------- node pools
def _pool_item(
    project: str, location: str, cluster: str, pool: Mapping[str, Any], stack: Stack
) -> Item:
    pool_name = str(pool.get("name", ""))
    path = f"projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{pool_name}"
    value = pool["config"]["resourceLabels"][POOL_LABEL]
    item = Item("node pool", path, _now(pool), f"{POOL_LABEL}={value!r}")
    try:
        mark = decode_pool(value)
    except Unreadable as err:
        item.problems.append(f"{err}; the pool is left as it is")
        return item
    item.before = mark.describe()
    zones = len(pool.get("instanceGroupUrls") or pool.get("locations") or []) or 1
    ceiling = stack.pool_ceiling(project, location, cluster, pool_name)
    if ceiling.value <= 0:
        item.notes.append(f"left capped: {ceiling.source}, so restore raises it to nothing")
        return item
    words: list[str] = []
    recorded = dict(mark.autoscaling or {})
    if mark.autoprovisioned:
        recorded["autoprovisioned"] = True
    current = _proto3(pool.get("autoscaling") or {})
    autoscaling, high = _autoscaling(mark, zones, ceiling, item)
    if autoscaling is not None and _proto3(recorded) == current:
        # The cap never changed it (a pool node auto-provisioning made): nothing to write.
        item.notes = [n for n in item.notes if not n.startswith("clamped: the mark asks")]
        high = mark.high
        words.append("autoscaling as it is (the cap left it on)")
    elif autoscaling is not None:
        body = {"name": path, "autoscaling": autoscaling}
        item.steps.append(
            Step(
                "setAutoscaling",
                lambda api: api.gke_write(
                    "POST", f"{path}:setAutoscaling", body, project, location
                ),
            )
        )
        words.append(PoolMark(autoscaling, autoprovisioned=mark.autoprovisioned).describe())
    per_zone = _per_zone(mark, zones, high, ceiling, item)
    if per_zone > 0:
        item.steps.append(
            Step(
                f"setSize {per_zone}",
                lambda api: api.gke_write(
                    "POST",
                    f"{path}:setSize",
                    {"name": path, "nodeCount": per_zone},
                    project,
                    location,
                ),
            )
        )
        words.append(f"{per_zone} node(s) per zone x {zones} zone(s)")
    else:
        words.append("0 nodes (the autoscaler adds them as pods need them)")
    item.steps.append(
        Step(f"remove {POOL_LABEL}", lambda api: _unlabel_pool(api, path, project, location))
    )
    item.restore = "; ".join(words)
    return item


def _autoscaling(
    mark: PoolMark, zones: int, ceiling: Ceiling, item: Item
) -> tuple[dict[str, Any] | None, int]:
    """The autoscaling to set (None: a fixed pool) and its maximum, within the ceiling."""
    if mark.autoscaling is None:
        return None, 0
    autoscaling = dict(mark.autoscaling)
    if mark.autoprovisioned:
        autoscaling["autoprovisioned"] = True
    # The ceiling counts nodes in total; a per-zone maximum times the zones must stay within.
    bound = ceiling.value if mark.total else max(ceiling.value // zones, 1)
    high = mark.high
    if high > bound:
        where = "in total" if mark.total else "per zone"
        item.notes.append(
            f"clamped: the mark asks a maximum of {high} nodes {where}; the stack allows "
            f"{bound} ({ceiling.source} = {ceiling.value})"
        )
        high = bound
        low_key, high_key = ("minNodeCount", "maxNodeCount")
        if mark.total:
            low_key, high_key = ("totalMinNodeCount", "totalMaxNodeCount")
        autoscaling[high_key] = high
        autoscaling[low_key] = min(mark.low, high)
    return autoscaling, high


def _per_zone(mark: PoolMark, zones: int, high: int, ceiling: Ceiling, item: Item) -> int:
    """The node count per zone to set back, within the autoscaling maximum and the ceiling.

    setSize sets one count for every zone of the pool, so what it sets never passes the pool's
    size at cap time: the smallest zone's count when each zone's was recorded (a zone the pool
    has now but had not then counts 0), else the total shared out rounding down.
    """
    if mark.zone_nodes is not None:
        recorded = mark.zone_nodes
        wanted = min(recorded) if zones <= len(recorded) else 0
        if wanted < max(recorded):
            by_zone = "/".join(map(str, recorded))
            more = (
                "the autoscaler adds the rest as pods need them"
                if mark.autoscaling is not None
                else "resize the larger zones by hand (a fixed pool)"
            )
            item.notes.append(
                f"its zones had {by_zone} node(s) at cap time and setSize sets every zone "
                f"alike: {wanted} per zone, so no zone goes above its size then; {more}"
            )
        if zones != len(recorded):
            item.notes.append(
                f"it had {len(recorded)} zone(s) at cap time and has {zones} now: {wanted} per "
                "zone, never above the smallest zone's size then"
            )
    elif mark.nodes is not None:
        # Written before each zone's count was recorded: rounding up could pass the total (5
        # nodes over 2 zones is not 3 per zone).
        wanted = mark.nodes // zones
        if mark.nodes % zones:
            item.notes.append(
                f"{mark.nodes} node(s) over {zones} zone(s) at cap time, each zone's count not "
                f"recorded: {wanted} per zone, never above the total then"
            )
    elif mark.per_zone is not None:
        wanted = mark.per_zone
    else:
        wanted = math.ceil(mark.low / zones) if mark.total else mark.low
        item.notes.append("its size at cap time was not recorded: back to its autoscaling minimum")
    bound, why = ceiling.value // zones, f"{ceiling.source} = {ceiling.value}"
    if mark.autoscaling is not None:
        by_autoscaling = high // zones if mark.total else high
        if by_autoscaling < bound:
            where = "in total" if mark.total else "per zone"
            bound, why = by_autoscaling, f"its autoscaling maximum, {high} {where}"
    if wanted > bound:
        item.notes.append(
            f"clamped: {wanted} node(s) per zone x {zones} asked; {bound} per zone fit ({why})"
        )
        wanted = bound
    return max(wanted, 0)


def _unlabel_pool(api: Api, path: str, project: str, location: str) -> None:
    """Remove the mark from the pool's labels as they are now (nodePools.update)."""
    fresh = api.call("GET", "container", path)
    labels = dict((fresh.get("config") or {}).get("resourceLabels") or {})
    labels.pop(POOL_LABEL, None)
    body = {"name": path, "resourceLabels": {"labels": labels}}
    api.gke_write("PUT", path, body, project, location)


# --------------------------------------------------------------------------- NAP limits
def _nap_item(
    project: str,
    location: str,
    name: str,
    path: str,
    cluster: Mapping[str, Any],
    stack: Stack,
) -> Item:
    readable, bad = decode_nap(cluster.get("resourceLabels") or {})
    autoscaling = dict(cluster.get("autoscaling") or {})
    now = {
        str(lim.get("resourceType")): (int(lim.get("minimum", 0)), int(lim.get("maximum", 0)))
        for lim in autoscaling.get("resourceLimits") or []
    }
    item = Item(
        "NAP limits",
        path,
        ", ".join(f"{t} {now.get(t, (0, 0))[0]}-{now.get(t, (0, 0))[1]}" for t in sorted(readable))
        or "-",
        ", ".join(f"{t} {lo}-{hi}" for t, (lo, hi) in sorted(readable.items())),
    )
    item.problems += [f"{err}; that limit is left as it is" for err in bad.values()]
    wanted: dict[str, tuple[int, int]] = {}
    for kind, (low, high) in sorted(readable.items()):
        ceiling = stack.nap_ceiling(project, location, name, kind)
        if high > ceiling.value:
            item.notes.append(
                f"{kind}: clamped, the mark asks a maximum of {high}; {ceiling.source} is "
                f"{ceiling.value}"
            )
            high, low = ceiling.value, min(low, ceiling.value)
        if high <= 0:
            item.notes.append(f"{kind}: left at 0, its mark kept")
            continue
        wanted[kind] = (low, high)
    if not wanted:
        return item
    item.restore = ", ".join(f"{t} {lo}-{hi}" for t, (lo, hi) in sorted(wanted.items()))
    if any(now.get(t) != v for t, v in wanted.items()):
        limits = [
            {**lim, "minimum": str(wanted[t][0]), "maximum": str(wanted[t][1])}
            if (t := str(lim.get("resourceType"))) in wanted
            else lim
            for lim in autoscaling.get("resourceLimits") or []
        ]
        limits += [
            {"resourceType": t, "minimum": str(lo), "maximum": str(hi)}
            for t, (lo, hi) in sorted(wanted.items())
            if t not in now
        ]
        body = {
            "name": path,
            "update": {"desiredClusterAutoscaling": {**autoscaling, "resourceLimits": limits}},
        }
        item.steps.append(
            Step("clusters.update", lambda api: api.gke_write("PUT", path, body, project, location))
        )
    keys = {f"{NAP_PREFIX}{t}" for t in wanted}
    item.steps.append(
        Step(
            f"remove {NAP_PREFIX}* labels",
            lambda api: _unlabel_cluster(api, path, keys, project, location),
        )
    )
    return item


def _unlabel_cluster(api: Api, path: str, keys: set[str], project: str, location: str) -> None:
    """Remove `keys` with setResourceLabels and a fresh labelFingerprint (again if stale)."""

    def write(fresh: dict[str, Any]) -> None:
        labels = {k: v for k, v in (fresh.get("resourceLabels") or {}).items() if k not in keys}
        body = {
            "name": path,
            "resourceLabels": labels,
            "labelFingerprint": fresh.get("labelFingerprint", ""),
        }
        api.gke_write("POST", f"{path}:setResourceLabels", body, project, location)

    relabel(api, lambda: api.call("GET", "container", path), write)
