"""Compute instance model: spot and maxRunDuration bound a standalone GPU VM's bill."""

from __future__ import annotations

import copy

import pytest

from tests.costs.cost_plans import full_plan, one, partial, price, usage_lines

VM = next(r for r in full_plan() if r["name"] == "gpu-vm")  # g2-standard-8 (1 L4), spot, 8 h runs
DISK = 200 * price("disk.pd-balanced")


def hourly(usage: str) -> float:
    """g2-standard-8: its own catalog price (8 vCPU, 32 GiB and the built-in L4)."""
    return price("gce.type.g2-standard-8", usage=usage)


def test_spot_vm_with_max_run_duration():
    cost = one(VM)
    hours = 22 * 8  # 22 runs x 8 h maxRunDuration, under gpu_vm_hours_per_month (730)
    assert cost.monthly_usd == pytest.approx(hours * hourly("spot") + DISK)
    assert cost.baseline_monthly_usd == pytest.approx(
        730 * hourly("ondemand") + DISK
    )  # no SUD on G2
    assert "maxRunDuration 8 h x 22 runs/month, capped at 730 h -> 176 h" in cost.lines
    assert "g2-standard-8 has built-in GPUs; listed accelerators not added again" in cost.lines


def test_without_max_run_duration_it_runs_all_month():
    vm = copy.deepcopy(VM)
    del vm["inputs"]["scheduling"]["maxRunDuration"]
    assert one(vm).monthly_usd == pytest.approx(730 * hourly("spot") + DISK)


def test_on_demand_scheduling_uses_on_demand_prices():
    vm = copy.deepcopy(VM)
    vm["inputs"]["scheduling"] = {
        "provisioningModel": "STANDARD",
        "maxRunDuration": {"seconds": 28800},
    }
    assert one(vm).monthly_usd == pytest.approx(176 * hourly("ondemand") + DISK)


def test_local_ssd_scratch_disk_is_billed_all_month_unless_stopping_discards_it():
    # disk.local-ssd (spot) x 375 GiB: a stopped VM keeps its local SSD and pays for it
    vm = copy.deepcopy(VM)
    vm["inputs"]["scratchDisks"] = [{"interface": "NVME"}]
    ssd = 375 * price("disk.local-ssd", usage="spot")
    assert one(vm).monthly_usd == pytest.approx(176 * hourly("spot") + DISK + ssd)
    assert one(vm).baseline_monthly_usd == pytest.approx(
        730 * hourly("ondemand") + DISK + 375 * price("disk.local-ssd")
    )
    # onInstanceStopAction.discardLocalSsd: only for the 176 h it runs
    vm["inputs"]["scheduling"]["onInstanceStopAction"] = {"discardLocalSsd": True}
    assert one(vm).monthly_usd == pytest.approx(176 * hourly("spot") + DISK + ssd * 176 / 730)


def test_an_ephemeral_external_ip_is_billed_while_the_vm_runs():
    # network.ip.spot_vm ($/hour) x 176 h: a spot VM's in-use external IP
    vm = copy.deepcopy(VM)
    vm["inputs"]["networkInterfaces"] = [{"network": "default", "accessConfigs": [{}]}]
    ip = 176 * price("network.ip.spot_vm")
    assert one(vm).monthly_usd == pytest.approx(176 * hourly("spot") + DISK + ip)


def test_a_retired_gpu_prices_the_rest_of_the_vm_and_names_the_gpu():
    # n1-standard-8 with 2 K80s: gce.type.n1-standard-8 (spot) x 176 h + disk; the K80s unpriced
    vm = copy.deepcopy(VM)
    vm["inputs"]["machineType"] = "n1-standard-8"
    vm["inputs"]["guestAccelerators"] = [{"type": "nvidia-tesla-k80", "count": 2}]
    cost, parts = partial(vm)
    spot = price("gce.type.n1-standard-8", usage="spot")
    assert cost.monthly_usd == pytest.approx(176 * spot + DISK)
    assert parts == {
        "GPU 2 x nvidia-tesla-k80": "the price catalog has no price for GPU nvidia-tesla-k80 "
        "(retired or unknown model)"
    }


def test_an_a100_attached_to_n1_is_named_not_priced():
    vm = copy.deepcopy(VM)
    vm["inputs"]["machineType"] = "n1-standard-8"
    vm["inputs"]["guestAccelerators"] = [{"type": "nvidia-tesla-a100", "count": 1}]
    cost, parts = partial(vm)
    assert cost.monthly_usd == pytest.approx(
        176 * price("gce.type.n1-standard-8", usage="spot") + DISK
    )
    assert (
        "attaches only as part of its accelerator-optimized machine types"
        in (parts["GPU 1 x nvidia-tesla-a100"])
    )


