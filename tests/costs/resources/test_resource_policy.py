"""Resource policies: free, but a snapshot schedule's snapshots bill stored GiB."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import one, price, usage_lines

SCHEDULE = {
    "type": "gcp:compute/resourcePolicy:ResourcePolicy",
    "name": "nightly",
    "inputs": {
        "name": "nightly",
        "region": "us-central1",
        "snapshotSchedulePolicy": {
            "schedule": {"dailySchedule": {"daysInCycle": 1, "startTime": "04:00"}},
            "retentionPolicy": {"maxRetentionDays": 14},
        },
    },
}


def test_an_instance_schedule_is_free_and_says_so():
    policy = {**SCHEDULE, "inputs": {"name": "office-hours", "region": "us-central1",
                                     "instanceSchedulePolicy": {"timeZone": "UTC"}}}  # fmt: skip
    cost = one(policy)
    assert cost.priced and cost.monthly_usd == 0
    assert cost.lines[0].startswith("$0.00: instance schedules")


def test_a_snapshot_schedules_snapshots_depend_on_usage_at_the_nearest_multi_region():
    cost = one(SCHEDULE)
    assert cost.monthly_usd == 0
    assert usage_lines(cost) == {"snapshots": "storage_gib"}
    line = next(x for x in cost.cost_lines if x.what == "snapshots")
    # a snapshot that names no location goes to the multi-region nearest its disk: us
    assert (line.key, line.region, line.unit_usd) == ("disk.snapshot", "us", price(
        "disk.snapshot", "us"))  # fmt: skip
    assert any("each kept 14 days" in text for text in cost.lines)


def test_declared_snapshot_storage_is_priced_where_the_policy_stores_it():
    policy = {**SCHEDULE, "inputs": {**SCHEDULE["inputs"], "snapshotSchedulePolicy": {
        **SCHEDULE["inputs"]["snapshotSchedulePolicy"],
        "snapshotProperties": {"storageLocations": ["europe-west4"]}}}}  # fmt: skip
    declared = parse_usage_file({"resource_usage": {"nightly": {"storage_gib": 300}}})
    cost = estimate_resources([policy], usage_file=declared).get("nightly")
    assert cost.monthly_usd == pytest.approx(300 * price("disk.snapshot", "europe-west4"))
    assert cost.baseline_monthly_usd == cost.monthly_usd
