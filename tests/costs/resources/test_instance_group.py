"""Managed instance groups: targetSize VMs of their template; templates themselves are free."""

from __future__ import annotations

from typing import Any

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, partial, price, unpriced, usage_lines

TEMPLATE = {
    "type": "gcp:compute/instanceTemplate:InstanceTemplate",
    "name": "appserver",
    "inputs": {
        "name": "appserver-template",
        "machineType": "f1-micro",
        "disks": [
            {"sourceImage": "debian-cloud/debian-12", "boot": True, "diskType": "pd-ssd",
             "diskSizeGb": 375},
            {"type": "SCRATCH", "diskType": "local-ssd", "diskSizeGb": 375, "interface": "NVME"},
        ],
    },
}  # fmt: skip


def group(**inputs: object) -> dict[str, Any]:
    return {
        "type": "gcp:compute/instanceGroupManager:InstanceGroupManager",
        "name": "mig",
        "inputs": {"zone": "us-central1-a", "baseInstanceName": "app",
                   "versions": [{"instanceTemplate": "projects/p/global/instanceTemplates/"
                                 "appserver-template"}], **inputs},
    }  # fmt: skip


# one f1-micro all month: gce.shared.f1-micro with its sustained-use discount (f1 has SUD tiers)
SUD = 182.5 * sum(price(f"sud.shared.q{q}", "global") for q in (1, 2, 3, 4))
VM = SUD * price("gce.shared.f1-micro") + 375 * price("disk.pd-ssd") + 375 * price("disk.local-ssd")


def test_template_is_free_and_the_group_runs_target_size_vms():
    assert one(TEMPLATE).monthly_usd == 0
    cost = one(group(targetSize=4), others=[TEMPLATE])
    # Infracost's default case: 4 x (f1-micro + 375 GiB pd-ssd + 375 GiB local SSD)
    assert cost.monthly_usd == pytest.approx(4 * VM)
    assert cost.baseline_monthly_usd == pytest.approx(cost.monthly_usd)


def test_regional_group_and_usage_file_instances():
    regional = group(targetSize=2)
    regional["type"] = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
    regional["inputs"]["region"] = "us-central1"
    del regional["inputs"]["zone"]
    assert one(regional, others=[TEMPLATE]).monthly_usd == pytest.approx(2 * VM)
    declared = parse_usage_file({"resource_usage": {"mig": {"instances": 3}}})
    report = estimate_resources([group(targetSize=2), TEMPLATE], USAGE, usage_file=declared)
    assert report.get("mig").monthly_usd == pytest.approx(3 * VM)


def test_an_autoscaled_group_without_target_size_depends_on_usage():
    cost = one(group(), others=[TEMPLATE])
    assert cost.monthly_usd == 0
    assert usage_lines(cost)["VMs"] == "instances"


def test_a_template_outside_the_plan_cannot_be_priced():
    assert "instance template 'appserver-template' is not in the plan" in unpriced(
        group(targetSize=1)
    )


def test_a_retired_gpu_on_the_template_prices_the_rest():
    template = {**TEMPLATE, "inputs": {**TEMPLATE["inputs"],
                "guestAccelerators": [{"type": "nvidia-tesla-k80", "count": 2}]}}  # fmt: skip
    cost, parts = partial(group(targetSize=4), others=[template])
    assert cost.monthly_usd == pytest.approx(4 * VM)
    assert list(parts) == ["GPU 2 x nvidia-tesla-k80"]


def test_per_instance_configs_add_the_stateful_vms_they_name():
    # Infracost's per_instance_config case: targetSize 0 and one config: one VM of the template
    config = {"type": "gcp:compute/perInstanceConfig:PerInstanceConfig", "name": "pic",
              "inputs": {"name": "instance-1", "zone": "us-central1-a",
                         "instanceGroupManager": "mig"}}  # fmt: skip
    cost = one(group(targetSize=0, name="mig"), others=[TEMPLATE, config])
    assert cost.monthly_usd == pytest.approx(VM)
    assert one(config).monthly_usd == 0


def test_a_template_disks_provisioned_iops_are_billed_per_vm():
    # 3 VMs x (f1-micro + 375 GiB pd-ssd + 375 GiB local SSD) plus each VM's 1 TiB pd-extreme
    # data disk at its 10,000 provisioned IOPS (disks[2].provisionedIops)
    template = {**TEMPLATE, "inputs": {**TEMPLATE["inputs"], "disks": [
        *TEMPLATE["inputs"]["disks"],
        {"diskType": "pd-extreme", "diskSizeGb": 1024, "provisionedIops": 10_000},
    ]}}  # fmt: skip
    extreme = 1024 * price("disk.pd-extreme") + 10_000 * price("disk.pd-extreme.iops")
    cost = one(group(targetSize=3), others=[template])
    assert cost.monthly_usd == pytest.approx(3 * (VM + extreme))
    template["inputs"]["disks"][2]["provisionedIops"] = -1
    refused = one(group(targetSize=3), others=[template])
    assert refused.refused
    assert "disks[2].provisionedIops is -1: Compute Engine refuses a negative value" in (
        refused.unpriced
    )


def test_a_template_booting_a_premium_image_names_the_license():
    windows = {**TEMPLATE, "inputs": {**TEMPLATE["inputs"], "disks": [
        {"sourceImage": "projects/windows-cloud/global/images/family/windows-2022",
         "boot": True, "diskSizeGb": 50}]}}  # fmt: skip
    cost = estimate_resources([windows, group(targetSize=2)], USAGE).get("mig")
    assert [p for p, _ in cost.unpriced_parts] == ["image license"]
    assert cost.monthly_usd > 0
