"""Disk model: provisioned GiB x the disk type's price, defaults as Compute Engine's."""

from __future__ import annotations

import pytest

from governance.costs.estimate import CostReport
from governance.costs.findings import cost_findings
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
    _, parts = partial(
        disk(type="pd-extreme", image="debian-cloud/debian-12", provisionedIops=5000)
    )
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


def test_pd_extreme_without_provisioned_iops_is_compute_engines_default():
    # Infracost's extreme_default: 1000 GiB x disk.pd-extreme + 100,000 x disk.pd-extreme.iops
    # ($125.00 + $6,500.00): the gcloud reference's "If not specified, the default value is
    # 100000", and the line says it is the default
    cost = one(disk(type="pd-extreme", zone="us-central1-a"))
    assert cost.monthly_usd == pytest.approx(
        1000 * price("disk.pd-extreme") + 100_000 * price("disk.pd-extreme.iops")
    )
    assert cost.monthly_usd == pytest.approx(6625.0)
    assert cost.unpriced_parts == ()
    (line,) = [x for x in cost.cost_lines if x.what == "provisioned IOPS" and x.bill == "governed"]
    assert (line.quantity, line.key, line.unit_usd) == (100_000, "disk.pd-extreme.iops", 0.065)
    assert "no provisionedIops: Compute Engine's default for pd-extreme" in line.detail
    assert "'If not specified, the default value is 100000'" in line.detail


@pytest.mark.parametrize("unset", [0, "0", None])
def test_pd_extreme_iops_of_zero_is_not_set(unset):
    # pulumi-gcp sends no empty value, so 0 takes Compute Engine's default too
    inputs = {} if unset is None else {"provisionedIops": unset}
    cost = one(disk(type="pd-extreme", size=500, zone="us-central1-a", **inputs))
    assert cost.monthly_usd == pytest.approx(
        500 * price("disk.pd-extreme") + 100_000 * price("disk.pd-extreme.iops")
    )


def test_iops_known_only_at_apply_is_named_not_defaulted():
    cost, parts = partial(disk(type="pd-extreme", size=500, zone="us-central1-a",
                               provisionedIops="04da6b54-80e4-46f7-96ec-b56ff0331ba9"))  # fmt: skip
    assert cost.monthly_usd == pytest.approx(500 * price("disk.pd-extreme"))
    assert parts == {"provisioned IOPS": "provisionedIops is not known until the disk is created"}


def test_hyperdisk_extreme_without_a_size_is_its_documented_1_tib_default():
    # Google: "The default size is 1 TiB"; the IOPS Compute Engine then picks are in a section no
    # source this estimate reads reaches, so they are named, not guessed
    cost, parts = partial(disk(type="hyperdisk-extreme", zone="us-central1-a"))
    assert cost.monthly_usd == pytest.approx(1024 * price("disk.hyperdisk-extreme"))
    assert cost.monthly_usd == pytest.approx(128.0)
    assert parts == {
        "provisioned IOPS": "provisionedIops is not set: Compute Engine applies "
        "hyperdisk-extreme's default IOPS ('Default IOPS and throughput values'), which no "
        "source this estimate reads states"
    }


