# pyright: basic
"""Fake Recommender API for google.compute.instance.IdleResourceRecommender.

Recommendation JSON follows the recorded disk-recommender list (cloud-custodian flight data)
with subtype STOP_VM and the compute instance operations the instance recommender uses
(test RUNNING / replace TERMINATED on /status). Names carry the project NUMBER, as real ones do.
markClaimed/Succeeded/Failed check the etag (stale => 412), the state transitions and the
stateMetadata rules of the recommender v1 discovery doc (values ^[a-zA-Z0-9_./-]{0,255}$ =>
400), and move the state; each change issues a new etag. List filters follow the documented
grammar for the one field we use: `stateInfo.state = X [OR stateInfo.state = Y ...]`.
"""

from __future__ import annotations

import copy
import itertools
import re
import threading
import uuid
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

RECOMMENDER = "google.compute.instance.IdleResourceRecommender"
_MARK = {"markClaimed": "CLAIMED", "markSucceeded": "SUCCEEDED", "markFailed": "FAILED"}
# From which states each mark may be applied (enumDescriptions of RecommendationStateInfo.state
# and the mark* method descriptions, recommender v1 discovery doc).
_MARKABLE = {
    "markClaimed": {"ACTIVE", "CLAIMED", "SUCCEEDED", "FAILED"},
    "markSucceeded": {"ACTIVE", "CLAIMED", "SUCCEEDED", "FAILED"},
    "markFailed": {"ACTIVE", "CLAIMED", "SUCCEEDED", "FAILED"},
}
_METADATA_VALUE = re.compile(r"[a-zA-Z0-9_./-]{0,255}")
_FILTER_TERM = re.compile(r"\s*stateInfo\.state\s*=\s*\"?(\w+)\"?\s*")


def instance_recommendation(
    number: str,
    project_in_ops: str,
    zone: str,
    instance: str,
    *,
    state: str = "ACTIVE",
    subtype: str = "STOP_VM",
    etag: str | None = None,
) -> dict[str, Any]:
    resource = (
        f"//compute.googleapis.com/projects/{project_in_ops}/zones/{zone}/instances/{instance}"
    )
    return {
        "name": f"projects/{number}/locations/{zone}/recommenders/{RECOMMENDER}/recommendations/{uuid.uuid4()}",
        "description": f"Save cost by stopping Idle VM '{instance}'.",
        "lastRefreshTime": "2026-11-20T07:00:00Z",
        "primaryImpact": {
            "category": "COST",
            "costProjection": {
                "cost": {"currencyCode": "USD", "units": "-5", "nanos": -497242857},
                "duration": "2592000s",
            },
        },
        "content": {
            "operationGroups": [
                {
                    "operations": [
                        {
                            "action": "test",
                            "resourceType": "compute.googleapis.com/Instance",
                            "resource": resource,
                            "path": "/status",
                            "value": "RUNNING",
                        },
                        {
                            "action": "replace",
                            "resourceType": "compute.googleapis.com/Instance",
                            "resource": resource,
                            "path": "/status",
                            "value": "TERMINATED",
                        },
                    ]
                }
            ],
            "overview": {
                "resourceName": instance,
                "resource": resource,
                "location": zone,
                "recommendedAction": "Stop VM",
            },
        },
        "stateInfo": {"state": state},
        "etag": etag or f'"{uuid.uuid4().hex[:16]}"',
        "recommenderSubtype": subtype,
        # As recorded (disk-recommend/): each recommendation names the insight behind it.
        "associatedInsights": [
            {
                "insight": f"projects/{number}/locations/{zone}/insightTypes/"
                f"google.compute.instance.IdleResourceInsight/insights/{uuid.uuid4()}"
            }
        ],
        "priority": "P4",
    }


class FakeRecommender:
    """Recommendations per (project id, zone); `numbers` maps project id to project number."""

    def __init__(self, numbers: dict[str, str] | None = None) -> None:
        self.numbers = dict(numbers or {})
        self.recs: dict[str, dict[str, Any]] = {}
        self._by_parent: dict[tuple[str, str], list[str]] = {}
        self._etags = itertools.count(1)
        self._lock = threading.Lock()
        # Simulates someone else acting between our list and our markClaimed: after each list,
        # listed recommendations get a new etag and, if set, this state.
        self.change_after_list: str | None = None

    def number(self, project: str) -> str:
        return self.numbers.setdefault(project, str(100000000000 + len(self.numbers)))

    def add(self, project: str, zone: str, instance: str, **kw: Any) -> dict[str, Any]:
        return self.add_raw(
            project,
            zone,
            instance_recommendation(
                self.number(project), self.number(project), zone, instance, **kw
            ),
        )

    def add_raw(self, project: str, zone: str, rec: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.recs[rec["name"]] = rec
            self._by_parent.setdefault((self.number(project), zone), []).append(rec["name"])
        return rec

    def state(self, name: str) -> str:
        return self.recs[name]["stateInfo"]["state"]

    def install(self, fake: FakeGcp) -> FakeRecommender:
        fake.route(
            "GET",
            rf"/v1/projects/([^/]+)/locations/([^/]+)/recommenders/{re.escape(RECOMMENDER)}/recommendations",
            self._list,
        )
        fake.route(
            "POST",
            r"/v1/(projects/[^/]+/locations/[^/]+/recommenders/[^/]+/recommendations/[^/:]+):(mark\w+)",
            self._mark,
        )
        return self

    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        project, zone = m[1], m[2]
        number = self.numbers.get(project, project)
        wanted: set[str] | None = None
        for flt in request.query.get("filter", []):
            terms = [_FILTER_TERM.fullmatch(t) for t in flt.split(" OR ")]
            if not all(terms):
                return Reply(400, error_body(400, f"unsupported filter {flt!r}"))
            wanted = {t[1] for t in terms if t}
        with self._lock:
            names = self._by_parent.get((number, zone), [])
            recs = [
                copy.deepcopy(self.recs[n])
                for n in names
                if wanted is None or self.recs[n]["stateInfo"]["state"] in wanted
            ]
            if self.change_after_list is not None:
                for rec in recs:
                    current = self.recs[rec["name"]]
                    current["etag"] = f'"{next(self._etags):016x}"'
                    if self.change_after_list != "etag":
                        current["stateInfo"] = {"state": self.change_after_list}
        return Reply(200, {"recommendations": recs} if recs else {})

    def _mark(self, request: Request, m: re.Match[str]) -> Reply:
        name, verb = m[1], m[2]
        if verb not in _MARK:
            return Reply(404, error_body(404, f"unknown method {verb}"))
        body = request.body or {}
        with self._lock:
            rec = self.recs.get(name)
            if rec is None:
                return Reply(404, error_body(404, f"recommendation {name} not found"))
            if body.get("etag") != rec["etag"]:
                return Reply(
                    412, error_body(412, "etag does not match the current recommendation etag")
                )
            metadata = body.get("stateMetadata", {})
            bad = [k for k, v in metadata.items() if not _METADATA_VALUE.fullmatch(str(v))]
            if bad:
                return Reply(400, error_body(400, f"invalid stateMetadata value for {bad}"))
            if rec["stateInfo"]["state"] not in _MARKABLE[verb]:
                return Reply(
                    400,
                    error_body(400, f"cannot {verb} a {rec['stateInfo']['state']} recommendation"),
                )
            rec["stateInfo"] = {"state": _MARK[verb], "stateMetadata": metadata}
            rec["etag"] = f'"{next(self._etags):016x}"'
            return Reply(200, copy.deepcopy(rec))
