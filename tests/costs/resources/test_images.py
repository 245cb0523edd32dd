"""Snapshots and images: stored GiB, from their source's size or a declaration, else usage."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price, usage_lines

DISK = {"type": "gcp:compute/disk:Disk", "name": "data",
        "inputs": {"zone": "us-central1-a", "size": 100}}  # fmt: skip


def snapshot(**inputs: object) -> dict[str, object]:
    return {"type": "gcp:compute/snapshot:Snapshot", "name": "snap",
            "inputs": {"sourceDisk": "data", "zone": "us-central1-a", **inputs}}  # fmt: skip


def test_snapshot_is_at_most_its_source_disk_in_the_nearest_multi_region():
    # disk.snapshot[us] x 100 GiB: the source disk's size, an upper bound, stored (no
    # storageLocations) in the multi-region nearest the disk
    cost = one(snapshot(), others=[DISK])
    assert price("disk.snapshot", "us") > price("disk.snapshot")
    assert cost.monthly_usd == pytest.approx(100 * price("disk.snapshot", "us"))
    assert "at most sourceDisk data is 100 GiB" in cost.lines[0]
    assert "disk.snapshot[us/ondemand]" in cost.lines[0]


@pytest.mark.parametrize(
    ("zone", "where"),
    [("europe-west4-a", "eu"), ("asia-east1-b", "asia"), ("australia-southeast1-a", "asia"),
     ("northamerica-northeast1-a", "us")],
)  # fmt: skip
def test_snapshot_default_location_is_the_nearest_multi_region(zone: str, where: str):
    disk = {**DISK, "inputs": {"zone": zone, "size": 10}}
    cost = one(snapshot(zone=zone), others=[disk])
    assert cost.monthly_usd == pytest.approx(10 * price("disk.snapshot", where))


def test_snapshot_storage_location_wins():
    cost = one(snapshot(storageLocations=["us-central1"]), others=[DISK])
    assert cost.monthly_usd == pytest.approx(100 * price("disk.snapshot"))


def test_archive_snapshot_uses_the_archive_price():
    cost = one(snapshot(snapshotType="ARCHIVE"), others=[DISK])
    assert cost.monthly_usd == pytest.approx(100 * price("disk.snapshot.archive"))


def test_declared_storage_wins_and_unknown_size_depends_on_usage():
    declared = parse_usage_file({"resource_usage": {"snap": {"storage_gib": 12}}})
    report = estimate_resources([snapshot(), DISK], USAGE, usage_file=declared)
    assert report.get("snap").monthly_usd == pytest.approx(12 * price("disk.snapshot", "us"))
    orphan = one(snapshot(sourceDisk="elsewhere"))
    assert orphan.monthly_usd == 0
    assert usage_lines(orphan) == {"storage": "storage_gib"}


def test_image_is_its_disk_size_gb_or_its_source_disk():
    # disk.image x GiB (the same price everywhere)
    sized = one({"type": "gcp:compute/image:Image", "name": "i", "inputs": {"diskSizeGb": 500}})
    assert sized.monthly_usd == pytest.approx(500 * price("disk.image", "global"))
    from_disk = one({"type": "gcp:compute/image:Image", "name": "i",
                     "inputs": {"sourceDisk": "data"}}, others=[DISK])  # fmt: skip
    assert from_disk.monthly_usd == pytest.approx(100 * price("disk.image", "global"))
    empty = one({"type": "gcp:compute/image:Image", "name": "i", "inputs": {}})
    assert usage_lines(empty) == {"storage": "storage_gib"}


MACHINE_IMAGE = {
    "type": "gcp:compute/machineImage:MachineImage",
    "name": "mi",
    "inputs": {"sourceInstance": "projects/p/zones/europe-west4-a/instances/vm"},
}


def test_machine_image_is_declared_storage_at_the_source_regions_snapshot_price():
    assert usage_lines(one(MACHINE_IMAGE)) == {"storage": "storage_gib"}
    declared = parse_usage_file({"resource_usage": {"mi": {"storage_gib": 200}}})
    cost = estimate_resources([MACHINE_IMAGE], USAGE, usage_file=declared).get("mi")
    assert cost.monthly_usd == pytest.approx(200 * price("disk.snapshot", "europe-west4"))
    assert any("a multi-region location costs more" in line for line in cost.lines)
