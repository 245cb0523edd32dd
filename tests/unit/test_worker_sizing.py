"""The worker's size follows from the simulation's finding: a slot for every project at once."""

from __future__ import annotations

import math

import pytest

from governance.components.worker_sizing import ACK_DEADLINE_S, MAX_INSTANCES, worker_size


def test_the_documented_case():
    size = worker_size()
    # ceil(10,000 x 1.25) = 12,500 slots, 80 per instance
    assert (size.instances, size.concurrency) == (157, 80)
    assert size.timeout_seconds == 540 < ACK_DEADLINE_S
    assert size.time_budget_seconds == 480


@pytest.mark.parametrize("projects", [1, 79, 100, 2_000, 10_000, 50_000])
def test_every_project_of_a_burst_finds_a_slot(projects: int):
    size = worker_size(projects=projects)
    assert size.instances * size.concurrency >= projects * 1.25
    # ...and no more instances than that takes (one partly filled at most).
    assert (size.instances - 1) * size.concurrency < math.ceil(projects * 1.25)


def test_a_small_organization_runs_in_one_instance():
    size = worker_size(projects=40)
    assert (size.instances, size.concurrency) == (1, 50)


def test_fewer_items_per_instance_take_more_instances():
    assert worker_size(items_per_instance=250).instances == 50  # the simulation's 50 x 250
    assert worker_size(items_per_instance=40).instances > worker_size().instances


def test_a_large_organization_packs_more_items_per_instance_within_the_pacing_bound():
    # Each worker paces itself to floor(975 x 0.5 / instances) Cloud Billing calls a minute:
    # 782 instances x 80 (the plain rule at 50,000 projects) would leave each none.
    size = worker_size(projects=50_000)
    assert size.instances <= MAX_INSTANCES
    assert math.floor(975 * 0.5 / size.instances) >= 1
    assert (size.instances, size.concurrency) == (485, 129)
    assert size.instances * size.concurrency >= 62_500
