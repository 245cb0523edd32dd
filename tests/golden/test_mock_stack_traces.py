"""A run under mocks skips the Pulumi SDK's per-registration stack walk and records the same.

The walk is a sixth of a plan (more under a deep caller such as pytest), and the mock monitor
never reads what it produces; governance/review/offline.py (`no_stack_traces`) turns it off
for the run only.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pulumi
import pulumi.runtime.resource
import pytest

from governance.review import offline
from governance.review.offline import STACK_TRACE_HOOK, run_under_mocks


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
