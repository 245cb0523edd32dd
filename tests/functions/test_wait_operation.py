"""govern/operations.py: one decision (succeeded, failed, running) and one wait for every API.

The three operation shapes (Compute, GKE, google.longrunning) are read into one state; the
verdict is pure; the wait polls through a callable on the invocation's clock (a FakeClock here)
and gives up at a deadline fixed when it starts. The adapters' use of it is covered end to end
(test_operations.py, test_confirmed_stops.py, test_flows_cap.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from govern import clock, operations, ports
from govern.parse.operation import (
    OperationState,
    compute_operation,
    gke_operation,
    longrunning_operation,
)
from governance.fakecloud.clock import FakeClock

RECORDED = Path(__file__).parents[1] / "fakegcp" / "recorded"


def _body(path: str) -> dict:
    return json.loads((RECORDED / path).read_text())["body"]


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        # Recorded: a Compute stop answers PENDING, a GKE write RUNNING, a Vertex AI delete done.
        (
            compute_operation(
                _body(
                    "instance-stop/post-compute-v1-projects-cloud-custodian-zones-us-central1-c-"
                    "instances-instance-1-stop_1.json"
                )
            ),
            "running",
        ),
        (
            gke_operation(
                _body(
                    "gke-cluster-set-label/post-v1-projects-cloud-custodian-locations-"
                    "us-central1-clusters-standard-cluster-1-setResourceLabels_1.json"
                )
            ),
            "running",
        ),
        (
            longrunning_operation(
                _body(
                    "vertexai-endpoint-delete/delete-v1-projects-cloud-custodian-locations-"
                    "us-central1-endpoints-c7n-endpoint-central_1.json"
                )
            ),
            "succeeded",
        ),
        # Documented failures (compute v1 Operation; container v1 Operation; AIP-151).
        (
            compute_operation(
                {"status": "DONE", "error": {"errors": [{"code": "QUOTA", "message": "no"}]}}
            ),
            "failed",
        ),
        (compute_operation({"status": "DONE", "httpErrorStatusCode": 403}), "failed"),
        (compute_operation({"status": "DONE"}), "succeeded"),
        (gke_operation({"status": "DONE", "statusMessage": "Insufficient quota"}), "failed"),
        (gke_operation({"status": "RUNNING", "error": {"code": 9, "message": "x"}}), "failed"),
        (longrunning_operation({"name": "op"}), "running"),
        (longrunning_operation({"name": "op", "done": True, "error": {"code": 9}}), "failed"),
        (longrunning_operation({"done": True, "error": {"code": 0}, "response": {}}), "succeeded"),
    ],
)
def test_the_verdict_of_each_shape(state, expected):
    assert operations.verdict(state) == expected


def test_a_longrunning_error_is_named_by_its_rpc_code():
    state = longrunning_operation(
        {"name": "op", "done": True, "error": {"code": 9, "message": "m"}}
    )
    assert state.error == "FAILED_PRECONDITION: m"


def _polls(*states: OperationState):
    seen: list[OperationState] = []
    queue = list(states)

    def poll() -> OperationState:
        seen.append(queue[0] if len(queue) == 1 else queue.pop(0))
        return seen[-1]

    return poll, seen


RUNNING = OperationState("op-1", False, "", "RUNNING")
DONE = OperationState("op-1", True, "", "DONE")
FAILED = OperationState("op-1", True, "QUOTA: no", "DONE")


def _within(time: FakeClock, seconds: float):
    return clock.within(clock.Deadline(time, time.now() + seconds))


def test_polls_at_once_then_backs_off_to_ten_seconds():
    time = FakeClock()
    poll, seen = _polls(*[RUNNING] * 6, DONE)
    with _within(time, 600):
        assert operations.wait("w", poll, cap=600) == DONE
    assert len(seen) == 7
    assert time.slept == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_a_state_the_write_answered_with_is_read_again_at_once():
    time = FakeClock()
    poll, seen = _polls(RUNNING, DONE)
    with _within(time, 600):
        operations.wait("w", poll, cap=600, first=RUNNING)
    assert time.slept == [1.0] and len(seen) == 2


def test_a_failed_operation_raises_operation_failed_naming_its_error():
    time = FakeClock()
    poll, _ = _polls(RUNNING, FAILED)
    with _within(time, 600), pytest.raises(ports.OperationFailed, match="op-1 failed: QUOTA: no"):
        operations.wait("compute stop", poll, cap=600)


@pytest.mark.parametrize(("cap", "budget"), [(20, 600), (600, 20)])
def test_still_running_at_the_cap_or_the_deadline_is_out_of_time_never_done(cap, budget):
    time = FakeClock()
    poll, seen = _polls(RUNNING)
    with _within(time, budget), pytest.raises(clock.OutOfTime, match="still RUNNING"):
        operations.wait("w", poll, cap=cap)
    assert sum(time.slept) <= 20
    assert sum(time.slept) >= 20 - operations.MAX_PAUSE_SECONDS
    assert len(seen) == len(time.slept) + 1


def test_the_deadline_is_fixed_when_the_wait_starts():
    # Time spent inside polls counts: a slow API does not stretch the wait.
    time = FakeClock()

    def slow_poll() -> OperationState:
        time.advance(5)
        return RUNNING

    with _within(time, 600), pytest.raises(clock.OutOfTime):
        operations.wait("w", slow_poll, cap=30)
    assert time.now() - 1000.0 <= 30 + 5
