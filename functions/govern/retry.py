"""Retrying transient API errors: truncated exponential backoff with full jitter, on a Clock.

Same schedule as google.api_core.retry.Retry (sleep uniform in [0, ceiling], ceiling doubling
from `initial` up to `maximum`; give up when the next sleep would pass the timeout), but it waits
on the invocation's clock, so tests inject time instead of sleeping. A `Retrying` is what the
client libraries accept as `retry=`: a decorator over the call (pagers reuse it per page).
Which errors count as transient is the adapters' business (gcp/clients.py). Standard library only.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from govern import clock

R = TypeVar("R")


class GaveUp(Exception):
    """Still failing when the retry timeout ran out; `cause` is the last error."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"gave up retrying ({cause})")
        self.cause = cause


@dataclass(frozen=True)
class Retrying:
    """Retry `transient` errors for up to `timeout` seconds of the current invocation's clock."""

    transient: tuple[type[Exception], ...]
    timeout: float
    initial: float = 0.2
    maximum: float = 4.0
    multiplier: float = 2.0

    def __call__(self, func: Callable[..., R]) -> Callable[..., R]:
        """`func` wrapped in the retry loop."""

        @functools.wraps(func)
        def retried(*args: Any, **kwargs: Any) -> R:
            time = clock.current()
            deadline = time.now() + self.timeout
            ceiling = min(self.initial, self.maximum)
            while True:
                try:
                    return func(*args, **kwargs)
                except self.transient as err:
                    pause = random.uniform(0.0, ceiling)  # noqa: S311 - jitter, not secrecy
                    if time.now() + pause > deadline:
                        raise GaveUp(err) from err
                    time.sleep(pause)
                    ceiling = min(ceiling * self.multiplier, self.maximum)

        return retried
