"""Disk model: provisioned GiB x the disk type's price, defaults as Compute Engine's."""

from __future__ import annotations

import pytest

from tests.costs.cost_plans import one, price


def disk(**inputs: object) -> dict[str, object]:
    return {"type": "gcp:compute/disk:Disk", "name": "scratch",
            "inputs": {"zone": "europe-west4-a", **inputs}}  # fmt: skip


def test_ssd_disk_in_its_zones_region():
    cost = one(disk(type="pd-ssd", size=500))
    assert cost.monthly_usd == pytest.approx(500 * price("disk.pd-ssd", "europe-west4"))
    assert cost.baseline_monthly_usd == cost.monthly_usd


def test_defaults_are_ten_gib_pd_standard():
    assert one(disk()).monthly_usd == pytest.approx(10 * price("disk.pd-standard", "europe-west4"))
