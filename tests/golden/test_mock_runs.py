"""What a run under mocks skips, and that it records the same without it.

governance/review/offline.py: the Pulumi SDK's per-registration stack walk (a sixth of a plan,
more under a deep caller such as pytest; the mock monitor never reads what it produces) and its
debug messages (dropped by the engine logger unless it is enabled for DEBUG) are off for the run
only, the threads that answer the monitor's calls are started once per process, not once per
run, and the SDK lets go of the run's resources when it ends.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import threading
import weakref
from typing import Any

import pulumi
import pulumi.log
import pulumi.runtime.resource
import pulumi.runtime.settings
import pytest

from governance.review import offline
from governance.review.offline import (
    DEBUG_HOOK,
    ENGINE_LOG,
    STACK_TRACE_HOOK,
    GcpMocks,
    run_under_mocks,
)


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


@pytest.mark.parametrize(
    "skipped_work",
    ["no_stack_traces", "no_unread_debug_messages"],  # the walk; the debug messages
)
def test_the_recorded_resources_are_the_same_with_the_work_a_run_skips(
    monkeypatch: pytest.MonkeyPatch, skipped_work: str
) -> None:
    without = run_under_mocks(_build, CONFIG)
    monkeypatch.setattr(offline, skipped_work, contextlib.nullcontext)
    with_it = run_under_mocks(_build, CONFIG)
    assert with_it == without
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


def test_the_sdk_still_has_the_debug_log_it_skips() -> None:
    # If an SDK upgrade renames it, no_unread_debug_messages replaces nothing: this says so.
    assert callable(getattr(pulumi.log, DEBUG_HOOK, None))


def _counting_debug(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], Any]:
    messages: list[str] = []
    sdk = getattr(pulumi.log, DEBUG_HOOK)

    def counting(msg: str, *args: Any, **kwargs: Any) -> None:
        messages.append(msg)
        sdk(msg, *args, **kwargs)

    monkeypatch.setattr(pulumi.log, DEBUG_HOOK, counting)
    return messages, counting


def test_no_debug_message_is_built_while_nothing_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    messages, counting = _counting_debug(monkeypatch)
    assert not ENGINE_LOG.isEnabledFor(logging.DEBUG)
    assert [r.name for r in run_under_mocks(_build, CONFIG)] == ["parent", "data", "events"]
    assert messages == []
    # restored for whatever runs next in the process
    assert getattr(pulumi.log, DEBUG_HOOK) is counting


def test_debug_messages_reach_an_engine_logger_enabled_for_debug(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    messages, _ = _counting_debug(monkeypatch)
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    monkeypatch.setattr(ENGINE_LOG, "level", logging.DEBUG)
    ENGINE_LOG.manager._clear_cache()  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
    ENGINE_LOG.addHandler(handler)
    try:
        run_under_mocks(_build, CONFIG)
    finally:
        ENGINE_LOG.removeHandler(handler)
        monkeypatch.undo()
        ENGINE_LOG.manager._clear_cache()  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
    assert messages, "the SDK sent no debug message"
    debug = [r.getMessage() for r in records if r.levelno == logging.DEBUG]
    assert debug and set(debug) <= set(messages), (debug[:3], messages[:3])


def test_the_sdk_lets_go_of_the_run_when_it_ends() -> None:
    made: list[weakref.ref[pulumi.Resource]] = []

    def build() -> None:
        _build()
        made.append(weakref.ref(pulumi.CustomResource("gcp:storage/bucket:Bucket", "kept", {})))

    run_under_mocks(build, CONFIG)
    # The root stack (and through it every resource, output and task of the run) is not kept
    # until the next run: the collection after this one can free it while it is young.
    assert pulumi.runtime.settings.get_root_resource() is None
    gc.collect()
    assert made[0]() is None
