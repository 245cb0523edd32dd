"""The contract of an action kind, and `Skip`, the record of a resource deliberately left alone.

An action kind is one frozen dataclass (c7n-style): its fields say what to act on, `verb` names
it in reports, `permissions` lists the IAM permissions of the API calls `run` makes (reads that
led to the decision are declared by the flow, see flows/), and `run` carries it out through the
ports, passing every API call through `call` (the framework's rate limit and deadline).
Dry-run, concurrency, the time budget and turning errors into outcomes belong to execute.py,
never to an action. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from govern.models import Outcome
from govern.ports import Ports

R = TypeVar("R")
Done = tuple[Outcome, str]
"""What running an action came to: its outcome and the reason put in the report."""


@dataclass(frozen=True)
class Confirm:
    """A write the API accepted whose operation is still to be confirmed (what `run` may return).

    execute.apply first runs every action, so that every stop is requested before any is waited
    for, then calls `wait` for each with the action's later calls (`Call`). `wait` returns the
    action's final outcome and reason; what it does when the wait runs out (the give-up
    behaviour) is the action's own decision, never "done". `requested` says what was asked, for
    the report when the wait never starts.
    """

    requested: str
    wait: Callable[[Call], Done]


class Call(Protocol):
    """One API call on behalf of `project` (execute.Runner.call)."""

    def __call__(self, project: str, fn: Callable[..., R], /, *args: Any) -> R:
        """fn(*args) once the project's rate limit allows, inside the invocation's deadline."""
        ...


@dataclass(frozen=True)
class Action:
    """Something to do to one target; a subclass per kind, registered in actions.ACTIONS."""

    target: str
    reason: str
    verb: ClassVar[str] = "stop"
    permissions: ClassVar[tuple[str, ...]] = ()

    @property
    def project(self) -> str:
        """The project this action spends API quota in (rate limits are per project)."""
        parts = self.target.split("/")
        return parts[parts.index("projects") + 1] if "projects" in parts else ""

    def side_effects(self) -> str:
        """What else the action does that its owner must hear of (e.g. data it discards).

        Appended to the report line, in dry runs too; "" when there is nothing to say.
        """
        return ""

    def run(self, ports: Ports, call: Call) -> Done | Confirm:
        """Carry the action out; "done" with what was done, or an outcome it decides.

        An action whose write starts a long-running operation returns a `Confirm`, which the
        framework runs once every action has been started. Only the first `call` is bound by the
        time budget: once an action has begun, its later calls (and its Confirm's) may run into
        a short grace period, so a claim is never left half done.

        Raises:
            govern.ports.PortError: (Gone, Conflict, Unavailable or another failure) for the
                framework to report; clock.OutOfTime once the time budget is gone.
        """
        raise NotImplementedError(f"{type(self).__name__} does not say how it runs")


@dataclass(frozen=True)
class Skip(Action):
    """A resource considered and deliberately left alone (exempt, stopped, no data...)."""
