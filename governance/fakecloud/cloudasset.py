# pyright: basic
"""Fake Cloud Asset Inventory v1: `searchAllResources` over projects in a folder tree.

`GET /v1/{scope}:searchAllResources` with `scope` a folder, an organization or a project, as the
cloudasset v1 discovery document describes it: `assetTypes` (repeated; only
`cloudresourcemanager.googleapis.com/Project` is modelled, any other type finds nothing),
`query` (only `state:<STATE>` is understood; anything else answers 400 like an unsupported
query would), `pageSize` (capped at 500; 0 or absent picks the default, 100 here) and
`pageToken`. The answer is a SearchAllResourcesResponse: `results[]` of ResourceSearchResult
(a project's fields as the cloudasset v1 discovery document has them: `name` with the project NUMBER, `assetType`,
`project`, `displayName`, `additionalAttributes.projectId`, `location`, `labels` (left out when
empty: proto3 JSON), `state`, `folders` (every ancestor folder, nearest first), `organization`,
`parentFullResourceName`, `parentAssetType`, `createTime`, `updateTime`), and `nextPageToken`
while more pages follow. An empty answer is `{}`.

Folders form a tree (`add_folder(child, parent)`); a folder scope finds every project anywhere
under it, subfolders included. `failing[scope]` answers that HTTP status for that scope's
searches (e.g. 403 PERMISSION_DENIED for a folder the caller may not search);
`failing_workloads[scope]` only for its searches of other asset types than projects.

Workloads: `watch(compute=, tpu=, notebooks=)` indexes the fakes' VMs
(`compute.googleapis.com/Instance`), TPU VMs (`tpu.googleapis.com/Node`) and Workbench instances
(`notebooks.googleapis.com/Instance`) as they are at each search: `name` is the full resource
name with the project ID (Asset Inventory's resource name format, as the services name them),
`location` the zone, `state` the service's own (compute `status`, TPU and Workbench `state`),
`labels`, and the project's `project`/`folders`/`organization` (a project the fake was not told
of sits under the organization). The real index lags by minutes: a name in `lagging` is not
indexed yet. Queries: space- or AND-separated terms `state:S`, `state:(S OR T ...)`,
`labels.KEY:*`, `labels.KEY:VALUE`; anything else answers 400.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

PROJECT_TYPE = "cloudresourcemanager.googleapis.com/Project"
COMPUTE_TYPE = "compute.googleapis.com/Instance"
TPU_TYPE = "tpu.googleapis.com/Node"
WORKBENCH_TYPE = "notebooks.googleapis.com/Instance"
MAX_PAGE = 500
DEFAULT_PAGE = 100
_TERM = re.compile(
    r"state:(?P<state>[A-Z_]+)|state:\((?P<states>[A-Z_]+(?: OR [A-Z_]+)*)\)"
    r"|labels\.(?P<key>[a-z][a-z0-9_-]*):(?P<value>\*|[a-z0-9_-]+)"
)
Match = Callable[[dict[str, Any]], bool]


def _query(text: str) -> list[Match] | None:
    """The query's terms, all of which must match (None: a query the fake does not model)."""
    terms: list[Match] = []
    rest = text.strip()
    while rest:
        m = _TERM.match(rest)
        if m is None:
            return None
        if m["state"] or m["states"]:
            states = {m["state"]} if m["state"] else set(m["states"].split(" OR "))
            terms.append(lambda r, states=states: r.get("state") in states)
        else:
            key, value = m["key"], m["value"]
            terms.append(
                lambda r, key=key, value=value: (
                    key in r.get("labels", {}) and value in ("*", r["labels"][key])
                )
            )
        rest = rest[m.end() :].strip()
        if rest.startswith("AND "):
            rest = rest[4:]
    return terms


