"""Numeric limits the Google APIs enforce at create time, each with its source.

Function timeouts per trigger, Cloud Scheduler attempt deadlines per target, and VM run-time
limits. The acceptance rules (acceptance/functions.py, scheduler.py, scheduling.py) compare inputs
against these; settings validation can use the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mlgov_policies.compat import sources as s


def _seconds(value: float) -> str:
    # 10368000, not 1.0368e+07: limits are read by people comparing them with the docs.
    return f"{value:.0f}" if value == int(value) else f"{value:g}"


@dataclass(frozen=True, kw_only=True)
class Limit:
    """An inclusive range of seconds an API accepts for one field in one situation."""

    what: str
    minimum: float
    maximum: float
    source: str

    def problem(self, seconds: float) -> str | None:
        """Why `seconds` is outside the range, or None."""
        if self.minimum <= seconds <= self.maximum:
            return None
        return (
            f"{_seconds(seconds)}s is outside {self.what}: {_seconds(self.minimum)}s to "
            f"{_seconds(self.maximum)}s "
            f"(source: {s.short(self.source)})"
        )


FUNCTION_TIMEOUT_HTTP: Final = Limit(
    what="the timeout of an HTTP-triggered function",
    minimum=1,
    maximum=3600,
    source=s.FUNCTION_TIMEOUT,
)
FUNCTION_TIMEOUT_EVENT: Final = Limit(
    what="the timeout of an event-triggered function",
    minimum=1,
    maximum=540,
    source=s.FUNCTION_TIMEOUT,
)
SCHEDULER_DEADLINE_HTTP: Final = Limit(
    what="a Cloud Scheduler HTTP target's attemptDeadline",
    minimum=15,
    maximum=30 * 60,
    source=s.SCHEDULER_DEADLINE,
)
SCHEDULER_DEADLINE_APP_ENGINE: Final = Limit(
    what="a Cloud Scheduler App Engine target's attemptDeadline",
    minimum=15,
    maximum=24 * 3600 + 15,
    source=s.SCHEDULER_DEADLINE,
)
VM_RUN_DURATION: Final = Limit(
    what="a VM's scheduling.maxRunDuration",
    minimum=30,
    maximum=120 * 24 * 3600,
    source=s.LIMIT_RUNTIME,
)
TERMINATION_ACTIONS: Final = frozenset({"STOP", "DELETE"})
"""`instanceTerminationAction` values a time-limited or Spot VM may use."""
PROVISIONING_MODELS: Final = frozenset({"STANDARD", "SPOT", "FLEX_START", "RESERVATION_BOUND"})
HOST_MAINTENANCE: Final = frozenset({"MIGRATE", "TERMINATE"})
LIMITS: Final = (
    FUNCTION_TIMEOUT_HTTP,
    FUNCTION_TIMEOUT_EVENT,
    SCHEDULER_DEADLINE_HTTP,
    SCHEDULER_DEADLINE_APP_ENGINE,
    VM_RUN_DURATION,
)  # fmt: skip
