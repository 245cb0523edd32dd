"""The discrete-event model of one organization-wide run, driven by a measured call profile.

What is simulated (simpy), on one clock starting when the alert (or the schedule) fires:

- the dispatcher: a cold start, then Asset Inventory `searchAllResources` pages of 500 projects
  read one after the other (each page needs the previous page's token), then Pub/Sub publishes
  of at most 1,000 messages, `publish_concurrency` at a time; it answers once the last publish
  returned. A message can be delivered from its publish's answer on;
- Pub/Sub push to the worker: at most `push window` deliveries outstanding; the window starts
  small, grows by one per success and halves on a failure (slow start: see Scenario);
  a failed delivery (non-2xx, crash, no capacity) is redelivered after the subscription's
  exponential backoff (10 s doubling to 600 s), and dead-lettered after `max_delivery_attempts`;
  `duplicate_rate` of the messages are delivered twice (at least once);
- the worker (Cloud Run functions): up to `max_instances` instances, each running up to
  `concurrency` deliveries; a new instance costs `cold_start_s`; a delivery that finds every
  slot busy and no instance left to start is refused (HTTP 429). Each instance has one vCPU:
  every call costs the profile's measured CPU seconds per call, served first come first served;
- one delivery: the project's measured dependency graph (profile.py). A call starts when the
  calls it depends on have answered, plus the measured gap, then waits for the instance's CPU,
  a token of the per-project rate limiter (functions/govern/execute.py: 10/s, a 2 s burst) and,
  for an organization-level API, the instance's pacing (50% of the quota / max instances); its
  latency is lognormal (median 200 ms, p99 2 s). A poll waits for the operation of the write it
  confirms (operations.py) the way the functions do, capped per API and by the deadline (the
  time budget plus 30 s of grace). Nothing starts after the time budget (480 s of the 540 s
  timeout); a delivery with a call left, failed or unconfirmed answers non-2xx. A crashing
  delivery (`crash_rate`) dies before a uniformly drawn call;
- redeliveries and duplicates are idempotent: every read is made again, a write already made
  (by any delivery of that item) is not, and an operation is waited for only while it runs.

Results: when the dispatcher answered, when the last stop was requested and confirmed, the peak
share of each organization-level quota (calls in the busiest minute / quota), the busiest
project's share of its per-project quotas, waits per limit, and what made the slowest stop
slow (the critical path of the item that requested it).
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

import simpy

from bench.orgsim import apis, operations
from bench.orgsim.latency import Lognormal
from bench.orgsim.profile import JobProfile, KindProfile, TraceCall
from bench.orgsim.quotas import Bucket, SlidingWindow, Window, peak_in


@dataclass(frozen=True)
class Scenario:
    """One simulated run: the organization, the worker's sizing, and the cloud's behaviour."""

    projects: int
    accelerated_share: float = 0.1
    max_instances: int = 100
    concurrency: int = 10
    seed: int = 1
    latency_median_s: float = 0.2
    latency_p99_s: float = 2.0
    op_mode: operations.Mode = "typical"
    # functions/govern/pacing.py: organization-level calls paced per instance to this share of the
    # quota divided by the max instances. None: not paced (the code before fan-out).
    org_share: float | None = 0.5
    rate_per_project: float = 10.0  # functions/govern/models.py default
    burst_seconds: float = 2.0  # functions/govern/execute.py BURST_SECONDS
    time_budget_s: float = 480.0  # 540 s event-function timeout - 60 s
    grace_s: float = 30.0  # functions/govern/execute.py CONTINUATION_GRACE_SECONDS
    function_timeout_s: float = 540.0
    # functions/govern/models.py: fan_out.max_delivery_attempts default
    max_delivery_attempts: int = 5
    retry_min_s: float = 10.0  # governance/components/fan_out.py: retryPolicy 10s..600s
    retry_max_s: float = 600.0
    duplicate_rate: float = 0.01
    crash_rate: float = 0.01
    cold_start_s: float = 1.2
    # Cloud Run holds a request that finds every instance busy (and none left to start) in a
    # pending queue for a short while before refusing it with 429: an assumption, 10 s.
    pending_s: float = 10.0
    # Pub/Sub push: "Pub/Sub dynamically adjusts the rate of push requests based on the rate at
    # which it receives success responses" (https://cloud.google.com/pubsub/docs/push). Earlier
    # revisions of that page described a slow start: a window of outstanding pushes starting at
    # a single-digit size, growing on success, shrinking on failure. Modelled so; None = no
    # window (every published message is pushed at once).
    push_window_initial: int | None = 3
    publish_concurrency: int = 10
    resolve_scope: bool = True
    """The dispatcher resolves the projects through Asset Inventory (a folder scope)."""
    cpu_s_per_call: float | None = None
    """None: the profile's measured CPU per call."""
    single_invocation: bool = False
    """The baseline: every project in ONE invocation of one instance, its threads shared."""
    threads: int = 64  # max_concurrency the functions use in one invocation
    horizon_s: float = 6 * 3600.0


