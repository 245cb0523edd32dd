"""Disk model: provisioned GiB x the disk type's price, defaults as Compute Engine's."""

from __future__ import annotations

import pytest

from tests.costs.cost_plans import one, partial, price


def disk(**inputs: object) -> dict[str, object]:
    return {"type": "gcp:compute/disk:Disk", "name": "scratch",
            "inputs": {"zone": "europe-west4-a", **inputs}}  # fmt: skip


def test_ssd_disk_in_its_zones_region():
    cost = one(disk(type="pd-ssd", size=500))
    assert cost.monthly_usd == pytest.approx(500 * price("disk.pd-ssd", "europe-west4"))
    assert cost.baseline_monthly_usd == cost.monthly_usd


@pytest.mark.parametrize(
    ("disk_type", "gib"),
    [("pd-standard", 500), ("pd-balanced", 100), ("pd-ssd", 100), (None, 500)],
)
def test_no_size_is_the_types_documented_default(disk_type, gib):
    # gcloud compute disks create --size: 500 GB pd-standard (the default type), 100 GB balanced/ssd
    inputs = {} if disk_type is None else {"type": disk_type}
    key = f"disk.{disk_type or 'pd-standard'}"
    assert one(disk(**inputs)).monthly_usd == pytest.approx(gib * price(key, "europe-west4"))


def image(name: str, **inputs: object) -> dict[str, object]:
    return {"type": "gcp:compute/image:Image", "name": name, "inputs": inputs}


def test_a_disk_from_an_image_in_the_plan_is_the_images_size():
    # disk.pd-standard x 30 GiB: the image's diskSizeGb (Infracost's image_disk_size case)
    cost = one(
        disk(image="projects/p/global/images/golden"), others=[image("golden", diskSizeGb=30)]
    )
    assert cost.monthly_usd == pytest.approx(30 * price("disk.pd-standard", "europe-west4"))


def test_a_disk_is_at_least_its_images_size():
    cost = one(disk(size=20, image="golden"), others=[image("golden", diskSizeGb=30)])
    assert cost.monthly_usd == pytest.approx(30 * price("disk.pd-standard", "europe-west4"))


def test_image_sizes_follow_their_sources_through_the_plan():
    # disk <- image <- snapshot <- disk of 20 GiB (Infracost's image_source_snapshot case)
    plan = [
        image("from-snap", sourceSnapshot="projects/p/global/snapshots/snap"),
        {"type": "gcp:compute/snapshot:Snapshot", "name": "snap",
         "inputs": {"sourceDisk": "base", "zone": "europe-west4-a"}},
        {"type": "gcp:compute/disk:Disk", "name": "base",
         "inputs": {"zone": "europe-west4-a", "size": 20}},
    ]  # fmt: skip
    cost = one(disk(image="from-snap"), others=plan)
    assert cost.monthly_usd == pytest.approx(20 * price("disk.pd-standard", "europe-west4"))


def test_a_disk_from_an_image_outside_the_plan_is_at_least_the_smallest_disk_and_says_why():
    # disk.pd-standard x 10 GiB (the smallest Persistent Disk), a lower bound with its reason
    cost = one(disk(image="debian-cloud/debian-12"))
    assert cost.monthly_usd == pytest.approx(10 * price("disk.pd-standard", "europe-west4"))
    assert (
        "at least 10 GiB, the smallest pd-standard disk: image debian-12 is not in the plan"
        in (cost.lines[0])
    )
    _, parts = partial(disk(type="pd-extreme", image="debian-cloud/debian-12", provisionedIops=1))
    assert parts["capacity"] == "image debian-12 is not in the plan, so its size is unknown"


def test_pd_extreme_bills_provisioned_iops():
    # Infracost's extreme_size_iops: 40 GiB x disk.pd-extreme + 5000 x disk.pd-extreme.iops
    cost = one(disk(type="pd-extreme", size=40, provisionedIops=5000, zone="us-central1-a"))
    assert cost.monthly_usd == pytest.approx(
        40 * price("disk.pd-extreme") + 5000 * price("disk.pd-extreme.iops")
    )  # $5.00 + $325.00


def test_hyperdisk_extreme_bills_provisioned_iops():
    # 128 GiB x disk.hyperdisk-extreme + 20000 x disk.hyperdisk-extreme.iops ($16 + $640)
    cost = one(disk(type="hyperdisk-extreme", size=128, provisionedIops=20000,
                    zone="us-central1-a"))  # fmt: skip
    assert cost.monthly_usd == pytest.approx(
        128 * price("disk.hyperdisk-extreme") + 20000 * price("disk.hyperdisk-extreme.iops")
    )


def test_pd_extreme_without_provisioned_iops_names_the_part():
    # the documented 1000 GB default is priced; the IOPS Compute Engine picks are not guessed
    cost, parts = partial(disk(type="pd-extreme", zone="us-central1-a"))
    assert cost.monthly_usd == pytest.approx(1000 * price("disk.pd-extreme"))
    assert "provisionedIops is not set" in parts["provisioned IOPS"]


def test_hyperdisk_extreme_without_a_size_is_its_documented_1_tib_default():
    # Google: "The default size is 1 TiB"; the IOPS Compute Engine then picks are not guessed
    cost, parts = partial(disk(type="hyperdisk-extreme", zone="us-central1-a"))
    assert cost.monthly_usd == pytest.approx(1024 * price("disk.hyperdisk-extreme"))
    assert "provisionedIops is not set" in parts["provisioned IOPS"]
    assert "capacity" not in parts


def test_hyperdisk_without_a_size_or_catalog_price_is_named_not_guessed():
    _, parts = partial(disk(type="hyperdisk-throughput", zone="us-central1-a"))
    assert parts["capacity"] == "no size, and no documented default size for hyperdisk-throughput"
    _, parts = partial(disk(type="hyperdisk-balanced", size=100, zone="us-central1-a"))
    assert "no ondemand price 'disk.hyperdisk-balanced'" in parts["capacity"]


def test_regional_disk_bills_the_replicated_price():
    cost = one({"type": "gcp:compute/regionDisk:RegionDisk", "name": "r",
                "inputs": {"region": "europe-west4", "type": "pd-ssd", "size": 50}})  # fmt: skip
    assert cost.monthly_usd == pytest.approx(50 * price("disk.regional.pd-ssd", "europe-west4"))
