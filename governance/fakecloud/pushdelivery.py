# pyright: basic
"""Pub/Sub push delivery, faked with its documented semantics, into the real entry points.

Every message published to a subscribed topic of a FakePubSub is POSTed to an endpoint as
Pub/Sub's raw push body (`{"message": {"data", "attributes", "messageId", "publishTime"},
"subscription": ..., "deliveryAttempt": N}`; `deliveryAttempt` only when the subscription has a
dead-letter policy, as Pub/Sub does). The endpoints are the real entry points under
functions_framework (`app_endpoint`: create_app(...).test_client(), one client per worker
thread), so the framework's own push-to-CloudEvent conversion runs too.

What Pub/Sub does, and this does:

- at-least-once: with `Faults.duplicate_rate` a message is delivered twice; a share of those
  (`concurrent_share`) at the same moment as its twin, the others a little later;
- an answer other than 102/200/201/202/204 is a nack: the message is delivered again after an
  exponential backoff (the subscription's retryPolicy: `min_backoff` doubling to `max_backoff`);
  a message already acknowledged is not delivered again after a nack of its twin;
- `crash_rate`: the instance dies after the function ran, before answering (no answer: a nack;
  the work may be half done); `early_crash_rate`: it dies before the function runs;
- `timeout_rate`: the ack deadline passes while the function runs; the message is delivered
  again at once, while the first delivery still runs, and the first answer comes too late;
- dead-lettering: once a message has been delivered `max_delivery_attempts` times without an
  ack, it is published to the dead-letter topic with the attributes Pub/Sub adds
  (CloudPubSubDeadLetterSourceDeliveryCount, ...Subscription, ...SubscriptionProject,
  ...TopicPublishTime), where another subscription may push it on;
- W concurrent deliveries (`workers`): one function instance serving W requests at once.

Time: on a FakeClock (tests) backoffs move the clock when nothing else is due; on the real clock
(bench/) they are waited for, so give them small values there. Randomness is seeded.
"""

from __future__ import annotations

import contextvars
import heapq
import itertools
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from governance.fakecloud.pubsub import FakePubSub

ACK_STATUSES = frozenset({102, 200, 201, 202, 204})
Endpoint = Callable[[dict[str, Any]], int | None]


@dataclass(frozen=True)
class Faults:
    """How often Pub/Sub and the platform misbehave (each a probability per delivery)."""

    duplicate_rate: float = 0.0
    concurrent_share: float = 0.5
    crash_rate: float = 0.0
    early_crash_rate: float = 0.0
    timeout_rate: float = 0.0
    seed: int = 0


@dataclass
class Subscription:
    """A push subscription: where its messages go, its retry and dead-letter policies."""

    name: str
    topic: str
    endpoint: Endpoint
    dead_letter_topic: str | None = None
    max_delivery_attempts: int = 5
    min_backoff: float = 10.0
    max_backoff: float = 600.0


@dataclass
class Attempt:
    """One push of a message: what came back (None: no answer), and what it was."""

    subscription: str
    message_id: str
    attempt: int
    status: int | None
    kind: str  # "first", "redelivery", "duplicate", "concurrent duplicate", "deadline"
    crashed: str = ""  # "", "before", "after"
    started: float = 0.0
    ended: float = 0.0


@dataclass(order=True)
class _Due:
    at: float
    seq: int
    subscription: str = field(compare=False)
    message: dict[str, Any] = field(compare=False)
    kind: str = field(compare=False)


def app_endpoint(app: Any) -> Endpoint:
    """POST a push body to a functions_framework app (a test client per thread); its status."""
    local = threading.local()

    def post(body: dict[str, Any]) -> int | None:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = app.test_client()
        return int(client.post("/", json=body).status_code)

    return post


