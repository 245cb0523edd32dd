# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Idle-VM recommendations (recommender_v1.RecommenderClient): list, mark.

A thin adapter: it translates the port's calls and the client's errors, nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from govern import parse
from govern.gcp.clients import build_client, call_options, to_dict, translated
from govern.models import Recommendation

IDLE_RECOMMENDER = "google.compute.instance.IdleResourceRecommender"


class RecommenderAdapter:
    """ports.Recommender over recommender_v1.RecommenderClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list_active(self, project: str, zone: str) -> list[Recommendation]:
        """ACTIVE idle-VM recommendations for one zone (the API returns every state unfiltered)."""
        parent = f"projects/{project}/locations/{zone}/recommenders/{IDLE_RECOMMENDER}"
        with translated(f"recommender list {project}/{zone}"):
            pager = self._client.list_recommendations(
                request={"parent": parent, "filter": "stateInfo.state = ACTIVE"}, **call_options()
            )
            return [parse.recommendation(project, to_dict(r)) for r in pager]

    def _mark(self, method: str, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        with translated(f"recommender {method} {name}", conflict_on_bad_request=True):
            rec = getattr(self._client, method)(
                name=name, etag=etag, state_metadata=dict(metadata), **call_options()
            )
        return str(rec.etag)

    def mark_claimed(self, name: str, etag: str) -> str:
        """MarkClaimed with the current etag; returns the new one."""
        return self._mark("mark_recommendation_claimed", name, etag, {"mlgov": "reap_idle_vms"})

    def mark_succeeded(self, name: str, etag: str) -> str:
        """MarkSucceeded with the etag from markClaimed."""
        return self._mark("mark_recommendation_succeeded", name, etag, {"mlgov": "stopped"})

    def mark_failed(self, name: str, etag: str, reason: str) -> str:
        """markFailed, with the reason (trimmed) in stateMetadata."""
        return self._mark(
            "mark_recommendation_failed", name, etag, {"mlgov": "failed", "reason": reason[:200]}
        )


def create(endpoint: str | None = None) -> RecommenderAdapter:
    """Recommender adapter."""
    return RecommenderAdapter(
        build_client("google.cloud.recommender_v1", "recommender", "RecommenderClient", endpoint)
    )
