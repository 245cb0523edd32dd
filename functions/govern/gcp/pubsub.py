# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Pub/Sub v1 (REST): publish work items to the work topic.

`POST v1/{topic}:publish` with `{"messages": [{"data": <base64>, "attributes": {...}}]}`, answered
`{"messageIds": [...]}` in the same order (pubsub v1 discovery document). At most 1,000 messages
and 10 MB a request: the caller splits (workitems.batches). Retried like every other call; a
retry after a lost answer may publish a message twice, which the worker's idempotence absorbs
(Pub/Sub delivers at least once anyway). A thin adapter: it translates, nothing more.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Final

from govern import ports
from govern.gcp.clients import translated
from govern.gcp.rest import Rest, session
from govern.workitems import MAX_MESSAGES_PER_PUBLISH, Message

GOOGLE: Final = "https://pubsub.googleapis.com"


class PubSubAdapter:
    """ports.WorkQueue over the pubsub v1 REST API."""

    def __init__(self, rest: Rest, base_url: str) -> None:
        self._rest = rest
        self._base = base_url.rstrip("/")

    def publish(self, topic: str, messages: Sequence[Message]) -> list[str]:
        """One topics.publish request; the message ids.

        Raises:
            ValueError: more messages than one request may carry (a caller's bug).
            ports.PortError: the publish failed (after retries); none may be assumed published.
        """
        if not 0 < len(messages) <= MAX_MESSAGES_PER_PUBLISH:
            raise ValueError(f"{len(messages)} messages: a publish carries 1 to 1,000")
        body = {
            "messages": [
                {"data": base64.b64encode(m.data).decode(), "attributes": dict(m.attributes)}
                for m in messages
            ]
        }
        what = f"pubsub publish {topic} ({len(messages)} messages)"
        with translated(what, disabled_means_none=False):
            answer = self._rest.request("POST", f"{self._base}/v1/{topic}:publish", body=body)
        ids = answer.get("messageIds")
        if not isinstance(ids, list) or len(ids) != len(messages):
            raise ports.PortError(f"{what}: answered {ids!r}, not one message id per message")
        return [str(i) for i in ids]


def create(endpoint: str | None = None) -> PubSubAdapter:
    """Pub/Sub adapter: an authorized session, or a plain one for an endpoint override."""
    return PubSubAdapter(Rest(session(endpoint)), endpoint or GOOGLE)
