# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Idle-VM recommendations (recommender_v1.RecommenderClient): list, mark.

A thin adapter: it translates the port's calls and the client's errors, nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from govern import claims, parse, ports
from govern.gcp.clients import build_client, call_options, parsed, to_dict, translated
from govern.models import Recommendation

IDLE_RECOMMENDER = "google.compute.instance.IdleResourceRecommender"
# CLAIMED too: a claim a run could not finish is resumed by the next one (claims.py).
LIST_FILTER = "stateInfo.state = ACTIVE OR stateInfo.state = CLAIMED"


class RecommenderAdapter:
    """ports.Recommender over recommender_v1.RecommenderClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list_recommendations(self, project: str, zone: str) -> ports.Listing[Recommendation]:
        """ACTIVE and CLAIMED idle-VM recommendations for one zone.

        The API lists every state unless filtered; stateInfo.state is a supported filter field.
        """
        parent = f"projects/{project}/locations/{zone}/recommenders/{IDLE_RECOMMENDER}"
        # Not enabled is a failure, not "no idle VM": the reaper would be blind every day.
        with translated(f"recommender list {project}/{zone}", disabled_means_none=False):
            pager = self._client.list_recommendations(
                request={"parent": parent, "filter": LIST_FILTER}, **call_options()
            )
            return parsed(
                (to_dict(r) for r in pager),
                lambda raw: parse.recommendation(project, raw),
                lambda raw: str(raw.get("name", parent)),
            )

    def _mark(self, method: str, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        # stateMetadata values must match ^[a-zA-Z0-9_./-]{0,255}$ (recommender v1 discovery
        # doc): claims.metadata builds them so; `value` keeps anything else from being refused.
        meta = {k: claims.value(v) for k, v in metadata.items()}
        with translated(
            f"recommender {method} {name}", conflict_on_bad_request=True, disabled_means_none=False
        ):
            rec = getattr(self._client, method)(
                name=name, etag=etag, state_metadata=meta, **call_options()
            )
        return str(rec.etag)

    def mark_claimed(self, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        """Claim with the current etag; returns the new one."""
        return self._mark("mark_recommendation_claimed", name, etag, metadata)

    def mark_succeeded(self, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        """Mark succeeded with the etag from the claim."""
        return self._mark("mark_recommendation_succeeded", name, etag, metadata)

    def mark_failed(self, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        """Mark failed; the reason travels in `metadata`."""
        return self._mark("mark_recommendation_failed", name, etag, metadata)


def create(endpoint: str | None = None) -> RecommenderAdapter:
    """Recommender adapter."""
    return RecommenderAdapter(
        build_client("google.cloud.recommender_v1", "recommender", "RecommenderClient", endpoint)
    )
