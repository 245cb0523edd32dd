"""Fake Cloud Asset Inventory v1: `searchAllResources` over projects in a folder tree.

`GET /v1/{scope}:searchAllResources` with `scope` a folder, an organization or a project, as the
cloudasset v1 discovery document describes it: `assetTypes` (repeated; only
`cloudresourcemanager.googleapis.com/Project` is modelled, any other type finds nothing),
`query` (only `state:<STATE>` is understood; anything else answers 400 like an unsupported
query would), `pageSize` (capped at 500; 0 or absent picks the default, 100 here) and
`pageToken`. The answer is a SearchAllResourcesResponse: `results[]` of ResourceSearchResult
(a project's fields as FACTS.md lists them: `name` with the project NUMBER, `assetType`,
`project`, `displayName`, `additionalAttributes.projectId`, `location`, `labels` (left out when
empty: proto3 JSON), `state`, `folders` (every ancestor folder, nearest first), `organization`,
`parentFullResourceName`, `parentAssetType`, `createTime`, `updateTime`), and `nextPageToken`
while more pages follow. An empty answer is `{}`.

Folders form a tree (`add_folder(child, parent)`); a folder scope finds every project anywhere
under it, subfolders included. `failing[scope]` answers that HTTP status for that scope's
searches (e.g. 403 PERMISSION_DENIED for a folder the caller may not search).
"""

from __future__ import annotations

import itertools
import re
import threading
from typing import Any

from tests.fakegcp.server import FakeGcp, Reply, Request, error_body

PROJECT_TYPE = "cloudresourcemanager.googleapis.com/Project"
MAX_PAGE = 500
DEFAULT_PAGE = 100
_QUERY = re.compile(r"state:([A-Z_]+)")


class FakeAssets:
    """Projects (keyed by id) in a tree of folders under one organization."""

    def __init__(self, organization: str = "organizations/456") -> None:
        self.organization = organization
        self.parents: dict[str, str] = {}  # folders/N -> its parent (folder or organization)
        self.projects: dict[str, dict[str, Any]] = {}
        self.failing: dict[str, int] = {}
        self._numbers = itertools.count(100000000001)
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
        return target in (result["additionalAttributes"]["projectId"], result["project"][9:])

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
        query = (request.query.get("query") or [""])[0].strip()
        wanted_state = None
        if query:
            q = _QUERY.fullmatch(query)
            if q is None:
                return Reply(400, error_body(400, f"the fake does not understand query {query!r}"))
            wanted_state = q[1]
        types = request.query.get("assetTypes") or []
        try:
            size = int((request.query.get("pageSize") or ["0"])[0])
            start = int((request.query.get("pageToken") or ["0"])[0])
        except ValueError:
            return Reply(400, error_body(400, "Invalid page token or page size"))
        size = DEFAULT_PAGE if size <= 0 else min(size, MAX_PAGE)
        with self._lock:
            found = [
                dict(r)
                for _, r in sorted(self.projects.items())
                if (not types or PROJECT_TYPE in types)
                and self._under(r, scope)
                and (wanted_state is None or r["state"] == wanted_state)
            ]
        page = found[start : start + size]
        body: dict[str, Any] = {}
        if page:
            body["results"] = page
        if start + size < len(found):
            body["nextPageToken"] = str(start + size)
        return Reply(200, body)
