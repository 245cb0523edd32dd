"""The worker's size follows from the quotas: the arithmetic its docstring shows, and its bounds."""

from __future__ import annotations

import math

import pytest

from governance.components.worker_sizing import (
    ACK_DEADLINE_S,
    ORG_QUOTA_PER_MIN,
    QUOTA_SHARE,
    worker_size,
)


def test_the_documented_case():
    size = worker_size()
    # ceil(10,000 x 10 / 60) = 1,667 items at once, 16 per instance
    assert (size.instances, size.concurrency) == (105, 16)
    assert size.timeout_seconds == 540 < ACK_DEADLINE_S
    assert size.time_budget_seconds == 480


def test_the_org_quota_caps_the_items_in_flight_at_any_size():
    # 50% x 975/min x 8 min / 2 calls = 1,950 items at once, however many projects
    for projects in (50_000, 1_000_000):
        size = worker_size(projects=projects)
        assert size.instances * size.concurrency <= 1_950
        assert (size.instances, size.concurrency) == (math.ceil(1_950 / 16), 15)


@pytest.mark.parametrize("projects", [1, 100, 2_000, 10_000, 50_000])
def test_all_workers_together_stay_under_half_of_the_quota(projects: int):
    size = worker_size(projects=projects)
    # Each process paces its org-level calls to share x quota / instances: what its items may
    # make in one item budget must cover a full instance of unlinking items (2 calls each).
    per_instance = (
        QUOTA_SHARE * ORG_QUOTA_PER_MIN * (size.time_budget_seconds / 60) / size.instances
    )
    assert size.concurrency * 2 <= per_instance
    assert size.instances >= 1 and size.concurrency >= 1


def test_a_slower_item_needs_more_instances():
    assert worker_size(item_issue_s=5).instances < worker_size().instances