class FakeAssets:
    """Projects (keyed by id) in a tree of folders under one organization."""

    def __init__(self, organization: str = "organizations/456") -> None:
        self.organization = organization
        self.parents: dict[str, str] = {}  # folders/N -> its parent (folder or organization)
        self.projects: dict[str, dict[str, Any]] = {}
        self.failing: dict[str, int] = {}
        self.lagging: set[str] = set()  # full names of workloads not indexed yet
        self.failing_workloads: dict[str, int] = {}  # scope -> status, for workload searches
        self._sources: list[Callable[[], list[dict[str, Any]]]] = []
        self._numbers = itertools.count(100000000001)
        self._unlisted: dict[str, str] = {}  # numbers of projects the fake was not told of
        self._lock = threading.Lock()

    # -- state -------------------------------------------------------------------------------
    def add_folder(self, folder: str, parent: str | None = None) -> str:
        """A folder under `parent` (another folder, default: the organization)."""
        self.parents[folder] = parent or self.organization
        return folder

    def ancestors(self, parent: str) -> list[str]:
        """The folders from `parent` up to the organization, nearest first."""
        chain: list[str] = []
        while parent.startswith("folders/"):
            chain.append(parent)
            parent = self.parents[parent]
        return chain

    def add_project(
        self,
        project_id: str,
        parent: str | None = None,
        *,
        state: str = "ACTIVE",
        labels: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """A project under `parent` (a folder, default: the organization)."""
        number = str(next(self._numbers))
        parent = parent or self.organization
        folders = self.ancestors(parent)
        result: dict[str, Any] = {
            "name": f"//cloudresourcemanager.googleapis.com/projects/{number}",
            "assetType": PROJECT_TYPE,
            "project": f"projects/{number}",
            "displayName": project_id,
            "additionalAttributes": {"projectId": project_id},
            "location": "global",
            "state": state,
            "organization": self.organization,
            "parentFullResourceName": f"//cloudresourcemanager.googleapis.com/{parent}",
            "parentAssetType": (
                "cloudresourcemanager.googleapis.com/Folder"
                if parent.startswith("folders/")
                else "cloudresourcemanager.googleapis.com/Organization"
            ),
            "createTime": "2026-01-05T10:00:00Z",
            "updateTime": "2026-11-01T10:00:00Z",
        }
        if folders:
            result["folders"] = folders
        if labels:
            result["labels"] = dict(labels)
        self.projects[project_id] = result
        return result

    def watch(self, *, compute: Any = None, tpu: Any = None, notebooks: Any = None) -> None:
        """Index the workloads of these fakes (read at each search: the index is current)."""
        if compute is not None:
            self._sources.append(lambda: self._compute(compute))
        if tpu is not None:
            self._sources.append(lambda: self._tpu(tpu))
        if notebooks is not None:
            self._sources.append(lambda: self._workbench(notebooks))

    def _number(self, project_id: str) -> str:
        known = self.projects.get(project_id)
        if known is not None:
            return known["project"].removeprefix("projects/")
        if project_id not in self._unlisted:
            self._unlisted[project_id] = str(next(self._numbers))
        return self._unlisted[project_id]

    def _workload(
        self, asset_type: str, name: str, project: str, zone: str, state: str, labels: Any
    ) -> dict[str, Any]:
        number = self._number(project)
        known = self.projects.get(project, {})
        result: dict[str, Any] = {
            "name": name,
            "assetType": asset_type,
            "project": f"projects/{number}",
            "displayName": name.rsplit("/", 1)[-1],
            "location": zone,
            "state": state,
            "organization": self.organization,
            "parentFullResourceName": f"//cloudresourcemanager.googleapis.com/projects/{number}",
            "parentAssetType": PROJECT_TYPE,
        }
        if known.get("folders"):
            result["folders"] = list(known["folders"])
        if labels:
            result["labels"] = dict(labels)
        return result

    def _compute(self, compute: Any) -> list[dict[str, Any]]:
        return [
            self._workload(
                COMPUTE_TYPE,
                f"//compute.googleapis.com/projects/{p}/zones/{z}/instances/{n}",
                p,
                z,
                inst["status"],
                inst.get("labels"),
            )
            for (p, z, n), inst in sorted(compute.instances.items())
        ]

    def _tpu(self, tpu: Any) -> list[dict[str, Any]]:
        return [
            self._workload(
                TPU_TYPE,
                f"//tpu.googleapis.com/projects/{p}/locations/{z}/nodes/{n}",
                p,
                z,
                node["state"],
                node.get("labels"),
            )
            for (p, z, n), node in sorted(tpu.nodes.items())
        ]

    def _workbench(self, notebooks: Any) -> list[dict[str, Any]]:
        return [
            self._workload(
                WORKBENCH_TYPE,
                f"//notebooks.googleapis.com/projects/{p}/locations/{z}/instances/{n}",
                p,
                z,
                inst["state"],
                inst.get("labels"),
            )
            for (p, z, n), inst in sorted(notebooks.instances.items())
        ]

    def searches(self, fake: FakeGcp, scope: str | None = None) -> list[Request]:
        """The search requests the fake saw (of one scope)."""
        return [
            r
            for r in fake.calls("GET", ":searchAllResources")
            if scope is None or r.path == f"/v1/{scope}:searchAllResources"
        ]

    def install(self, fake: FakeGcp) -> FakeAssets:
        fake.route(
            "GET",
            r"/v1/((?:folders|organizations|projects)/[^/:]+):searchAllResources",
            self._search,
        )
        return self

    # -- handlers ----------------------------------------------------------------------------
    def _under(self, result: dict[str, Any], scope: str) -> bool:
        if scope.startswith("organizations/"):
            return result["organization"] == scope
        if scope.startswith("folders/"):
            return scope in result.get("folders", [])
        target = scope.split("/", 1)[1]
        project_id = (result.get("additionalAttributes") or {}).get("projectId")
        if result["assetType"] != PROJECT_TYPE:
            project_id = result["name"].split("/projects/", 1)[1].split("/", 1)[0]
        return target in (project_id, result["project"][9:])

    def _search(self, request: Request, m: re.Match[str]) -> Reply:
        scope = m[1]
        if scope in self.failing:
            status = self.failing[scope]
            return Reply(status, error_body(status, f"injected failure for {scope}"))
        if scope.startswith("folders/") and scope not in self.parents:
            return Reply(
                403,
                error_body(
                    403,
                    f"The caller does not have permission on {scope} (or it does not exist)",
                ),
            )
        types = request.query.get("assetTypes") or []
        if scope in self.failing_workloads and PROJECT_TYPE not in types:
            status = self.failing_workloads[scope]
            return Reply(status, error_body(status, f"injected failure for {scope}'s workloads"))
        query = (request.query.get("query") or [""])[0].strip()
        terms = _query(query)
        if terms is None:
            return Reply(400, error_body(400, f"the fake does not understand query {query!r}"))
        try:
            size = int((request.query.get("pageSize") or ["0"])[0])
            start = int((request.query.get("pageToken") or ["0"])[0])
        except ValueError:
            return Reply(400, error_body(400, "Invalid page token or page size"))
        size = DEFAULT_PAGE if size <= 0 else min(size, MAX_PAGE)
        with self._lock:
            indexed = [r for _, r in sorted(self.projects.items())]
            indexed += [
                r for source in self._sources for r in source() if r["name"] not in self.lagging
            ]
            found = [
                dict(r)
                for r in indexed
                if (not types or r["assetType"] in types)
                and self._under(r, scope)
                and all(term(r) for term in terms)
            ]
        page = found[start : start + size]
        body: dict[str, Any] = {}
        if page:
            body["results"] = page
        if start + size < len(found):
            body["nextPageToken"] = str(start + size)
        return Reply(200, body)
