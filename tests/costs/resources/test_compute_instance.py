"""Compute instance model: spot and maxRunDuration bound a standalone GPU VM's bill."""

from __future__ import annotations

import copy

import pytest

from tests.costs.cost_plans import full_plan, one, price, unpriced

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


def test_local_ssd_scratch_disks_are_unpriced():
    vm = copy.deepcopy(VM)
    vm["inputs"]["scratchDisks"] = [{"interface": "NVME"}]
    assert "local SSD scratch disks are not priced" in unpriced(vm)
