"""TPU VM model: chips x hours, spot or on-demand, from acceleratorType or acceleratorConfig."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, one, price


def tpu(**inputs: object) -> dict[str, object]:
    return {"type": "gcp:tpu/v2Vm:V2Vm", "name": "v",
            "inputs": {"zone": "us-central1-a", "acceleratorType": "v5litepod-8", **inputs}}  # fmt: skip


def test_spot_slice_bills_spot_chip_hours():
    cost = one(tpu(schedulingConfig={"spot": True}))
    assert cost.monthly_usd == pytest.approx(8 * 730 * price("tpu.v5litepod.chip", usage="spot"))
    assert cost.baseline_monthly_usd == pytest.approx(8 * 730 * price("tpu.v5litepod.chip"))


def test_on_demand_slice_equals_the_baseline():
    cost = one(tpu(schedulingConfig={}))
    assert cost.monthly_usd == pytest.approx(cost.baseline_monthly_usd)


def test_accelerator_config_topology_gives_the_chips():
    cost = one(
        tpu(acceleratorType=None, acceleratorConfig={"type": "V5LITE_POD", "topology": "2x4"})
    )
    assert cost.monthly_usd == pytest.approx(8 * 730 * price("tpu.v5litepod.chip"))


def test_ready_hours_assumption_scales_the_bill():
    usage = UsageAssumptions(as_of=AS_OF, tpu_vm_hours_per_month=100)
    cost = one(tpu(schedulingConfig={"spot": True}), usage)
    assert cost.monthly_usd == pytest.approx(8 * 100 * price("tpu.v5litepod.chip", usage="spot"))
