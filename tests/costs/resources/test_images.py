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


def test_snapshot_is_at_most_its_source_disk():
    # disk.snapshot[us-central1] x 100 GiB: the source disk's size, an upper bound
    cost = one(snapshot(), others=[DISK])
    assert cost.monthly_usd == pytest.approx(100 * price("disk.snapshot"))
    assert "at most sourceDisk data is 100 GiB" in cost.lines[0]


def test_archive_snapshot_uses_the_archive_price():
    cost = one(snapshot(snapshotType="ARCHIVE"), others=[DISK])
    assert cost.monthly_usd == pytest.approx(100 * price("disk.snapshot.archive"))


def test_declared_storage_wins_and_unknown_size_depends_on_usage():
    declared = parse_usage_file({"resource_usage": {"snap": {"storage_gib": 12}}})
    report = estimate_resources([snapshot(), DISK], USAGE, usage_file=declared)
    assert report.get("snap").monthly_usd == pytest.approx(12 * price("disk.snapshot"))
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
