"""Carry actions out: bounded concurrency, per-project rate limits, a time budget, logging.

`Runner` reads and acts through the ports with a thread pool; `apply` turns each action into
a `Result`, re-checking nothing itself (decide.py decided on fresh reads) but treating
"already gone" and "changed concurrently" as outcomes rather than errors. One JSON log line
per action goes to stdout for Cloud Logging. Standard library only.
"""

from __future__ import annotations

import contextvars
import json
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from govern import ports
from govern.models import (
    Action,
    ActionPolicy,
    DisableBilling,
    Outcome,
    ReapRecommendation,
    Result,
    Skip,
    StopInstance,
    StopNotebook,
    StopTpuNode,
    Workload,
)

T = TypeVar("T")
R = TypeVar("R")
LEFT_REASON = "time budget exhausted before this was attempted; left for the next run"


def log(severity: str, message: str, /, **fields: Any) -> None:
    """Write one structured log line to stdout (Cloud Logging reads severity and message)."""
    line = json.dumps({"severity": severity, "message": message, **fields}, default=str)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class RateLimiter:
    """Token bucket per project: at most `rate` calls per second, bursts up to `rate`."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = rate
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}

    def acquire(self, project: str, deadline: float | None = None) -> bool:
        """Wait for a token; False if the wait would pass `deadline`."""
        while True:
            with self._lock:
                now = self._clock()
                tokens, last = self._buckets.get(project, (self._rate, now))
                tokens = min(self._rate, tokens + (now - last) * self._rate)
                if tokens >= 1.0:
                    self._buckets[project] = (tokens - 1.0, now)
                    return True
                self._buckets[project] = (tokens, now)
                wait = (1.0 - tokens) / self._rate
            if deadline is not None and now + wait > deadline:
                return False
            time.sleep(wait)


@dataclass
class Runner:
    """Runs port calls for one invocation under the policy's concurrency, rate and time limits."""

    policy: ActionPolicy
    started: float = field(default_factory=time.monotonic)
    errors: list[str] = field(default_factory=list[str])
    _limiter: RateLimiter = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._limiter = RateLimiter(self.policy.max_requests_per_second_per_project)

    @property
    def deadline(self) -> float:
        """time.monotonic() value by which the work must be done."""
        return self.started + self.policy.time_budget_seconds

    def expired(self) -> bool:
        """True once the time budget is used up."""
        return time.monotonic() >= self.deadline

    def call(self, project: str, fn: Callable[..., R], *args: Any) -> R:
        """One API call in `project`: waits for the rate limiter, honours the deadline.

        Raises:
            TimeoutError: the time budget ran out before the call could start.
        """
        if not self._limiter.acquire(project, self.deadline):
            raise TimeoutError(LEFT_REASON)
        token = ports.DEADLINE.set(self.deadline)
        try:
            return fn(*args)
        finally:
            ports.DEADLINE.reset(token)

    def error(self, text: str) -> None:
        """Record a problem that is not tied to one action (e.g. a listing failed)."""
        with self._lock:
            self.errors.append(text)
        log("ERROR", text)

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], project: Callable[[T], str] | None = None
    ) -> list[R | None]:
        """Fn over items in the pool; None for an item not started before the deadline.

        With `project`, items start round-robin across projects, so the per-project rate limit
        throttles one project's backlog rather than the whole pool. Results keep the order of
        `items`.
        """
        results: list[R | None] = [None] * len(items)

        def run(i: int) -> None:
            if not self.expired():
                results[i] = fn(items[i])

        order = list(range(len(items)))
        if project is not None:
            order = _round_robin(order, lambda i: project(items[i]))
        workers = max(1, min(self.policy.max_concurrency, len(items)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mlgov") as pool:
            futures = [pool.submit(contextvars.copy_context().run, run, i) for i in order]
            for f in futures:
                f.result()
        return results

    def gather(self, label: str, project: str, fn: Callable[..., list[T]], *args: Any) -> list[T]:
        """A listing call; a failure is recorded and yields nothing (never an action)."""
        try:
            return self.call(project, fn, *args)
        except (ports.PortError, TimeoutError) as err:
            self.error(f"{label} {'/'.join([project, *map(str, args[1:])])}: {err}")
            return []


def _round_robin(indices: list[int], key: Callable[[int], str]) -> list[int]:
    queues: dict[str, list[int]] = {}
    for i in indices:
        queues.setdefault(key(i), []).append(i)
    lanes = list(queues.values())
    ordered: list[int] = []
    for depth in range(max((len(q) for q in lanes), default=0)):
        ordered += [q[depth] for q in lanes if depth < len(q)]
    return ordered


def _stop(runner: Runner, p: ports.Ports, action: Action, w: Workload) -> str:
    if isinstance(action, StopNotebook):
        assert p.notebooks is not None  # noqa: S101 - decide/main guarantee it
        return runner.call(w.project, p.notebooks.stop, w.project, w.zone, w.name)
    if isinstance(action, StopTpuNode):
        assert p.tpus is not None  # noqa: S101 - decide/main guarantee it
        return runner.call(w.project, p.tpus.stop, w.project, w.zone, w.name)
    assert p.compute is not None  # noqa: S101 - decide/main guarantee it
    return runner.call(w.project, p.compute.stop, w.project, w.zone, w.name)


def _reap(runner: Runner, p: ports.Ports, action: ReapRecommendation) -> tuple[Outcome, str]:
    rec, w = action.recommendation, action.workload
    if rec is None or w is None or p.recommender is None:
        return "failed", "internal: reap action without recommendation, instance or recommender"
    try:
        etag = runner.call(w.project, p.recommender.mark_claimed, rec.name, rec.etag)
    except ports.Conflict as err:
        return "skipped", f"recommendation changed concurrently, not claimed ({err})"
    except ports.Gone:
        return "skipped", "recommendation no longer exists"
    try:
        status = _stop(runner, p, action, w)
    except ports.Gone:
        note = _mark(
            runner,
            w.project,
            "marked failed",
            p.recommender.mark_failed,
            rec.name,
            etag,
            "instance not found",
        )
        return "skipped", f"instance already gone; recommendation {note}"
    except (ports.PortError, TimeoutError) as err:
        note = _mark(
            runner,
            w.project,
            "marked failed",
            p.recommender.mark_failed,
            rec.name,
            etag,
            f"stop failed: {err}",
        )
        return "failed", f"stop failed: {err}; recommendation {note}"
    note = _mark(
        runner, w.project, "marked succeeded", p.recommender.mark_succeeded, rec.name, etag
    )
    # The stop went through either way: a failed markSucceeded leaves the recommendation CLAIMED,
    # and the recommender refreshes it; it does not make the stop a failure.
    return "done", f"{action.reason}: stop requested (operation {status}); recommendation {note}"


def _mark(runner: Runner, project: str, verb: str, fn: Callable[..., str], *args: str) -> str:
    try:
        runner.call(project, fn, *args)
    except (ports.PortError, TimeoutError) as err:
        return f"NOT {verb} ({err})"
    return verb


def _perform(runner: Runner, p: ports.Ports, action: Action) -> tuple[Outcome, str]:
    if isinstance(action, ReapRecommendation):
        return _reap(runner, p, action)
    if isinstance(action, DisableBilling):
        assert p.billing is not None  # noqa: S101 - decide/main guarantee it
        runner.call(action.project, p.billing.unlink, action.project)
        return "done", f"{action.reason}: billing unlinked"
    if isinstance(action, StopInstance | StopNotebook | StopTpuNode):
        assert action.workload is not None  # noqa: S101 - decide/main guarantee it
        status = _stop(runner, p, action, action.workload)
        return "done", f"{action.reason}: stop requested ({status})"
    return "failed", f"no executor for {type(action).__name__}"


def _one(runner: Runner, p: ports.Ports, action: Action, dry_run: bool) -> Result:
    verb = action.verb
    if isinstance(action, Skip):
        return Result(action.target, verb, "skipped", action.reason)
    if dry_run:
        return Result(action.target, verb, "simulated", f"dry run: would {verb}: {action.reason}")
    try:
        outcome, reason = _perform(runner, p, action)
    except ports.Gone:
        outcome, reason = "skipped", "already gone"
    except ports.Conflict as err:
        outcome, reason = "skipped", f"changed concurrently: {err}"
    except TimeoutError:
        outcome, reason = "skipped", LEFT_REASON
    except ports.PortError as err:
        outcome, reason = "failed", str(err)
    return Result(action.target, verb, outcome, reason)


_SEVERITY: dict[str, str] = {
    "done": "NOTICE",
    "simulated": "INFO",
    "skipped": "INFO",
    "failed": "ERROR",
}


def apply(
    actions: Iterable[Action], p: ports.Ports, runner: Runner, entry_point: str, *, dry_run: bool
) -> list[Result]:
    """Carry out `actions` concurrently; one Result and one log line per action, in order."""
    todo = list(actions)
    results = runner.map(lambda a: _one(runner, p, a, dry_run), todo, project=lambda a: a.project)
    final: list[Result] = []
    for action, result in zip(todo, results, strict=True):
        final.append(result or Result(action.target, action.verb, "skipped", LEFT_REASON))
    for r in final:
        log(_SEVERITY[r.outcome], f"{r.action} {r.outcome}", entry_point=entry_point, **r.as_dict())
    return final