def test_boot_disk_without_size_is_at_least_the_smallest_disk_and_says_why():
    # an image outside the plan: 10 GiB (the smallest Persistent Disk), with the reason
    vm = copy.deepcopy(VM)
    vm["inputs"]["bootDisk"] = {"initializeParams": {"image": "debian-cloud/debian-12"}}
    cost = one(vm)
    assert cost.baseline_monthly_usd == pytest.approx(
        730 * hourly("ondemand") + 10 * price("disk.pd-standard")
    )
    assert any(
        "image debian-12's size is unknown here: at least 10 GiB" in line for line in cost.lines
    )


def test_boot_disk_without_size_or_image_says_so_plainly():
    # no bootDisk at all: the line names the missing size and image, not "no image's size"
    vm = copy.deepcopy(VM)
    vm["inputs"].pop("bootDisk", None)
    cost = one(vm)
    assert any(
        "no size and no image: at least 10 GiB, the smallest Persistent Disk" in line
        for line in cost.lines
    )
    assert not any("no image's" in line for line in cost.lines)


def test_boot_disk_from_an_image_in_the_plan_is_the_image_size():
    vm = copy.deepcopy(VM)
    vm["inputs"]["bootDisk"] = {"initializeParams": {"image": "projects/p/global/images/golden"}}
    image = {"type": "gcp:compute/image:Image", "name": "golden", "inputs": {"diskSizeGb": 50}}
    cost = one(vm, others=[image])
    assert cost.baseline_monthly_usd == pytest.approx(
        730 * hourly("ondemand") + 50 * price("disk.pd-standard")
    )


def test_egress_depends_on_usage_unless_declared():
    assert usage_lines(one(VM)) == {
        "internet egress": "monthly_egress_gb",
        "internet egress to China": "monthly_egress_china_gb",
        "internet egress to Australia": "monthly_egress_australia_gb",
    }


def extreme_vm(**params: object) -> dict[str, object]:
    """An on-demand n2-standard-64 booting from a 500 GiB pd-extreme disk."""
    return {"type": "gcp:compute/instance:Instance", "name": "db",
            "inputs": {"zone": "us-central1-a", "machineType": "n2-standard-64",
                       "bootDisk": {"initializeParams": {"type": "pd-extreme", "size": 500,
                                                         **params}}}}  # fmt: skip


def iops_lines(cost) -> list[tuple[float, str]]:
    return [(x.quantity, x.detail) for x in cost.cost_lines
            if x.bill == "governed" and x.what == "boot disk: provisioned IOPS"]  # fmt: skip


def test_a_boot_disks_provisioned_iops_are_billed_and_default_when_unset():
    # bootDisk.initializeParams.provisionedIops x disk.pd-extreme.iops, all month like the disk
    set_ = one(extreme_vm(provisionedIops=20_000))
    unset = one(extreme_vm())
    assert iops_lines(set_) == [(20_000, "20000 IOPS")]
    assert unset.monthly_usd - set_.monthly_usd == pytest.approx(
        80_000 * price("disk.pd-extreme.iops")
    )  # the default 100,000 IOPS instead of 20,000: $5,200 more
    ((qty, detail),) = iops_lines(unset)
    assert qty == 100_000
    assert detail.startswith(
        "100000 IOPS (no bootDisk.initializeParams.provisionedIops: Compute Engine's default "
        "for pd-extreme"
    )


def test_a_boot_disk_iops_compute_engine_refuses_names_its_key_path():
    cost = one(extreme_vm(provisionedIops=500_000))
    assert cost.refused and not cost.priced
    assert cost.unpriced.startswith(
        "bootDisk.initializeParams.provisionedIops is 500,000: Compute Engine accepts 2,500 to "
        "120,000 IOPS for pd-extreme"
    )


@pytest.mark.parametrize(
    ("image", "product"),
    [
        ("windows-cloud/windows-2022", "Windows Server"),
        ("projects/rhel-cloud/global/images/family/rhel-9", "Red Hat Enterprise Linux"),
        ("https://www.googleapis.com/compute/v1/projects/suse-sap-cloud/global/images/x",
         "SLES for SAP"),
    ],
)  # fmt: skip
def test_a_premium_boot_image_names_its_license_as_an_unpriced_part(image, product):
    vm = copy.deepcopy(VM)
    vm["inputs"]["bootDisk"] = {"initializeParams": {"image": image, "size": 200,
                                                     "type": "pd-balanced"}}  # fmt: skip
    cost = one(vm)
    # the VM and its disk are priced as before; the license is named, never a silent $0
    assert cost.monthly_usd == pytest.approx(22 * 8 * hourly("spot") + DISK)
    parts = dict(cost.unpriced_parts)
    assert list(parts) == ["image license"]
    assert parts["image license"].startswith(f"{product} image")
    assert "premiumimages" in parts["image license"]


def test_free_public_and_own_images_bill_no_license():
    for image in ("debian-cloud/debian-12", "projects/acme/global/images/golden",
                  "ubuntu-os-cloud/ubuntu-2404-lts-amd64"):  # fmt: skip
        vm = copy.deepcopy(VM)
        vm["inputs"]["bootDisk"] = {"initializeParams": {"image": image, "size": 200}}
        assert not one(vm).unpriced_parts, image