def test_hyperdisk_without_a_catalog_price_is_named_not_guessed():
    # Hyperdisk Throughput: "The default size is 2 TiB"; the catalog prices no Hyperdisk
    # Throughput, Balanced or ML capacity, IOPS or throughput yet: each part is named
    _, parts = partial(disk(type="hyperdisk-throughput", zone="us-central1-a"))
    assert "no ondemand price 'disk.hyperdisk-throughput'" in parts["capacity"]
    assert parts["provisioned throughput"].startswith(
        "provisionedThroughput is not set: Compute Engine applies hyperdisk-throughput's default"
    )
    _, parts = partial(disk(type="hyperdisk-ml", zone="us-central1-a"))
    assert parts["capacity"] == "no size, and no documented default size for hyperdisk-ml"
    _, parts = partial(disk(type="hyperdisk-balanced", size=100, provisionedIops=3000,
                            provisionedThroughput=140, zone="us-central1-a"))  # fmt: skip
    assert "no ondemand price 'disk.hyperdisk-balanced'" in parts["capacity"]
    assert "no ondemand price 'disk.hyperdisk-balanced.iops'" in parts["provisioned IOPS"]
    assert parts["provisioned throughput"] == (
        "the price catalog has no hyperdisk-balanced throughput price"
    )


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"type": "pd-extreme", "provisionedIops": -5},
         "provisionedIops is -5: Compute Engine refuses a negative value"),
        ({"type": "pd-ssd", "size": 10, "provisionedThroughput": -1},
         "provisionedThroughput is -1: Compute Engine refuses a negative value"),
        ({"type": "pd-extreme", "provisionedIops": 2000},
         "provisionedIops is 2,000: Compute Engine accepts 2,500 to 120,000 IOPS for pd-extreme "
         "(https://cloud.google.com/compute/docs/disks/extreme-persistent-disk)"),
        ({"type": "pd-extreme", "provisionedIops": 120_001},
         "provisionedIops is 120,001: Compute Engine accepts 2,500 to 120,000 IOPS"),
        # 2 to 1,200 IOPS per GiB: a 128 GiB volume takes 256 to 153,600
        ({"type": "hyperdisk-extreme", "size": 128, "provisionedIops": 200_000},
         "provisionedIops is 200,000: Compute Engine accepts 256 to 153,600 IOPS for "
         "hyperdisk-extreme at 128 GiB (2 to 1,200 per GiB, 128 to 350,000 in all) "
         "(https://cloud.google.com/compute/docs/disks/hd-types/hyperdisk-extreme)"),
        ({"type": "hyperdisk-extreme", "size": 1000, "provisionedIops": 1000},
         "provisionedIops is 1,000: Compute Engine accepts 2,000 to 350,000 IOPS"),
        ({"type": "hyperdisk-extreme", "provisionedIops": 20000},
         "provisionedIops is set without a size: Compute Engine refuses an IOPS level for a "
         "hyperdisk-extreme volume created without one"),
        ({"type": "hyperdisk-extreme", "size": 128, "provisionedThroughput": 500},
         "provisionedThroughput is 500: Compute Engine refuses a throughput level for "
         "hyperdisk-extreme"),
    ],
)  # fmt: skip
def test_performance_compute_engine_refuses_is_a_mandatory_finding(inputs, message):
    cost = one(disk(zone="us-central1-a", **inputs))
    assert cost.refused and not cost.priced and cost.monthly_usd == 0
    assert message in cost.unpriced
    (found,) = cost_findings(CostReport([cost]))
    assert (found["policy"], found["enforcement"]) == ("mlgov-cost-input-refused", "mandatory")
    assert message in found["message"]


def test_the_documented_range_ends_are_accepted():
    for kind, size, iops in (
        ("pd-extreme", 10, 2500),
        ("pd-extreme", 10, 120_000),
        ("hyperdisk-extreme", 64, 128),
        ("hyperdisk-extreme", 300, 350_000),
    ):
        cost = one(disk(type=kind, size=size, provisionedIops=iops, zone="us-central1-a"))
        assert cost.monthly_usd == pytest.approx(
            size * price(f"disk.{kind}") + iops * price(f"disk.{kind}.iops")
        ), (kind, size, iops)  # fmt: skip


def test_iops_that_is_not_a_number_is_unpriced_not_defaulted():
    cost = one(disk(type="pd-extreme", provisionedIops="lots", zone="us-central1-a"))
    assert cost.unpriced == "provisionedIops is 'lots', not a number" and not cost.refused


def test_regional_disk_bills_the_replicated_price():
    cost = one({"type": "gcp:compute/regionDisk:RegionDisk", "name": "r",
                "inputs": {"region": "europe-west4", "type": "pd-ssd", "size": 50}})  # fmt: skip
    assert cost.monthly_usd == pytest.approx(50 * price("disk.regional.pd-ssd", "europe-west4"))