@dataclass
class Item:
    """One work item (one project) and what the cloud holds for it across deliveries."""

    index: int
    kind: str
    profile: KindProfile
    published_at: float = math.inf
    issued: dict[int, float] = field(default_factory=dict[int, float])
    op_done_at: dict[int, float] = field(default_factory=dict[int, float])
    confirmed: dict[int, float] = field(default_factory=dict[int, float])
    deliveries: int = 0
    attempts: int = 0
    done_at: float | None = None
    dead_lettered: bool = False
    first_delivery_at: float | None = None
    started_at: float | None = None
    """When a delivery of it first got a worker slot (not refused)."""


@dataclass
class Instance:
    """One worker instance: its slots, its vCPU and its pacing of organization-level calls."""

    ready_at: float
    active: int = 0
    cpu_free_at: float = 0.0
    pacers: dict[str, SlidingWindow] = field(default_factory=dict[str, SlidingWindow])
    cpu_busy: float = 0.0


@dataclass
class Results:
    """What one simulated run found."""

    scenario: Scenario
    job: str
    dispatcher_answer_s: float = 0.0
    stops: int = 0
    stops_issued: int = 0
    last_stop_issued_s: float | None = None
    confirmable_stops: int = 0
    stops_confirmed: int = 0
    last_stop_confirmed_s: float | None = None
    last_operation_done_s: float | None = None
    last_issued_by_method: dict[str, float] = field(default_factory=dict[str, float])
    last_confirmed_by_method: dict[str, float] = field(default_factory=dict[str, float])
    items_done: int = 0
    items_dead_lettered: int = 0
    last_item_done_s: float | None = None
    last_item_started_s: float | None = None
    deliveries: int = 0
    refused_429: int = 0
    crashes: int = 0
    duplicates: int = 0
    instances: int = 0
    calls: int = 0
    calls_by_service: dict[str, int] = field(default_factory=dict[str, int])
    org_peak_per_minute: dict[str, int] = field(default_factory=dict[str, int])
    org_peak_share: dict[str, float] = field(default_factory=dict[str, float])
    project_peak_share: dict[str, float] = field(default_factory=dict[str, float])
    gke_max_concurrent_ops_per_cluster: int = 0
    waits_s: dict[str, float] = field(default_factory=dict[str, float])
    slowest_stop_path: dict[str, float] = field(default_factory=dict[str, float])
    max_instance_cpu_share: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (scenario fields flattened under `scenario`)."""
        out = dict(self.__dict__)
        out["scenario"] = dict(self.scenario.__dict__)
        return out


class Model:
    """One simulated run of `job` (a JobProfile) under `scenario`."""

    def __init__(self, job: JobProfile, scenario: Scenario) -> None:
        self.job, self.s = job, scenario
        self.env = simpy.Environment()
        self.rng = random.Random(scenario.seed)
        self.latency = Lognormal.from_median_p99(scenario.latency_median_s, scenario.latency_p99_s)
        self.cpu_per_call = (
            job.cpu_s_per_call if scenario.cpu_s_per_call is None else scenario.cpu_s_per_call
        )
        self.results = Results(scenario, job.job)
        self.instances: list[Instance] = []
        self.org = {s: Window() for s in apis.ORGANIZATION_SERVICES}
        self.waits: defaultdict[str, float] = defaultdict(float)
        self.items = self._items()
        self.ready: deque[Item] = deque()
        self.delayed: list[tuple[float, int, Item]] = []
        self.outstanding = 0
        self.window = float(scenario.push_window_initial or math.inf)
        self.wake = self.env.event()
        self.open = len(self.items)
        self.finished = self.env.event()
        # The baseline's thread pool: when each of its threads is free again.
        self.threads: list[float] = [0.0] * scenario.threads
        self.gke_ops_max = 0
        self.waiters: deque[simpy.Event] = deque()
        self.calls: Counter[str] = Counter()
        self.project_peak: dict[str, float] = {}
        self.slowest: tuple[float, Item | None, int, dict[int, dict[str, float]]] = (
            -1.0,
            None,
            -1,
            {},
        )
        self._graphs: dict[int, list[list[int]]] = {}

    # -- the organization ---------------------------------------------------------------------
    def _items(self) -> list[Item]:
        kinds = self.job.kinds
        n_accel = round(self.s.projects * self.s.accelerated_share)
        labels = ["accelerated"] * n_accel + ["plain"] * (self.s.projects - n_accel)
        self.rng.shuffle(labels)
        return [Item(i, k, kinds[k]) for i, k in enumerate(labels)]

    # -- calls --------------------------------------------------------------------------------
    def _pacer(self, inst: Instance, call: TraceCall) -> SlidingWindow | None:
        quota_name = apis.org_quota(call.service, call.call_class)
        if self.s.org_share is None or quota_name is None:
            return None
        if quota_name not in inst.pacers:
            # functions/govern/pacing.py: floor(share x quota / max instances) starts in any
            # 60 s, so every instance together never passes the share.
            quota = apis.QUOTAS[quota_name]
            instances = 1 if self.s.single_invocation else self.s.max_instances
            allowed = math.floor(self.s.org_share * quota.limit / instances)
            inst.pacers[quota_name] = SlidingWindow(allowed, quota.per or 60.0)
        return inst.pacers[quota_name]

    def _start_time(
        self,
        limiter: Bucket,
        inst: Instance,
        call: TraceCall,
        t: float,
        waits: dict[str, float],
        deadline: float,
    ) -> float | None:
        """When `call`, ready at `t`, is sent: after a thread, CPU, limiter and pacing.

        None when the limiter or the pacing would hold it past `deadline`: it is left, and
        books no token (the functions' RateLimiter.acquire gives up the same way).
        """
        if self.s.single_invocation:
            free = heapq.heappop(self.threads)
            waits["threads"] = max(0.0, free - t)
            t = max(t, free)
        cpu_start = max(t, inst.cpu_free_at)
        inst.cpu_free_at = cpu_start + self.cpu_per_call
        inst.cpu_busy += self.cpu_per_call
        waits["cpu"] = cpu_start - t
        t = cpu_start + self.cpu_per_call
        pacer = self._pacer(inst, call)
        after_limiter = limiter.available(t) if call.token else t
        sent = pacer.available(after_limiter) if pacer is not None else after_limiter
        if sent > deadline:
            if self.s.single_invocation:
                heapq.heappush(self.threads, t)
            return None
        if call.token:
            limiter.reserve(t)
            waits["rate limiter"] = after_limiter - t
        if pacer is not None:
            pacer.reserve(after_limiter)
            waits["org pacing"] = sent - after_limiter
        return sent

    def _meter(self, times: dict[str, list[float]], call: TraceCall, t: float) -> None:
        service = call.service
        self.calls[service] += 1
        quota_name = apis.org_quota(service, call.call_class)
        if quota_name is not None:
            self.org[quota_name].add(t)
        elif service in ("compute", "container"):
            times.setdefault(service, []).append(t)

    def _poll(
        self, item: Item, call: TraceCall, t: float, deadline: float, times: dict[str, list[float]]
    ) -> tuple[float, bool]:
        """The wait for an operation from `t`: (when it ends, confirmed?), polls metered."""
        write = call.confirms
        op_end = item.op_done_at.get(write, t) if write is not None else t
        give_up = min(t + operations.WAIT_CAPS.get(call.service, 300.0), deadline)
        pause = 0.0
        while True:
            self._meter(times, call, t)
            answered = t + self.latency.draw(self.rng)
            if t >= op_end:
                return answered, True
            pause = operations.next_pause(pause)
            if answered + pause > give_up:
                return answered, False
            t = answered + pause

    # -- one delivery -------------------------------------------------------------------------
    def _dependants(self, profile: KindProfile) -> list[list[int]]:
        key = id(profile)
        if key not in self._graphs:
            graph: list[list[int]] = [[] for _ in profile.trace]
            for i, c in enumerate(profile.trace):
                for d in c.after:
                    graph[d].append(i)
            self._graphs[key] = graph
        return self._graphs[key]

    def deliver(self, item: Item, inst: Instance) -> Generator[Any, Any, bool]:
        """Run the item's graph once (a Runner of its own: its own rate limiter); True: 2xx."""
        env, trace = self.env, item.profile.trace
        start = env.now
        deadline = start + self.s.time_budget_s
        hard_stop = start + self.s.function_timeout_s
        done = env.event()
        waiting = [len(c.after) for c in trace]
        dependants = self._dependants(item.profile)
        limiter = Bucket(self.s.rate_per_project, self.s.rate_per_project * self.s.burst_seconds)
        times: dict[str, list[float]] = {}
        path: dict[int, dict[str, float]] = {}
        ended: dict[int, float] = {}
        ops: dict[str, list[tuple[float, float]]] = {}
        state = {"left": len(trace), "ok": True, "sent": 0, "dead": False}
        crash_at = (
            self.rng.randrange(max(1, len(trace)))
            if self.rng.random() < self.s.crash_rate
            else None
        )
        if crash_at is not None:
            self.results.crashes += 1

        def finish(i: int, ok: bool, at: float) -> None:
            if state["dead"]:
                return
            ended[i] = at
            if not ok:
                state["ok"] = False
            state["left"] -= 1
            for j in dependants[i]:
                waiting[j] -= 1
                if waiting[j] == 0:
                    if state["ok"]:
                        ready(j)
                    else:
                        skip(j)
            if state["left"] == 0 and not done.triggered:
                done.succeed(state["ok"])

        def skip(j: int) -> None:
            finish(j, False, env.now)

        def die() -> None:
            state["dead"] = True
            if not done.triggered:
                done.succeed(False)

        def ready(i: int) -> None:
            call = trace[i]
            t = max((ended[d] for d in call.after), default=start) + call.gap_s
            if state["dead"]:
                return
            if crash_at is not None and state["sent"] >= crash_at:
                die()
                return
            waits: dict[str, float] = {}
            if call.call_class == "write" and i in item.issued:
                at(t, lambda: finish(i, True, t))  # idempotent: made by an earlier delivery
                return
            if call.call_class == "poll" and call.confirms is not None:
                op_end = item.op_done_at.get(call.confirms)
                if op_end is not None and op_end <= t and i in item.confirmed:
                    at(t, lambda: finish(i, True, t))
                    return
            if t >= deadline and call.call_class != "poll":
                at(t, lambda: finish(i, False, t))  # left for the next delivery
                return
            state["sent"] += 1
            limit = deadline + self.s.grace_s if call.call_class == "poll" else deadline
            sent = self._start_time(limiter, inst, call, t, waits, limit)
            if sent is None:
                at(t, lambda: finish(i, False, t))  # no token before the deadline: left
                return
            if call.call_class == "poll":
                end, ok = self._poll(item, call, sent, deadline + self.s.grace_s, times)
                if ok:
                    item.confirmed.setdefault(i, end)
                    if call.confirms is not None:
                        item.confirmed.setdefault(call.confirms, end)
            else:
                self._meter(times, call, sent)
                end, ok = sent + self.latency.draw(self.rng), True
                if call.call_class == "write":
                    item.issued.setdefault(i, sent)
                    item.op_done_at.setdefault(
                        i, end + operations.duration(call.method).draw(self.rng, self.s.op_mode)
                    )
                    if call.cluster:
                        ops.setdefault(call.cluster, []).append((end, item.op_done_at[i]))
            if self.s.single_invocation:
                heapq.heappush(self.threads, end)  # the thread is free once the call answered
            for k, v in waits.items():
                self.waits[k] += v
            path[i] = {**waits, "latency": end - sent, "ready": t, "end": end}
            at(end, lambda: finish(i, ok, end))

        def at(t: float, fn: Callable[[], None]) -> None:
            ev = env.timeout(max(0.0, t - env.now))
            ev.callbacks.append(lambda _ev: fn())

        for i, c in enumerate(trace):
            if not c.after:
                ready(i)
        if not trace:
            done.succeed(True)
        timeout = env.timeout(hard_stop - env.now)
        outcome = yield done | timeout
        self._account(item, times, path, ops)
        if done not in outcome:
            state["dead"] = True
            return False
        return bool(done.value)

    def _account(
        self,
        item: Item,
        times: dict[str, list[float]],
        path: dict[int, dict[str, float]],
        ops: dict[str, list[tuple[float, float]]],
    ) -> None:
        """A delivery's per-project quota peaks, GKE concurrency, and the slowest stop's path."""
        for service, ts in times.items():
            quota = apis.QUOTAS[service]
            share = peak_in(ts, quota.per or 60.0) / quota.limit
            self.project_peak[service] = max(self.project_peak.get(service, 0.0), share)
        for intervals in ops.values():
            self.gke_ops_max = max(self.gke_ops_max, _max_overlap(intervals))
        trace = item.profile.trace
        for i in path:
            if trace[i].role == "stop" and item.issued.get(i, -1.0) > self.slowest[0]:
                self.slowest = (item.issued[i], item, i, path)

    # -- the worker service -------------------------------------------------------------------
    def _slot(self) -> Instance | None:
        for inst in self.instances:
            if inst.active < self.s.concurrency:
                inst.active += 1
                return inst
        if len(self.instances) < self.s.max_instances:
            inst = Instance(ready_at=self.env.now + self.s.cold_start_s, active=1)
            self.instances.append(inst)
            return inst
        return None

    def delivery(self, item: Item, duplicate: bool) -> Generator[Any, Any, None]:
        """One push of `item`: a slot (or 429), the run, then ack or nack."""
        env = self.env
        self.outstanding += 1
        self.results.deliveries += 1
        item.deliveries += 1
        if not duplicate:
            item.attempts += 1
        if item.first_delivery_at is None:
            item.first_delivery_at = env.now
        inst = self._slot()
        ok = False
        if inst is None:
            handed = env.event()
            self.waiters.append(handed)
            got = yield handed | env.timeout(self.s.pending_s)
            if handed in got:
                inst = handed.value
            elif not handed.triggered:
                handed.succeed(None)  # gave up waiting: _release passes it by
        if inst is None:
            self.results.refused_429 += 1
        else:
            if item.started_at is None:
                item.started_at = env.now
            if inst.ready_at > env.now:
                yield env.timeout(inst.ready_at - env.now)
            ok = yield from self.deliver(item, inst)
            self._release(inst)
        self.outstanding -= 1
        if ok:
            if item.done_at is None and not item.dead_lettered:
                item.done_at = env.now
                self._settled()
            self.window = self.window + 1 if self.s.push_window_initial else self.window
        else:
            if self.s.push_window_initial:
                self.window = max(1.0, self.window / 2)
            if not duplicate and item.done_at is None:
                if item.attempts >= self.s.max_delivery_attempts:
                    item.dead_lettered = True
                    self._settled()
                else:
                    backoff = min(self.s.retry_max_s, self.s.retry_min_s * 2 ** (item.attempts - 1))
                    self._later(env.now + backoff, item)
        self._poke()

    def _release(self, inst: Instance) -> None:
        """A slot is free: hand it to the oldest request Cloud Run is holding, if any."""
        while self.waiters:
            handed = self.waiters.popleft()
            if not handed.triggered:
                handed.succeed(inst)  # the slot goes straight to the held request
                return
        inst.active -= 1

    def _settled(self) -> None:
        self.open -= 1
        if self.open == 0 and not self.finished.triggered:
            self.finished.succeed()

    def _later(self, t: float, item: Item) -> None:
        heapq.heappush(self.delayed, (t, item.index, item))
        self._poke()

    def _poke(self) -> None:
        if not self.wake.triggered:
            self.wake.succeed()

    def pusher(self) -> Generator[Any, Any, None]:
        """Pub/Sub's push loop: deliver what is available while the window allows."""
        env = self.env
        queue: deque[Item] = deque()
        while not self.finished.triggered:
            while self.delayed and self.delayed[0][0] <= env.now:
                queue.append(heapq.heappop(self.delayed)[2])
            while self.ready:
                queue.append(self.ready.popleft())
            while queue and self.outstanding < self.window:
                item = queue.popleft()
                env.process(self.delivery(item, duplicate=False))
                if self.rng.random() < self.s.duplicate_rate:
                    self.results.duplicates += 1
                    env.process(self.delivery(item, duplicate=True))
            self.wake = env.event()
            waits: list[Any] = [self.wake]
            if self.delayed:
                waits.append(env.timeout(max(0.0, self.delayed[0][0] - env.now)))
            yield env.any_of(waits)

    # -- the dispatcher -----------------------------------------------------------------------
    def call(self, service: str, pacer: Bucket | None) -> Generator[Any, Any, None]:
        """One dispatcher call: its pacing (organization-level APIs), then its latency."""
        t = self.env.now
        if pacer is not None:
            t = pacer.reserve(t)
        if service in self.org:
            self.org[service].add(t)
        self.results.calls_by_service[service] = self.results.calls_by_service.get(service, 0) + 1
        yield self.env.timeout(t - self.env.now + self.latency.draw(self.rng))

    def dispatcher(self) -> Generator[Any, Any, None]:
        """Cold start, scope pages, then publishes; publishes release items to Pub/Sub."""
        env, s = self.env, self.s
        yield env.timeout(s.cold_start_s)
        if s.resolve_scope:
            quota = apis.QUOTAS["cloudasset"]
            share = s.org_share if s.org_share is not None else 1.0
            pacer = Bucket(share * quota.limit / 60.0, 1.0)
            for _ in range(math.ceil(s.projects / apis.ASSET_PAGE)):
                yield from self.call("cloudasset", pacer)
        batches = [
            self.items[i : i + apis.PUBLISH_BATCH]
            for i in range(0, len(self.items), apis.PUBLISH_BATCH)
        ]
        slots = simpy.Resource(env, capacity=s.publish_concurrency)

        def publish(batch: Sequence[Item]) -> Generator[Any, Any, None]:
            with slots.request() as req:
                yield req
                yield from self.call("pubsub", None)
            for item in batch:
                item.published_at = env.now
                self.ready.append(item)
            self._poke()

        yield env.all_of([env.process(publish(b)) for b in batches])
        self.results.dispatcher_answer_s = env.now

    # -- the baseline: one invocation -----------------------------------------------------------
    def single(self) -> Generator[Any, Any, None]:
        """Every project in one invocation of one instance (threads shared), no fan-out."""
        env = self.env
        yield env.timeout(self.s.cold_start_s)
        inst = Instance(ready_at=env.now)
        self.instances.append(inst)
        runs = []
        for item in self.items:
            item.published_at = item.first_delivery_at = item.started_at = env.now
            item.deliveries = item.attempts = 1
            runs.append(env.process(self.deliver(item, inst)))
        outcomes = yield env.all_of(runs)
        for item, run in zip(self.items, runs, strict=True):
            if outcomes[run]:
                item.done_at = env.now
        self.results.dispatcher_answer_s = env.now
        self.results.deliveries = 1
        if not self.finished.triggered:
            self.finished.succeed()

    # -- running ------------------------------------------------------------------------------
    def run(self) -> Results:
        """Simulate until every item is done or dead-lettered (or the horizon)."""
        env = self.env
        if self.s.single_invocation:
            env.process(self.single())
        else:
            env.process(self.dispatcher())
            env.process(self.pusher())
        env.run(until=env.any_of([self.finished, env.timeout(self.s.horizon_s)]))
        return self._results()

    def _results(self) -> Results:
        r, s = self.results, self.s
        stop_issue: list[float] = []
        confirm: list[float] = []
        op_done: list[float] = []
        for item in self.items:
            trace = item.profile.trace
            confirmers = {c.confirms for c in trace if c.call_class == "poll"}
            for i, c in enumerate(trace):
                if c.role != "stop":
                    continue
                r.stops += 1
                if i in item.issued:
                    stop_issue.append(item.issued[i])
                    by = r.last_issued_by_method
                    by[c.method] = round(max(by.get(c.method, 0.0), item.issued[i]), 2)
                if i in confirmers:
                    r.confirmable_stops += 1
                    if i in item.confirmed:
                        confirm.append(item.confirmed[i])
                        by = r.last_confirmed_by_method
                        by[c.method] = round(max(by.get(c.method, 0.0), item.confirmed[i]), 2)
                    if i in item.op_done_at:
                        op_done.append(item.op_done_at[i])
            if item.done_at is not None:
                r.items_done += 1
            r.items_dead_lettered += item.dead_lettered
        r.stops_issued = len(stop_issue)
        r.last_stop_issued_s = max(stop_issue) if stop_issue else None
        r.stops_confirmed = len(confirm)
        r.last_stop_confirmed_s = max(confirm) if confirm else None
        r.last_operation_done_s = max(op_done) if op_done else None
        done = [i.done_at for i in self.items if i.done_at is not None]
        r.last_item_done_s = max(done) if done else None
        started = [i.started_at for i in self.items if i.started_at is not None]
        r.last_item_started_s = max(started) if len(started) == len(self.items) else None
        for service, n in self.calls.items():
            r.calls_by_service[service] = r.calls_by_service.get(service, 0) + n
        r.project_peak_share = {k: round(v, 4) for k, v in self.project_peak.items()}
        r.calls = sum(r.calls_by_service.values())
        r.instances = len(self.instances)
        for service, window in self.org.items():
            quota = apis.QUOTAS[service]
            peak = window.peak()
            r.org_peak_per_minute[service] = peak
            r.org_peak_share[service] = round(peak / quota.limit, 4)
        r.gke_max_concurrent_ops_per_cluster = self.gke_ops_max
        r.waits_s = {k: round(v, 2) for k, v in self.waits.items()}
        horizon = max(self.env.now, 1e-9)
        r.max_instance_cpu_share = round(
            max((i.cpu_busy for i in self.instances), default=0.0) / horizon, 3
        )
        _, item, stop, path = self.slowest
        if item is not None:
            r.slowest_stop_path = _critical_path(item, stop, path)
        del s
        return r


def _max_overlap(intervals: list[tuple[float, float]]) -> int:
    events = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals])
    best = level = 0
    for _, step in events:
        level += step
        best = max(best, level)
    return best