class PushDelivery:
    """Delivers what FakePubSub publishes to push subscriptions, until nothing is left."""

    def __init__(
        self,
        pubsub: FakePubSub,
        clock: Any,
        *,
        workers: int = 8,
        faults: Faults = Faults(),
    ) -> None:
        self.pubsub = pubsub
        self.clock = clock
        self.workers = workers
        self.faults = faults
        self.subscriptions: dict[str, Subscription] = {}
        self.attempts: list[Attempt] = []
        self.acked: set[tuple[str, str]] = set()  # (subscription, message id)
        self.dead_lettered: list[dict[str, Any]] = []
        self._counts: dict[tuple[str, str], int] = {}  # delivery attempts per message
        self._queue: list[_Due] = []
        self._seq = itertools.count()
        self._random = random.Random(faults.seed)  # noqa: S311 - reproducible faults
        self._cond = threading.Condition()
        self._running = 0

    # -- set up ----------------------------------------------------------------------------------
    def subscribe(self, subscription: Subscription) -> Subscription:
        """Push every message published to its topic from now on."""
        self.subscriptions[subscription.name] = subscription
        self.pubsub.add_topic(subscription.topic)
        self.pubsub.subscribe(
            subscription.topic, lambda message: self._published(subscription.name, message)
        )
        return subscription

    def _chance(self, rate: float) -> bool:
        with self._cond:
            return rate > 0 and self._random.random() < rate

    def _at(self, delay: float) -> float:
        return self.clock.now() + delay

    def _push(self, at: float, name: str, message: dict[str, Any], kind: str) -> None:
        with self._cond:
            heapq.heappush(self._queue, _Due(at, next(self._seq), name, message, kind))
            self._cond.notify_all()

    def _published(self, name: str, message: dict[str, Any]) -> None:
        now = self.clock.now()
        self._push(now, name, message, "first")
        if self._chance(self.faults.duplicate_rate):
            if self._chance(self.faults.concurrent_share):
                self._push(now, name, message, "concurrent duplicate")
            else:
                with self._cond:
                    later = self._random.uniform(1.0, 30.0)
                self._push(now + later, name, message, "duplicate")

    # -- delivering ------------------------------------------------------------------------------
    def _body(self, sub: Subscription, message: dict[str, Any], attempt: int) -> dict[str, Any]:
        body: dict[str, Any] = {"message": dict(message), "subscription": sub.name}
        body["message"].setdefault("data", "")
        if sub.dead_letter_topic is not None:
            body["deliveryAttempt"] = attempt
        return body

    def _backoff(self, sub: Subscription, attempt: int) -> float:
        return min(sub.max_backoff, sub.min_backoff * 2 ** max(0, attempt - 1))

    def _deliver(self, due: _Due) -> None:
        sub = self.subscriptions[due.subscription]
        mid = due.message["messageId"]
        key = (sub.name, mid)
        with self._cond:
            if due.kind == "redelivery" and key in self.acked:
                return  # acknowledged meanwhile (by a twin): Pub/Sub does not bring it back
            attempt = self._counts[key] = self._counts.get(key, 0) + 1
        record = Attempt(sub.name, mid, attempt, None, due.kind, started=self.clock.now())
        if self._chance(self.faults.timeout_rate):
            # The ack deadline passes while this runs: Pub/Sub delivers it again now.
            self._push(self.clock.now(), sub.name, due.message, "deadline")
            late = True
        else:
            late = False
        if self._chance(self.faults.early_crash_rate):
            record.crashed = "before"
        else:
            try:
                record.status = sub.endpoint(self._body(sub, due.message, attempt))
            except Exception:  # the endpoint blew up: the platform answers 500
                record.status = 500
            if self._chance(self.faults.crash_rate):
                record.crashed, record.status = "after", None
        record.ended = self.clock.now()
        with self._cond:
            self.attempts.append(record)
        acked = record.status in ACK_STATUSES and not late
        if acked:
            with self._cond:
                self.acked.add(key)
            return
        with self._cond:
            if key in self.acked:
                return  # a stale delivery of a message its twin acknowledged
        if sub.dead_letter_topic is not None and attempt >= sub.max_delivery_attempts:
            self._dead_letter(sub, due.message, attempt)
            return
        if not late:
            self._push(self._at(self._backoff(sub, attempt)), sub.name, due.message, "redelivery")

    def _dead_letter(self, sub: Subscription, message: dict[str, Any], attempt: int) -> None:
        key = (sub.name, message["messageId"])
        with self._cond:
            if key in self.acked:
                return
            self.acked.add(key)  # the source subscription is done with it
            self.dead_lettered.append(message)
        assert sub.dead_letter_topic is not None
        attributes = {
            **message.get("attributes", {}),
            "CloudPubSubDeadLetterSourceDeliveryCount": str(attempt),
            "CloudPubSubDeadLetterSourceSubscription": sub.name.rsplit("/", 1)[-1],
            "CloudPubSubDeadLetterSourceSubscriptionProject": sub.name.split("/")[1],
            "CloudPubSubDeadLetterSourceTopicPublishTime": message.get("publishTime", ""),
        }
        import base64

        self.pubsub.publish_local(
            sub.dead_letter_topic, base64.b64decode(message.get("data", "")), attributes
        )

    # -- the loop --------------------------------------------------------------------------------
    def run(self, *, max_seconds: float = 7200.0) -> None:
        """Deliver until nothing is due or running; time jumps over idle gaps on a fake clock.

        `max_seconds`: of the clock's time, a guard against a message redelivered forever.
        """
        deadline = self.clock.now() + max_seconds
        futures: list[Future[None]] = []
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="push") as pool:
            while True:
                with self._cond:
                    now = self.clock.now()
                    ready: list[_Due] = []
                    while self._queue and self._queue[0].at <= now:
                        ready.append(heapq.heappop(self._queue))
                    self._running += len(ready)
                    idle = not ready and self._running == 0
                    if idle and not self._queue:
                        break
                    if now > deadline:
                        raise TimeoutError(f"still delivering after {max_seconds} s of clock time")
                    next_at = self._queue[0].at if self._queue else None
                for due in ready:
                    context = contextvars.copy_context()
                    futures.append(pool.submit(context.run, self._run_one, due))
                if ready:
                    continue
                if idle and next_at is not None:
                    self._idle_until(next_at)
                    continue
                with self._cond:
                    self._cond.wait(timeout=0.01)
        for f in futures:
            f.result()  # surface a harness bug

    def _run_one(self, due: _Due) -> None:
        try:
            self._deliver(due)
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def _idle_until(self, at: float) -> None:
        gap = at - self.clock.now()
        if gap <= 0:
            return
        if hasattr(self.clock, "advance"):
            self.clock.advance(gap)
        else:
            time.sleep(min(gap, 0.05))

    # -- what happened ---------------------------------------------------------------------------
    def of(self, subscription: str) -> list[Attempt]:
        """The attempts of one subscription, in the order they ended."""
        return [a for a in self.attempts if a.subscription == subscription]
