"""The action framework: concurrency, rate limits, time budget, dry-run, outcomes, failure rules.

`Runner` makes the API calls of one invocation through a thread pool, on an injected `Clock`.
Every call a flow makes goes through one of its two doors, and the failure rules live there, so
a new flow, read or action kind inherits them by using the doors:

- reads: `Runner.gather(label, project, fn, *args)`, or many at once with
  `Runner.gather_all([ReadCall(label, project, fn, args), ...])`. A failed listing (after the
  adapter's retries) or one the time budget left unstarted becomes a run error and yields
  nothing; a `ports.Listing`'s unreadable resources are reported and skipped, and a governed
  location it could not read (`missing`) is a failed scope; an unexpected exception is
  reported, never raised through the run.
- actions: `apply(actions, ...)` runs each action from the `actions.ACTIONS` table. A `Skip` is
  reported as such, dry-run simulates every kind alike, and errors become outcomes ("already
  gone", "changed concurrently", left for the next run, failed) rather than exceptions. Only an
  action's first call is bound by the time budget; its later calls get `CONTINUATION_GRACE`,
  so an action is never abandoned half way (a claim without its stop). An action whose write
  starts a long-running operation returns a `Confirm`: `apply` starts every action first (every
  stop is requested before any is waited for), then waits for the operations concurrently, with
  the same grace; the action decides what an unconfirmed write is (never "done").

`report` assembles the invocation's Report, whose `failed` tells main.py to answer so that the
caller retries (HTTP 503, or a raise for Pub/Sub). Standard library only.
"""

from __future__ import annotations

import contextvars
import threading
import traceback
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar

from govern import blast, clock, ports, scopes
from govern.actions import ACTIONS, Action, Call, Confirm, Done, Skip
from govern.logs import log
from govern.models import ActionPolicy, BlastRadius, Hold, Report, Result

T = TypeVar("T")
R = TypeVar("R")
_EPSILON = 1e-9
LEFT_REASON = "time budget exhausted before this was attempted; left for the next run"
_ANSWERS = (ports.Gone, ports.Conflict, ports.ServiceDisabled)
"""Errors that are the API's answer about the target (gone, changed, nothing there), not a
failure of the call: the error-rate breaker does not count them."""
CONTINUATION_GRACE_SECONDS: Final = 30.0
"""How far past the time budget an action that has begun may still call (claims.py and the
function timeout, budget + 60 s, leave room for it)."""

__all__ = [
    "CONTINUATION_GRACE_SECONDS",
    "LEFT_REASON",
    "RateLimiter",
    "ReadCall",
    "Runner",
    "apply",
    "log",
    "report",
]


# How many seconds of calls a project's bucket holds. Google's API quotas are counted per minute
# (Compute Engine's per-project request quotas; GKE's 3,000 per minute, enforced per 100 s;
# Vertex AI's per minute and region), not per second: a bucket of two seconds' worth lets the first
# calls of an invocation go without waiting (a budget alert in one project makes ~16: listings,
# stops, GKE and Vertex AI writes) while the sustained rate, and so any minute's total (at most
# 62 x rate), stays what the policy says.
BURST_SECONDS = 2.0


class RateLimiter:
    """Token bucket per project: `rate` calls per second sustained, bursts of `burst_seconds`."""

    def __init__(
        self, rate: float, time: clock.Clock = clock.SYSTEM, burst_seconds: float = BURST_SECONDS
    ) -> None:
        self._rate = rate
        self._capacity = max(1.0, rate * burst_seconds)
        self._clock = time
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}

    def acquire(self, project: str, deadline: float | None = None) -> bool:
        """Wait for a token; False if the wait would pass `deadline` (a clock reading)."""
        while True:
            with self._lock:
                now = self._clock.now()
                tokens, last = self._buckets.get(project, (self._capacity, now))
                tokens = min(self._capacity, tokens + (now - last) * self._rate)
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


@dataclass(frozen=True)
class ReadCall(Generic[T]):
    """One listing call for Runner.gather_all: `fn(*args)` on behalf of `project`."""

    label: str
    project: str
    fn: Callable[..., list[T]]
    args: tuple[Any, ...] = ()


def _new_run_id() -> str:
    return uuid.uuid4().hex


