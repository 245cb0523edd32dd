"""Functions model: CPU-seconds, GiB-seconds and requests for the assumed invocations."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from governance.costs.resources.functions import default_cpu, memory_gib
from tests.costs.cost_plans import AS_OF, one, price, unpriced


def function(**service: object) -> dict[str, object]:
    return {"type": "gcp:cloudfunctionsv2/function:Function", "name": "reaper",
            "inputs": {"location": "us-central1", "serviceConfig": service}}  # fmt: skip


def expected(calls: float, seconds: float, cpu: float, gib: float) -> float:
    busy = calls * seconds
    return (
        busy * cpu * price("functions.vcpu_second", "global")
        + busy * gib * price("functions.gib_second", "global")
        + calls * price("functions.invocation", "global")
    )


def test_default_function_256m():
    cost = one(function(availableMemory="256M"))
    # 3000 calls x 2 s; 256 MiB gets 0.167 vCPU by default
    assert cost.monthly_usd == pytest.approx(expected(3000, 2, 0.167, 0.25))
    assert cost.baseline_monthly_usd == cost.monthly_usd


def test_invocations_override_scales_the_bill():
    usage = UsageAssumptions(as_of=AS_OF, function_invocations={"reaper": 30000})
    cost = one(function(availableMemory="1Gi", availableCpu="1"), usage)
    assert cost.monthly_usd == pytest.approx(expected(30000, 2, 1.0, 1.0))


def test_memory_and_default_cpu_follow_cloud_functions():
    assert memory_gib("256M") == 0.25
    assert memory_gib("2Gi") == 2.0
    assert memory_gib("512MiB") == 0.5
    assert default_cpu(0.25) == 0.167
    assert default_cpu(4) == 2.0
    assert default_cpu(16) == 4.0
    assert unpriced(function(availableMemory="lots")) == "cannot read function memory 'lots'"
