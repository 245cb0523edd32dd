"""The action framework: concurrency, rate limits, time budget, dry-run, outcomes, logging.

`Runner` makes the API calls of one invocation (reads and actions) through a thread pool, on an
injected `Clock`. `apply` runs each action from the `actions.ACTIONS` table: a `Skip` is
reported as such, dry-run simulates every kind alike, and the port errors an action lets through
become outcomes ("already gone", "changed concurrently", failed) rather than exceptions.
`report` assembles an invocation's Report. Standard library only.
"""

from __future__ import annotations

import contextvars
import json
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from govern import clock, ports
from govern.actions import ACTIONS, Action, Done, Skip
from govern.models import ActionPolicy, Report, Result

T = TypeVar("T")
R = TypeVar("R")
_EPSILON = 1e-9
LEFT_REASON = "time budget exhausted before this was attempted; left for the next run"


def log(severity: str, message: str, /, **fields: Any) -> None:
    """Write one structured log line to stdout (Cloud Logging reads severity and message)."""
    line = json.dumps({"severity": severity, "message": message, **fields}, default=str)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class RateLimiter:
    """Token bucket per project: at most `rate` calls per second, bursts up to `rate`."""

    def __init__(self, rate: float, time: clock.Clock = clock.SYSTEM) -> None:
        self._rate = rate
        self._clock = time
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}

    def acquire(self, project: str, deadline: float | None = None) -> bool:
        """Wait for a token; False if the wait would pass `deadline` (a clock reading)."""
        while True:
            with self._lock:
                now = self._clock.now()
                tokens, last = self._buckets.get(project, (self._rate, now))
                tokens = min(self._rate, tokens + (now - last) * self._rate)
                # The epsilon absorbs float rounding (0.2 s at 5/s refills 0.999...), which would
                # otherwise ask for a wait below the clock's resolution, forever.
                if tokens >= 1.0 - _EPSILON:
                    self._buckets[project] = (max(0.0, tokens - 1.0), now)
                    return True
                self._buckets[project] = (tokens, now)
                wait = (1.0 - tokens) / self._rate
            if deadline is not None and now + wait > deadline:
                return False
            self._clock.sleep(wait)


@dataclass
class Runner:
    """Runs port calls for one invocation under the policy's concurrency, rate and time limits."""

    policy: ActionPolicy
    time: clock.Clock = clock.SYSTEM
    started: float = field(init=False)
    errors: list[str] = field(default_factory=list[str])
    _limiter: RateLimiter = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.started = self.time.now()
        self._limiter = RateLimiter(self.policy.max_requests_per_second_per_project, self.time)

    @property
    def deadline(self) -> float:
        """Clock reading by which the work must be done."""
        return self.started + self.policy.time_budget_seconds

    def elapsed(self) -> float:
        """Seconds since the invocation started."""
        return self.time.now() - self.started

    def expired(self) -> bool:
        """True once the time budget is used up."""
        return self.time.now() >= self.deadline

    def call(self, project: str, fn: Callable[..., R], /, *args: Any) -> R:
        """One API call in `project`: waits for the rate limiter, honours the deadline.

        Raises:
            TimeoutError: the time budget ran out before the call could start.
        """
        if not self._limiter.acquire(project, self.deadline):
            raise TimeoutError(LEFT_REASON)
        with clock.within(clock.Deadline(self.time, self.deadline)):
            return fn(*args)

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


def _perform(action: Action, p: ports.Ports, runner: Runner) -> Done:
    if type(action) not in ACTIONS:
        return "failed", f"no executor for {type(action).__name__}"
    return action.run(p, runner.call)


def _one(runner: Runner, p: ports.Ports, action: Action, dry_run: bool) -> Result:
    verb = action.verb
    if isinstance(action, Skip):
        return Result(action.target, verb, "skipped", action.reason)
    if dry_run:
        return Result(action.target, verb, "simulated", f"dry run: would {verb}: {action.reason}")
    try:
        outcome, reason = _perform(action, p, runner)
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


def report(entry_point: str, results: Sequence[Result], runner: Runner) -> Report:
    """The invocation's Report: results, what the time budget left undone, listing errors."""
    unfinished = tuple(r.target for r in results if r.reason == LEFT_REASON)
    return Report(
        entry_point, runner.policy.dry_run, tuple(results), unfinished, tuple(runner.errors)
    )