def _critical_path(item: Item, stop: int, path: dict[int, dict[str, float]]) -> dict[str, Any]:
    """Where the time before `stop` was requested went, along its delivery's critical path.

    Sums, over the chain of calls that each answered last before the next could start: the
    waits for each limit, the latencies of the calls before the stop, and the operations they
    waited for (a poll's latency includes its wait).
    """
    trace = item.profile.trace
    total: defaultdict[str, float] = defaultdict(float)
    node: int | None = stop
    calls = 0
    while node is not None:
        rec = path.get(node, {})
        for k, v in rec.items():
            if k not in ("ready", "end", "latency"):
                total[k] += v
        if node != stop:
            total["latency and operations"] += rec.get("latency", 0.0)
            calls += 1
        parents = [d for d in trace[node].after if d in path]
        node = max(parents, key=lambda d: path[d]["end"]) if parents else None
    out: dict[str, Any] = {k: round(v, 3) for k, v in total.items()}
    out["calls before it"] = calls
    out["published_at"] = round(item.published_at, 3)
    out["first_delivery_at"] = round(item.first_delivery_at or 0.0, 3)
    out["deliveries"] = item.deliveries
    out["requested_at"] = round(item.issued.get(stop, 0.0), 3)
    out["method"] = trace[stop].method
    out["kind"] = item.kind
    return out


def simulate(job: JobProfile, scenario: Scenario) -> Results:
    """One simulated run."""
    return Model(job, scenario).run()
