"""Waiting for a long-running operation on the invocation's clock: one helper for every API.

A write the API accepted (HTTP 200) is only confirmed once its operation finishes without an
error. Every adapter that starts an operation (Compute stops, GKE writes, Workbench and TPU
stops, Vertex AI undeploys) waits for it here, so they all decide the same way and give up the
same way:

- `verdict(state)` is the pure decision: succeeded, failed or still running;
- `wait(...)` polls through a callable the adapter gives it (the I/O): at once (an operation
  that a write answered with is read again straight away: most finish within a second), then
  after pauses of 1 s doubling up to 10 s, on the invocation's clock (tests move a fake clock
  instead of sleeping);
- its deadline is fixed when the wait starts: `cap` seconds, within what is left of the
  invocation's deadline (clock.seconds_left); a wait never outlives its invocation.

What a caller does at the deadline is the caller's decision, not this module's: the idle-VM
reaper leaves its claim for the next run, the budget alert is redelivered, the expiry reaper's
run answers non-2xx (actions/). Never "succeeded". Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

from govern import clock, ports
from govern.parse.operation import OperationState

Verdict = Literal["succeeded", "failed", "running"]
FIRST_PAUSE_SECONDS: Final = 1.0
MAX_PAUSE_SECONDS: Final = 10.0


def verdict(state: OperationState) -> Verdict:
    """Failed if it carries an error (finished or not), succeeded once done, else running."""
    if state.error:
        return "failed"
    return "succeeded" if state.done else "running"


def accepted(what: str, state: OperationState) -> OperationState:
    """The operation a write answered with, unless it already failed (OperationFailed).

    An accepted write (HTTP 200) can answer with an operation that already carries its error:
    nothing happened, and waiting would only read that error again.
    """
    if verdict(state) == "failed":
        raise ports.OperationFailed(
            f"{what}: operation {state.name} failed: {state.error}", transient=state.transient
        )
    return state


def next_pause(pause: float) -> float:
    """The pause after `pause`: FIRST_PAUSE_SECONDS after none, then doubled, at most the max."""
    return min(max(pause * 2, FIRST_PAUSE_SECONDS), MAX_PAUSE_SECONDS)


def wait(
    what: str,
    poll: Callable[[], OperationState],
    *,
    cap: float,
    first: OperationState | None = None,
    noun: str = "operation",
) -> OperationState:
    """Poll until the operation finishes; its final state when it succeeded.

    `first`: the state the write answered with (polled at once when None). `what` names the
    call in messages, `noun` what is waited for ("operation", or e.g. "VM").

    Raises:
        ports.OperationFailed: it finished with an error (the write did not happen).
        clock.OutOfTime: still running when the wait (cap, within the deadline) ran out.
        ports.Unconfirmed: the operation answered 404 (the poll raised ports.Gone): the write
            is not confirmed, and never taken for "already gone" or done.
        ports.PortError: a poll failed (after the adapter's retries).
    """
    time = clock.current()
    give_up = time.now() + clock.seconds_left(cap)
    read = _unconfirmed_on_404(what, poll)
    state, pause = (read(), FIRST_PAUSE_SECONDS) if first is None else (first, 0.0)
    while (found := verdict(state)) == "running":
        if pause and time.now() + pause > give_up:
            where = state.status or "running"
            raise clock.OutOfTime(
                f"{what}: {noun} {state.name} still {where} when the wait ran out"
            )
        if pause:
            time.sleep(pause)
        state = read()
        pause = next_pause(pause)
    return accepted(what, state) if found == "failed" else state


def _unconfirmed_on_404(
    what: str, poll: Callable[[], OperationState]
) -> Callable[[], OperationState]:
    """`poll`, with a 404 on the operation turned into Unconfirmed.

    The adapters translate a 404 into ports.Gone, which means "the target is already gone"
    wherever a write meets it; on an operation it means only that the operation cannot be read
    (expired, or looked up elsewhere): whether the write happened is unknown.
    """

    def read() -> OperationState:
        try:
            return poll()
        except ports.Gone as err:
            raise ports.Unconfirmed(
                f"{what}: the operation answered 404 (not found), so the write is not confirmed"
            ) from err

    return read
