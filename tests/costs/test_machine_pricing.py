"""Machine pricing: sustained-use discounts, custom shapes, built-in vs attached GPUs."""

from __future__ import annotations

import pytest
from cost_plans import price

from governance.costs.bill import Bill
from governance.costs.catalog import default_catalog
from governance.costs.errors import CostError
from governance.costs.machine_pricing import attached_gpus, charge_machine, sud_hours
from governance.costs.machines import machine_shape

CAT = default_catalog()


def bill() -> Bill:
    return Bill("", [])


def test_sud_applies_to_on_demand_n1_per_quarter_of_the_month():
    quarters = [price(f"sud.n1.q{q}", "global") for q in (1, 2, 3, 4)]
    assert sud_hours(CAT, "n1", 730, "ondemand") == pytest.approx(182.5 * sum(quarters))  # 511 h
    assert sud_hours(CAT, "n1", 100, "ondemand") == 100
    assert sud_hours(CAT, "n1", 730, "spot") == 730
    assert sud_hours(CAT, "e2", 730, "ondemand") == 730  # no SUD for E2


def test_custom_shape_pays_the_premium():
    b = bill()
    charge_machine(b, CAT, machine_shape("e2-custom-4-8192"), "us-central1", "ondemand", 100)
    assert b.total == pytest.approx(
        100 * 1.05 * (4 * price("gce.e2.vcpu") + 8 * price("gce.e2.ram"))
    )
    assert "custom shape: vCPU/RAM x 1.05 premium" in b.lines


def test_attached_gpus_add_but_built_in_gpus_are_not_doubled():
    t4 = [("nvidia-tesla-t4", 2)]
    b = bill()
    charge_machine(b, CAT, machine_shape("n2-standard-4"), "us-central1", "spot", 10, extra_gpus=t4)
    hourly = 4 * price("gce.n2.vcpu", usage="spot") + 16 * price("gce.n2.ram", usage="spot")
    assert b.total == pytest.approx(10 * (hourly + 2 * price("gpu.nvidia-tesla-t4", usage="spot")))
    g2 = bill()
    charge_machine(
        g2, CAT, machine_shape("g2-standard-4"), "us-central1", "spot", 10, extra_gpus=t4
    )
    assert not any(line.startswith("GPU: gpu.nvidia-tesla-t4") for line in g2.lines)


def test_attached_gpus_reads_api_spellings_and_names_bad_paths():
    configs = [{"type": "NVIDIA_TESLA_T4", "count": "2"}, {"type": "nvidia-l4"}]
    assert attached_gpus(configs, "count", "guestAccelerators") == [
        ("nvidia-tesla-t4", 2),
        ("nvidia-l4", 1),
    ]
    with pytest.raises(CostError, match=r"guestAccelerators\[0\]\.type is 5, not a string"):
        attached_gpus([{"type": 5}], "count", "guestAccelerators")
