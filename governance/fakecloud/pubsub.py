# pyright: basic
"""Fake Pub/Sub v1: `topics.publish`, recording each message and handing it to subscribers.

`POST /v1/projects/P/topics/T:publish` with a PublishRequest `{"messages": [PubsubMessage]}`
(pubsub v1 discovery document) answers a PublishResponse `{"messageIds": [...]}`, one id per
message in order. Like the real service it refuses, with the real error texts:

- an unknown topic: 404 NOT_FOUND "Resource not found (resource=T).";
- no message: 400 "The value for message_count is too small. You passed 0 in the request, but
  the minimum value is 1."; more than 1,000: 400 "The value for message_count is too large. You
  passed N in the request, but the maximum value is 1000.";
- a request body over 10 MB: 400 "Request payload size exceeds the limit: 10485760 bytes.";
- a message with neither data nor attributes: 400 (each needs one or the other);
- `data` that is not base64: 400.

A published message is kept as Pub/Sub hands it to a subscriber (`data` base64, `attributes`,
`messageId`, `publishTime`), in `messages[topic]`, and passed to every callback subscribed to
the topic (governance/fakecloud/pushdelivery.py delivers them to the functions).
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

MAX_MESSAGES = 1000
MAX_REQUEST_BYTES = 10 * 1024 * 1024
Subscriber = Callable[[dict[str, Any]], None]


class WallClock:
    """The wall-clock part of a clock (the fake clock's, or the system's)."""

    def wall(self) -> datetime:
        return datetime.now(UTC)


def _bad(message: str) -> Reply:
    return Reply(400, error_body(400, message))


class FakePubSub:
    """Topics by full name (`projects/P/topics/T`), the messages published to each."""

    def __init__(self, clock: Any = None) -> None:
        self.clock = clock or WallClock()
        self.messages: dict[str, list[dict[str, Any]]] = {}
        self.subscribers: dict[str, list[Subscriber]] = {}
        self._ids = itertools.count(4_000_000_000_001)
        self._lock = threading.Lock()

    def add_topic(self, topic: str) -> str:
        self.messages.setdefault(topic, [])
        return topic

    def subscribe(self, topic: str, callback: Subscriber) -> None:
        """Hand every message published to `topic` from now on to `callback`."""
        self.subscribers.setdefault(topic, []).append(callback)

    def publish_local(self, topic: str, data: bytes, attributes: dict[str, str]) -> dict[str, Any]:
        """Publish without HTTP (what the service does for a dead-letter topic)."""
        with self._lock:
            message = self._record(topic, base64.b64encode(data).decode(), attributes)
        for callback in self.subscribers.get(topic, []):
            callback(message)
        return message

    def data(self, topic: str) -> list[bytes]:
        """The decoded data of every message published to `topic`, in order."""
        return [base64.b64decode(m["data"]) for m in self.messages.get(topic, [])]

    def install(self, fake: FakeGcp) -> FakePubSub:
        fake.route("POST", r"/v1/(projects/[^/]+/topics/[^/:]+):publish", self._publish)
        return self

    def _record(self, topic: str, data: str, attributes: dict[str, str]) -> dict[str, Any]:
        stamp = self.clock.wall().isoformat(timespec="milliseconds").replace("+00:00", "Z")
        message: dict[str, Any] = {"messageId": str(next(self._ids)), "publishTime": stamp}
        if data:
            message["data"] = data
        if attributes:
            message["attributes"] = dict(attributes)
        self.messages[topic].append(message)
        return message

    def _publish(self, request: Request, m: re.Match[str]) -> Reply:
        topic = m[1]
        if topic not in self.messages:
            return Reply(
                404, error_body(404, f"Resource not found (resource={topic.rsplit('/')[-1]}).")
            )
        size = int(request.headers.get("content-length") or 0)
        if size > MAX_REQUEST_BYTES:
            return _bad(f"Request payload size exceeds the limit: {MAX_REQUEST_BYTES} bytes.")
        body = request.body if isinstance(request.body, dict) else {}
        raw = body.get("messages")
        messages: list[Any] = raw if isinstance(raw, list) else []
        if not messages:
            return _bad(
                "The value for message_count is too small. You passed 0 in the request, but "
                "the minimum value is 1."
            )
        if len(messages) > MAX_MESSAGES:
            return _bad(
                f"The value for message_count is too large. You passed {len(messages)} in the "
                f"request, but the maximum value is {MAX_MESSAGES}."
            )
        checked: list[tuple[str, dict[str, str]]] = []
        for i, msg in enumerate(messages):
            if not isinstance(msg, dict):
                return _bad(f"Invalid value at 'messages[{i}]'")
            data = msg.get("data") or ""
            attributes = msg.get("attributes") or {}
            try:
                base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError, TypeError):
                return _bad(
                    f"Invalid value at 'messages[{i}].data' (TYPE_BYTES), Base64 decoding failed"
                )
            if not isinstance(attributes, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in attributes.items()
            ):
                return _bad(f"Invalid value at 'messages[{i}].attributes'")
            if not data and not attributes:
                return _bad(
                    "One or more messages in the publish request is empty. Each message must "
                    "contain either non-empty data, or at least one attribute."
                )
            checked.append((data, attributes))
        with self._lock:
            published = [self._record(topic, data, attrs) for data, attrs in checked]
        for message in published:
            for callback in self.subscribers.get(topic, []):
                callback(message)
        return Reply(200, {"messageIds": [p["messageId"] for p in published]})
