# Raw REST JSON from the aiplatform API is handled as Any at this boundary.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Vertex AI endpoints in `mlgov cap`: the deployments the cap undeployed, deployed again.

Before undeploying an opted-in endpoint's models the cap records each deployment in the
endpoint's labels (`mlgov-cap-dm-<id>`, marks.py). Restore deploys every recorded model that is
not deployed now (endpoints.deployModel with the same deployed model id, model and version,
machine spec and replica counts, waiting for each operation), then sets the recorded traffic
split and removes the marks in one endpoints.patch with a fresh etag. The split is set only when
every model the endpoint then serves was recorded and the shares add up to 100; otherwise it is
left as it is and the report says why. The stack declares no endpoints, so nothing bounds the
recorded replica counts: `cap status` shows them before a restore.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from governance.cap.api import Api
from governance.cap.marks import DeploymentMark, decode_deployments
from governance.cap.plan import Item, Step, relabel


def endpoint_items(project: str, region: str, endpoints: list[dict[str, Any]]) -> list[Item]:
    """One item per endpoint of the region that carries deployment marks."""
    return [
        _item(project, region, e)
        for e in endpoints
        if any(str(k).startswith("mlgov-cap-dm-") for k in (e.get("labels") or {}))
    ]


def _now(endpoint: Mapping[str, Any]) -> str:
    split = endpoint.get("trafficSplit") or {}
    ids = [str(d.get("id")) for d in endpoint.get("deployedModels") or []]
    if not ids:
        return "no model deployed"
    return "deployed: " + ", ".join(f"{i} ({split.get(i, 0)}%)" for i in ids)


def _item(project: str, region: str, endpoint: Mapping[str, Any]) -> Item:
    endpoint_id = str(endpoint.get("name", "")).rsplit("/", 1)[-1]
    path = f"projects/{project}/locations/{region}/endpoints/{endpoint_id}"
    marks, bad = decode_deployments(endpoint.get("labels") or {})
    before = "; ".join(f"{m.id}: {m.describe()}" for m in marks)
    item = Item("endpoint", path, _now(endpoint), before)
    item.problems += [f"{err}; that deployment is left as it is" for err in bad.values()]
    deployed = [str(d.get("id")) for d in endpoint.get("deployedModels") or []]
    missing = [m for m in marks if m.id not in deployed]
    for mark in missing:
        item.steps.append(
            Step(
                f"deployModel {mark.id}", lambda api, m=mark: _deploy(api, path, region, m, project)
            )
        )
    split = _split(marks, deployed, missing, bool(bad), item)
    words = [f"deploy {m.id}: {m.describe()}" for m in missing]
    if split is not None:
        words.append("traffic " + ", ".join(f"{k} {v}%" for k, v in sorted(split.items())))
    item.restore = "; ".join(words)
    keys = {k for m in marks for k in m.keys}
    if keys:
        item.steps.append(
            Step(
                "endpoints.patch (labels, traffic split)",
                lambda api: _finish(api, path, region, keys, split),
            )
        )
    return item


def _split(
    marks: list[DeploymentMark],
    deployed: list[str],
    missing: list[DeploymentMark],
    unreadable: bool,
    item: Item,
) -> dict[str, int] | None:
    """The recorded traffic split, if it can be set whole; else None and a note why not."""
    serving = set(deployed) | {m.id for m in missing}
    recorded = {m.id: m.traffic for m in marks}
    if unreadable:
        item.notes.append("traffic split left as it is: a deployment's mark is unreadable")
        return None
    if not serving <= set(recorded):
        others = ", ".join(sorted(serving - set(recorded)))
        item.notes.append(
            f"traffic split left as it is: the endpoint also serves {others}, which the cap did "
            "not record"
        )
        return None
    if sum(recorded[i] for i in serving) != 100:
        item.notes.append("traffic split left as it is: the recorded shares do not add up to 100")
        return None
    return {i: recorded[i] for i in sorted(serving) if recorded[i]}


def _deploy(api: Api, path: str, region: str, mark: DeploymentMark, project: str) -> None:
    """endpoints.deployModel with the recorded deployment (its traffic set after), then wait."""
    body = {"deployedModel": mark.deployed_model(project, region)}
    op = api.call("POST", "aiplatform", f"{path}:deployModel", region=region, body=body)
    api.vertex_wait(op, region)


def _finish(api: Api, path: str, region: str, keys: set[str], split: dict[str, int] | None) -> None:
    """One endpoints.patch: the marks removed, the traffic split set (fresh etag each try)."""
    mask = "labels,trafficSplit" if split is not None else "labels"

    def write(fresh: dict[str, Any]) -> None:
        labels = {k: v for k, v in (fresh.get("labels") or {}).items() if k not in keys}
        body: dict[str, Any] = {"labels": labels, "etag": fresh.get("etag", "")}
        if split is not None:
            body["trafficSplit"] = split
        api.call("PATCH", "aiplatform", path, region=region, body=body, params={"updateMask": mask})

    relabel(api, lambda: api.call("GET", "aiplatform", path, region=region), write)
