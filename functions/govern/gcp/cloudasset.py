# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Cloud Asset Inventory v1 (REST): the projects under a folder or organization, and more.

The workloads the index holds there, too (the fan-out dispatchers' candidate counts, with the
reapers' asset types and a label or state query).

`GET v1/{scope}:searchAllResources?assetTypes=cloudresourcemanager.googleapis.com/Project&
query=state:ACTIVE&pageSize=500`, every page (cloudasset v1 discovery document: the page size is
capped at 500, `nextPageToken` names the next page). Over rest.py like GKE and Vertex AI: no
client library is loaded for one call. Each page is retried like every other call; a page that
still fails fails the whole search (a scope read in part would act on part of it and call that
everything). An API that is not enabled, or a scope the caller may not search, is a failure
naming it, never "no projects". A thin adapter: selection is resolve.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from govern import parse, ports
from govern.gcp.clients import parsed, translated
from govern.gcp.rest import Rest, session
from govern.models import FoundProject, Workload

GOOGLE: Final = "https://cloudasset.googleapis.com"
PAGE_SIZE: Final = 500  # the API's cap


class AssetsAdapter:
    """ports.Assets over the cloudasset v1 REST API."""

    def __init__(self, rest: Rest, base_url: str) -> None:
        self._rest = rest
        self._base = base_url.rstrip("/")

    def search_projects(self, scope: str) -> ports.Listing[FoundProject]:
        """Every project result under `scope`, across every page."""
        params = {
            "assetTypes": parse.PROJECT_ASSET_TYPE,
            # The API filters; resolve.py checks `state` again, so a query the service reads
            # differently never lets a project being deleted through.
            "query": "state:ACTIVE",
            "pageSize": str(PAGE_SIZE),
        }
        url = f"{self._base}/v1/{scope}:searchAllResources"
        with translated(f"asset search {scope}", disabled_means_none=False):
            raws = list(self._rest.pages(url, params, "results"))
        return parsed(raws, parse.found_project, lambda raw: str(raw.get("name", "")))

    def search_workloads(
        self, scope: str, asset_types: Sequence[str], query: str
    ) -> ports.Listing[Workload]:
        """Every workload result of `asset_types` matching `query` under `scope`, every page."""
        params: dict[str, str | list[str]] = {
            "assetTypes": list(asset_types),
            "query": query,
            "pageSize": str(PAGE_SIZE),
        }
        url = f"{self._base}/v1/{scope}:searchAllResources"
        with translated(f"asset search {scope} ({query})", disabled_means_none=False):
            raws = list(self._rest.pages(url, params, "results"))
        return parsed(raws, parse.found_workload, lambda raw: str(raw.get("name", "")))


def create(endpoint: str | None = None) -> AssetsAdapter:
    """Asset Inventory adapter: an authorized session, or a plain one for an endpoint override."""
    return AssetsAdapter(Rest(session(endpoint)), endpoint or GOOGLE)