@dataclass
class Runner:
    """Runs port calls for one invocation under the policy's concurrency, rate and time limits."""

    policy: ActionPolicy
    time: clock.Clock = clock.SYSTEM
    run_id: str = field(default_factory=_new_run_id)
    started: float = field(init=False)
    errors: list[str] = field(default_factory=list[str])
    unreadable: list[ports.Unreadable] = field(default_factory=list[ports.Unreadable])
    failed_scopes: list[str] = field(default_factory=list[str])
    # The error-rate breaker (govern/blast.py): every call counted, and whether it failed after
    # the adapter's retries. Armed (`arm_breaker`) by the reapers only: the budget kill switch
    # keeps acting whatever fails around it.
    api_calls: int = 0
    api_failures: int = 0
    holds: list[Hold] = field(default_factory=list[Hold])
    # How many operations' confirmations wait at once (`finish`); None: max_concurrency. A
    # wait mostly sleeps between polls, so a work item waits for all of its project's
    # operations at once while it starts its calls a few at a time (flows/work.py).
    wait_concurrency: int | None = None
    _breaker: BlastRadius | None = None
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
            clock.OutOfTime: the time budget ran out before the call could start.
        """
        return self._call(project, fn, args, self.deadline)

    def _call(
        self,
        project: str,
        fn: Callable[..., R],
        args: Sequence[Any],
        deadline: float,
        begin: Callable[[], None] | None = None,
    ) -> R:
        if self.time.now() >= deadline or not self._limiter.acquire(project, deadline):
            raise clock.OutOfTime(LEFT_REASON)
        if begin is not None:
            begin()
        timeout = self.policy.call_timeout_seconds
        with clock.within(clock.Deadline(self.time, deadline, timeout)):
            try:
                result = fn(*args)
            except _ANSWERS:
                self._count(failed=False)
                raise
            except Exception:
                # A PortError after the adapter's retries, a wait that timed out, or a bug.
                self._count(failed=True)
                raise
        self._count(failed=False)
        return result

    def _count(self, *, failed: bool) -> None:
        with self._lock:
            self.api_calls += 1
            self.api_failures += int(failed)

    def arm_breaker(self, limits: BlastRadius) -> None:
        """From now on, `breaker_open` judges the run's error rate against `limits`."""
        self._breaker = limits

    def breaker_open(self) -> bool:
        """Whether the armed breaker has tripped (it stays open for the rest of the run).

        The first time, the hold is recorded and paged (`hold`).
        """
        limits = self._breaker
        if limits is None:
            return False
        with self._lock:
            if any(h.kind == "breaker" for h in self.holds):
                return True
            calls, failures = self.api_calls, self.api_failures
        if not blast.breaker_tripped(calls, failures, limits):
            return False
        self.hold(blast.breaker_hold(calls, failures, limits))
        return True

    def hold(self, hold: Hold, *, page: bool = True, **fields: Any) -> None:
        """Record a blast-radius hold, once per kind, with one log line.

        CRITICAL with `"page": true`; a dry run (`page` False) only says what an acting run
        would have held, at WARNING.
        """
        with self._lock:
            if any(h.kind == hold.kind for h in self.holds):
                return
            self.holds.append(hold)
        severity = "CRITICAL" if page else "WARNING"
        log(severity, hold.reason, page=page, blast_radius=hold.as_dict(), **fields)

    def action_calls(self, *, begun_already: bool = False) -> Call:
        """The `call` one action runs with: the first within the budget, later ones with grace.

        Later calls may run CONTINUATION_GRACE_SECONDS past the budget: an action that began
        is finished (no claim without its stop). `begun_already`: every call is a later one
        (an action's Confirm).
        """
        begun: list[bool] = [True] if begun_already else []

        def call(project: str, fn: Callable[..., R], /, *args: Any) -> R:
            grace = CONTINUATION_GRACE_SECONDS if begun else 0.0
            return self._call(project, fn, args, self.deadline + grace, lambda: begun.append(True))

        return call

    def error(self, text: str, **fields: Any) -> None:
        """Record a failure that is not tied to one action (e.g. a listing failed)."""
        with self._lock:
            self.errors.append(text)
        log("ERROR", text, **fields)

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        project: Callable[[T], str] | None = None,
        *,
        late: bool = False,
    ) -> list[R | None]:
        """Fn over items in the pool; None for an item not started before the deadline.

        With `project`, items start round-robin across projects, so the per-project rate limit
        throttles one project's backlog rather than the whole pool. Results keep the order of
        `items`. `late`: start every item even past the deadline (the confirmations of actions
        that began, whose calls have their own grace), `wait_concurrency` of them at once.
        """
        results: list[R | None] = [None] * len(items)

        def run(i: int) -> None:
            if late or not self.expired():
                results[i] = fn(items[i])

        order = list(range(len(items)))
        if project is not None:
            order = _round_robin(order, lambda i: project(items[i]))
        width = self.policy.max_concurrency
        if late and self.wait_concurrency is not None:
            width = self.wait_concurrency
        workers = max(1, min(width, len(items)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mlgov") as pool:
            futures = [pool.submit(contextvars.copy_context().run, run, i) for i in order]
            for f in futures:
                f.result()
        return results

    def gather(self, label: str, project: str, fn: Callable[..., list[T]], *args: Any) -> list[T]:
        """A read: a failure is recorded as a run error and yields nothing (never an action).

        Resources the listing could not parse (`ports.Listing.unreadable`) are reported and
        skipped; the others are returned.
        """
        where = "/".join([project, *map(str, args[1:])])
        try:
            result = self.call(project, fn, *args)
        except ports.ServiceDisabled as err:
            # Nothing of a disabled API runs (or bills) in the project: an empty answer.
            log("INFO", f"{label} {where}: {err}; nothing to act on")
            return []
        except (ports.PortError, clock.OutOfTime) as err:
            self.error(f"{label} {where}: {err}")
            return []
        except Exception as err:
            # A bug or an error no adapter translated: report it and keep the run going; the
            # run then counts as failed, so it is retried and nobody mistakes it for success.
            self.error(
                f"{label} {where}: unexpected {type(err).__name__}: {err}",
                traceback=traceback.format_exc(),
            )
            return []
        for bad in getattr(result, "unreadable", ()):
            self.note_unreadable(bad)
        for location in getattr(result, "missing", ()):
            self.note_missing(label, project, location)
        return result

    def gather_all(self, reads: Sequence[ReadCall[T]]) -> list[list[T]]:
        """`gather` each read concurrently (round-robin across projects); results in order.

        A read the time budget left unstarted is a run error too: nothing goes missing quietly.
        """
        results = self.map(
            lambda r: self.gather(r.label, r.project, r.fn, *r.args), reads, lambda r: r.project
        )
        out: list[list[T]] = []
        for read, result in zip(reads, results, strict=True):
            if result is None:
                where = "/".join([read.project, *map(str, read.args[1:])])
                self.error(f"{read.label} {where}: {LEFT_REASON}")
            out.append(result or [])
        return out

    def note_missing(self, label: str, project: str, location: str) -> None:
        """A location a listing could not read: a failed scope if the project governs it.

        Everything the listing did return is acted on; the run then answers non-2xx (raises for
        Pub/Sub) naming the scope, so the caller delivers it again and the next run reads it.
        """
        if not scopes.governs(self.policy, project, location):
            log("INFO", f"{label} {project}: {location} unreachable; not governed, ignored")
            return
        text = (
            f"{label} {project}/{location}: unreachable (the API could not read it; nothing "
            "there was acted on)"
        )
        with self._lock:
            if text in self.failed_scopes:
                return
            self.failed_scopes.append(text)
        log("ERROR", text, scope=f"projects/{project}/locations/{location}")

    def note_unreadable(self, bad: ports.Unreadable) -> None:
        """Report a listed resource that could not be parsed; it is skipped, not acted on."""
        with self._lock:
            self.unreadable.append(bad)
        log("ERROR", f"unreadable resource skipped: {bad.reason}", target=bad.target)


def _round_robin(indices: list[int], key: Callable[[int], str]) -> list[int]:
    queues: dict[str, list[int]] = {}
    for i in indices:
        queues.setdefault(key(i), []).append(i)
    lanes = list(queues.values())
    ordered: list[int] = []
    for depth in range(max((len(q) for q in lanes), default=0)):
        ordered += [q[depth] for q in lanes if depth < len(q)]
    return ordered


def _perform(action: Action, p: ports.Ports, runner: Runner) -> Done | Confirm:
    if type(action) not in ACTIONS:
        return "failed", f"no executor for {type(action).__name__}"
    return action.run(p, runner.action_calls())


def _outcome(action: Action, step: Callable[[], Done | Confirm]) -> Done | Confirm:
    """Run one step of an action; the framework's error rules turn errors into outcomes."""
    try:
        return step()
    except ports.Gone:
        return "skipped", "already gone"
    except ports.Conflict as err:
        return "skipped", f"changed concurrently: {err}"
    except clock.OutOfTime:
        return "skipped", LEFT_REASON
    except ports.PortError as err:
        return "failed", str(err)
    except Exception as err:
        # Same rule as Runner.gather: a bug fails this action, visibly, not the whole run.
        reason = f"unexpected {type(err).__name__}: {err}"
        log("ERROR", reason, target=action.target, traceback=traceback.format_exc())
        return "failed", reason


def _one(runner: Runner, p: ports.Ports, action: Action, dry_run: bool) -> Result | Confirm:
    verb = action.verb
    if isinstance(action, Skip):
        return Result(action.target, verb, "skipped", action.reason)
    if dry_run:
        would = f"dry run: would {verb}: {action.reason}{action.side_effects()}"
        return Result(action.target, verb, "simulated", would)
    if runner.breaker_open():
        # Started actions finish (no claim without its stop); no new one starts.
        breaker = next(h for h in runner.holds if h.kind == "breaker")
        return Result(action.target, verb, "skipped", f"{breaker.reason}: {action.reason}")
    done = _outcome(action, lambda: _perform(action, p, runner))
    if isinstance(done, Confirm):
        return done
    return Result(action.target, verb, *done)


def _confirm(runner: Runner, action: Action, confirm: Confirm) -> Result:
    """Wait for the operation an action started; its final Result."""
    calls = runner.action_calls(begun_already=True)
    done = _outcome(action, lambda: confirm.wait(calls))
    if isinstance(done, Confirm):  # a wait never asks for another; treat it as unconfirmed
        return Result(action.target, action.verb, "failed", f"{confirm.requested}; unconfirmed")
    outcome, reason = done
    if reason == LEFT_REASON:
        # Past even the grace before its wait could begin: requested, never confirmed.
        outcome, reason = "failed", f"{confirm.requested}; not confirmed ({LEFT_REASON})"
    return Result(action.target, action.verb, outcome, reason)


_SEVERITY: dict[str, str] = {
    "done": "NOTICE",
    "simulated": "INFO",
    "skipped": "INFO",
    "failed": "ERROR",
}


@dataclass(frozen=True)
class Started:
    """Actions whose first calls ran, in order; the operations some began await `finish`."""

    actions: list[Action]
    outcomes: list[Result | Confirm | None]


def start(actions: Iterable[Action], p: ports.Ports, runner: Runner, *, dry_run: bool) -> Started:
    """Run every action's first calls concurrently (every stop is requested); nothing waited for."""
    todo = list(actions)
    outcomes = runner.map(lambda a: _one(runner, p, a, dry_run), todo, project=lambda a: a.project)
    return Started(todo, outcomes)


def finish(started: Started, runner: Runner) -> list[Result]:
    """Wait for the operations `started` began (concurrently, with the grace); a Result each."""
    todo, outcomes = started.actions, list(started.outcomes)
    pending = [(i, c) for i, c in enumerate(outcomes) if isinstance(c, Confirm)]
    confirmed = runner.map(
        lambda ic: _confirm(runner, todo[ic[0]], ic[1]),
        pending,
        project=lambda ic: todo[ic[0]].project,
        late=True,
    )
    for (i, _), result in zip(pending, confirmed, strict=True):
        outcomes[i] = result
    final: list[Result] = []
    for action, result in zip(todo, outcomes, strict=True):
        if not isinstance(result, Result):
            result = Result(action.target, action.verb, "skipped", LEFT_REASON)
        final.append(result)
    return final


def log_results(results: Sequence[Result], entry_point: str) -> None:
    """One log line per result, in the order given."""
    for r in results:
        log(_SEVERITY[r.outcome], f"{r.action} {r.outcome}", entry_point=entry_point, **r.as_dict())


def apply(
    actions: Iterable[Action], p: ports.Ports, runner: Runner, entry_point: str, *, dry_run: bool
) -> list[Result]:
    """Carry out `actions` concurrently; one Result and one log line per action, in order.

    Every action is started first; the operations they started (`Confirm`) are then waited for,
    concurrently, so no write waits for another's operation before being requested.
    """
    results = finish(start(actions, p, runner, dry_run=dry_run), runner)
    log_results(results, entry_point)
    return results


def report(entry_point: str, results: Sequence[Result], runner: Runner) -> Report:
    """The invocation's Report: results (and unreadable resources), leftovers, run errors."""
    unreadable = [
        Result(u.target, "read", "skipped", f"unreadable, not acted on: {u.reason}")
        for u in runner.unreadable
    ]
    unfinished = tuple(r.target for r in results if r.reason == LEFT_REASON)
    return Report(
        entry_point,
        runner.policy.dry_run,
        (*results, *unreadable),
        unfinished,
        tuple(runner.errors),
        tuple(u.target for u in runner.unreadable),
        runner.run_id,
        failed_scopes=tuple(runner.failed_scopes),
        holds=tuple(runner.holds),
    )
