"""govern.retry: api_core's backoff schedule, on the invocation's clock (a FakeClock here)."""

from __future__ import annotations

import pytest

from govern import clock
from govern.retry import GaveUp, Retrying, retry_after_seconds
from governance.fakecloud.clock import FakeClock


class Transient(Exception):
    def __init__(self, message: str = "", retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def transient(err: BaseException) -> bool:
    return isinstance(err, Transient)


def asked(err: BaseException) -> float | None:
    return getattr(err, "retry_after", None)


class Fatal(Exception):
    pass


def _flaky(errors: list[Exception]):
    calls: list[int] = []

    def fn(x: int) -> int:
        calls.append(x)
        if errors:
            raise errors.pop(0)
        return x * 2

    return fn, calls


def _within(fake: FakeClock, seconds: float = 60.0):
    return clock.within(clock.Deadline(fake, fake.now() + seconds))


def test_retries_transient_errors_then_answers():
    fake = FakeClock()
    fn, calls = _flaky([Transient(), Transient()])
    with _within(fake):
        assert Retrying(transient, timeout=30)(fn)(4) == 8
    assert calls == [4, 4, 4]
    assert len(fake.slept) == 2
    # Full jitter under a ceiling that starts at 0.2 s and doubles.
    assert 0 <= fake.slept[0] <= 0.2
    assert 0 <= fake.slept[1] <= 0.4


def test_ceiling_stops_growing_at_the_maximum():
    fake = FakeClock()
    fn, _ = _flaky([Transient()] * 12)
    with _within(fake, 600):
        Retrying(transient, timeout=600)(fn)(1)
    assert max(fake.slept) <= 4.0


def test_other_errors_propagate_at_once():
    fake = FakeClock()
    fn, calls = _flaky([Fatal("no")])
    with _within(fake), pytest.raises(Fatal):
        Retrying(transient, timeout=30)(fn)(1)
    assert calls == [1]
    assert fake.slept == []


def test_gives_up_before_sleeping_past_the_timeout_and_keeps_the_cause():
    fake = FakeClock()
    fn, calls = _flaky([Transient(f"try {i}") for i in range(1000)])
    start = fake.now()
    with _within(fake), pytest.raises(GaveUp) as err:
        Retrying(transient, timeout=3)(fn)(1)
    assert fake.now() - start <= 3
    assert str(err.value.cause) == f"try {len(calls) - 1}"
    assert str(err.value) == f"gave up retrying (try {len(calls) - 1})"


def test_retry_after_is_honoured_past_the_per_call_cap_within_the_run():
    fake = FakeClock()
    fn, calls = _flaky([Transient("429", retry_after=40)])
    with _within(fake, 100):
        assert Retrying(transient, timeout=30, retry_after=asked)(fn)(2) == 4
    assert calls == [2, 2]
    assert fake.slept == [40]  # the server's 40 s, though one call retries for 30 s at most


def test_a_retry_after_past_the_deadline_gives_up_at_once():
    fake = FakeClock()
    fn, calls = _flaky([Transient("429", retry_after=120)])
    with _within(fake, 60), pytest.raises(GaveUp, match=r"asked to retry after 120 s, 60 s left"):
        Retrying(transient, timeout=30, retry_after=asked)(fn)(1)
    assert calls == [1]
    assert fake.slept == []


@pytest.mark.parametrize(
    ("value", "date", "seconds"),
    [
        ("10", None, 10.0),
        (" 0 ", None, 0.0),
        ("Wed, 21 Oct 2026 07:28:10 GMT", "Wed, 21 Oct 2026 07:28:00 GMT", 10.0),
        ("Wed, 21 Oct 2026 07:27:00 GMT", "Wed, 21 Oct 2026 07:28:00 GMT", 0.0),  # past
        ("soon", None, None),
        ("", None, None),
        (None, None, None),
        ("-5", None, None),
    ],
)
def test_retry_after_header_values(value, date, seconds):
    assert retry_after_seconds(value, date) == seconds


def test_outside_an_invocation_it_uses_the_system_clock():
    assert clock.current() is clock.SYSTEM
    assert clock.seconds_left(30.0) == 30.0


def test_seconds_left_is_capped_and_at_least_one():
    fake = FakeClock()
    with _within(fake, 10):
        assert clock.seconds_left(30.0) == 10.0
        assert clock.seconds_left(5.0) == 5.0
        assert clock.seconds_left(0.2) == 0.2  # a cap below the floor is kept
        fake.advance(20)
        assert clock.seconds_left(30.0) == 1.0


def test_the_call_timeout_comes_from_the_invocation():
    fake = FakeClock()
    with clock.within(clock.Deadline(fake, fake.now() + 100, call_timeout=7)):
        assert clock.call_timeout() == 7
    with clock.within(clock.Deadline(fake, fake.now() + 3, call_timeout=7)):
        assert clock.call_timeout() == 3
