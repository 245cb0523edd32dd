"""Workbench model: machine + GPU + management fees for the idle-shutdown hours, disks all month."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, notebook, office_hours, one, partial, price, unpriced

# n1-standard-4 (4 vCPU, 15 GiB) + 1 T4, 150 + 100 GiB pd-balanced (cost_plans.notebook)
SUD_730 = 182.5 * sum(price(f"sud.n1.q{q}", "global") for q in (1, 2, 3, 4))  # 511 h


def hourly_compute() -> float:
    return price("gce.type.n1-standard-4") + price("gpu.nvidia-tesla-t4")


def hourly_fees() -> float:
    return 4 * price("workbench.mgmt.vcpu") + price("workbench.mgmt.gpu.nvidia-tesla-t4")


DISKS = 250 * price("disk.pd-balanced")


def test_idle_shutdown_notebook_bills_active_plus_idle_hours():
    cost = one(notebook())
    hours = 88 + 22 * 1.0  # active hours + 22 sessions x 1 h idle timeout; under 182.5 h: no SUD
    assert cost.monthly_usd == pytest.approx(hours * (hourly_compute() + hourly_fees()) + DISKS)
    assert cost.baseline_monthly_usd == pytest.approx(
        SUD_730 * hourly_compute() + 730 * hourly_fees() + DISKS
    )
    text = "\n".join(cost.lines)
    assert "running 88 active h + 22 sessions x 1 h idle timeout = 110 h" in text
    assert "gce.type.n1-standard-4[us-central1/ondemand]" in text
    assert "Workbench memory fee: no documented price (workbench.mgmt.ram); not charged" in text
    assert "baseline always on: 730 h" in text


def test_longer_idle_timeout_bills_more_hours():
    cost = one(notebook(metadata={"idle-timeout-seconds": "10800"}))
    hours = 88 + 22 * 3.0
    assert cost.monthly_usd == pytest.approx(hours * (hourly_compute() + hourly_fees()) + DISKS)


def test_without_idle_timeout_it_runs_730_hours_like_the_baseline():
    cost = one(notebook(metadata={"enable-guest-attributes": "TRUE"}))
    assert cost.monthly_usd == pytest.approx(cost.baseline_monthly_usd)
    assert "no idle-timeout-seconds: runs until someone stops it (730 h)" in cost.lines


def test_office_hours_schedule_caps_the_hours():
    nb = notebook(metadata={}, acceleratorConfigs=[])
    cost = one(nb, others=office_hours(nb["inputs"]["name"]))
    window = 55 * 730 / 168  # 08:00-19:00 Mon-Fri: 239 h/month
    effective = 182.5 + (window - 182.5) * price("sud.n1.q2", "global")  # SUD past a quarter
    compute = effective * (4 * price("gce.n1.vcpu") + 15 * price("gce.n1.ram"))
    fee = window * 4 * price("workbench.mgmt.vcpu")
    assert cost.monthly_usd == pytest.approx(compute + fee + DISKS)
    assert "office-hours schedule allows 239.0 h/month" in cost.lines


def test_per_notebook_active_hours_override_by_gcp_name():
    usage = UsageAssumptions(as_of=AS_OF, notebook_active_hours={"acme-dev-nb-alice": 10})
    cost = one(notebook(), usage)
    hours = 10 + 22 * 1.0
    assert cost.monthly_usd == pytest.approx(hours * (hourly_compute() + hourly_fees()) + DISKS)


def test_unknown_machine_is_unpriced_naming_it():
    assert "unknown machine type 'n1-mega-7'" in unpriced(notebook(machineType="n1-mega-7"))


def test_a_retired_gpu_leaves_the_rest_of_the_notebook_priced():
    # a K80 (retired: no catalog price) prices the VM, disks and vCPU fee, naming the GPU
    nb = notebook(acceleratorConfigs=[{"type": "NVIDIA_TESLA_K80", "coreCount": "1"}])
    cost, parts = partial(nb)
    hours = 88 + 22 * 1.0
    fee = 4 * price("workbench.mgmt.vcpu")
    assert cost.monthly_usd == pytest.approx(
        hours * (price("gce.type.n1-standard-4") + fee) + DISKS
    )
    assert "no price for GPU nvidia-tesla-k80" in parts["GPU 1 x nvidia-tesla-k80"]
    assert "workbench.mgmt.gpu.nvidia-tesla-k80" in parts["Workbench GPU fee 1 x nvidia-tesla-k80"]


def test_machine_type_unknown_until_apply_is_unpriced_not_the_default():
    reason = unpriced(notebook(machineType="04da6b54-80e4-46f7-96ec-b56ff0331ba9"))
    assert reason.startswith("gceSetup.machineType is not known until the resource is created")


def test_a_notebook_with_a_public_ip_bills_it_for_the_hours_it_runs():
    private = one(notebook())
    public = one(notebook(disablePublicIp=False))
    line = next(x for x in public.cost_lines if x.bill == "governed" and x.what == "external IP")
    assert line.key == "network.ip.vm"
    assert line.quantity is not None
    assert public.monthly_usd == pytest.approx(private.monthly_usd + line.quantity * 0.005)
    assert line.quantity == pytest.approx(88 + 22)  # active hours + one idle timeout a session
    base = next(x for x in public.cost_lines if x.bill == "baseline" and x.what == "external IP")
    assert base.quantity == 730
    # the Workbench API's default is a public IP: no key at all bills it too
    default = notebook()
    del default["inputs"]["gceSetup"]["disablePublicIp"]
    assert "external IP" in {x.what for x in one(default).cost_lines}
