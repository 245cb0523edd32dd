"""What a run under mocks skips, and that it records the same without it.

governance/review/offline.py: the Pulumi SDK's per-registration stack walk (a sixth of a plan,
more under a deep caller such as pytest; the mock monitor never reads what it produces) is off
for the run only, and the threads that answer the monitor's calls are started once per process,
not once per run.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pulumi
import pulumi.runtime.resource
import pytest

from governance.review import offline
from governance.review.offline import STACK_TRACE_HOOK, GcpMocks, run_under_mocks


def _build() -> None:
    # a parent with children, an output another resource reads, and a custom resource
    parent = pulumi.ComponentResource("mlgov:index:Test", "parent")
    bucket = pulumi.CustomResource(
        "gcp:storage/bucket:Bucket",
        "data",
        {"name": "acme-data", "location": "EU"},
        opts=pulumi.ResourceOptions(parent=parent),
    )
    pulumi.CustomResource(
        "gcp:pubsub/topic:Topic",
        "events",
        {"name": bucket.id.apply(lambda i: f"events-{i.rsplit('/', 1)[-1]}")},
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[bucket]),
    )


CONFIG = {"gcp:project": "acme-ml-test"}


def test_the_sdk_still_has_the_walk_it_skips() -> None:
    # If an SDK upgrade renames it, no_stack_traces replaces nothing and plans silently slow
    # down again: this says so.
    assert callable(getattr(pulumi.runtime.resource, STACK_TRACE_HOOK, None))


def test_no_registration_walks_the_stack_and_the_walk_is_back_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walks: list[int] = []
    sdk = getattr(pulumi.runtime.resource, STACK_TRACE_HOOK)

    def counting() -> Any:
        walks.append(1)
        return sdk()

    monkeypatch.setattr(pulumi.runtime.resource, STACK_TRACE_HOOK, counting)
    recorded = run_under_mocks(_build, CONFIG)
    assert [r.name for r in recorded] == ["parent", "data", "events"]
    assert walks == []
    # restored for whatever runs next in the process (a real engine reads the trace)
    assert getattr(pulumi.runtime.resource, STACK_TRACE_HOOK) is counting


def test_the_walk_is_back_when_the_program_raises() -> None:
    sdk = getattr(pulumi.runtime.resource, STACK_TRACE_HOOK)

    def failing() -> None:
        _build()
        raise RuntimeError("the program failed")

    with pytest.raises(RuntimeError, match="the program failed"):
        run_under_mocks(failing, CONFIG)
    assert getattr(pulumi.runtime.resource, STACK_TRACE_HOOK) is sdk


def test_the_recorded_resources_are_the_same_with_the_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = run_under_mocks(_build, CONFIG)
    monkeypatch.setattr(offline, "no_stack_traces", contextlib.nullcontext)
    with_walk = run_under_mocks(_build, CONFIG)
    assert with_walk == without
    assert [r.inputs.get("name") for r in without] == [None, "acme-data", "events-data"]


def test_every_run_answers_the_monitor_on_the_same_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    answered_on: list[set[int]] = []
    record = GcpMocks.new_resource

    def new_resource(self: GcpMocks, args: Any) -> Any:
        answered_on[-1].add(threading.get_ident())
        assert threading.current_thread().name.startswith("mlgov-mock-monitor")
        return record(self, args)

    monkeypatch.setattr(GcpMocks, "new_resource", new_resource)
    # Threads other tests left in this worker (daemon servers) may end while this runs, so the
    # count is of threads that were not there before the first run.
    before = set(threading.enumerate())
    started: list[int] = []
    for _ in range(4):
        answered_on.append(set())
        assert [r.name for r in run_under_mocks(_build, CONFIG)] == ["parent", "data", "events"]
        started.append(len(set(threading.enumerate()) - before))
    used = set[int]().union(*answered_on)
    # at most the pool's threads, whichever run started them, and none left over per run
    assert 1 <= len(used) <= offline.MONITOR_THREADS._max_workers  # pyright: ignore[reportPrivateUsage]
    assert started[-1] == started[1], started
