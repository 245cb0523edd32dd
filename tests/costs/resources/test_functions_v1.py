"""1st gen Cloud Functions: GB-seconds, GHz-seconds, invocations and egress, declared or per unit."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price, unpriced, usage_lines


def function(**inputs: object) -> dict[str, object]:
    return {"type": "gcp:cloudfunctions/function:Function", "name": "fn",
            "inputs": {"region": "us-central1", "runtime": "python312", **inputs}}  # fmt: skip


def test_without_usage_every_part_depends_on_usage():
    cost = one(function())
    assert cost.monthly_usd == 0
    assert usage_lines(cost) == {
        "CPU": "monthly_invocations",
        "memory": "monthly_invocations",
        "invocations": "monthly_invocations",
        "egress": "monthly_egress_gb",
    }


def test_declared_usage_is_priced_per_memory_tier():
    # Infracost's my_function: 10M calls x 0.3 s at 256 MB (0.4 GHz), 100 GB egress:
    # 1.2M GHz-s x functions1.ghz_second + 750k GB-s x functions1.gb_second
    # + 10M x functions1.invocation + 100 x functions1.egress = $12 + $1.875 + $4 + $12
    declared = parse_usage_file({"resource_usage": {"fn": {
        "monthly_invocations": 10_000_000, "average_seconds": 0.3, "monthly_egress_gb": 100}}})  # fmt: skip
    cost = estimate_resources([function()], USAGE, usage_file=declared).get("fn")
    expected = (
        1_200_000 * price("functions1.ghz_second")
        + 750_000 * price("functions1.gb_second")
        + 10_000_000 * price("functions1.invocation")
        + 100 * price("functions1.egress")
    )
    assert cost.monthly_usd == pytest.approx(expected)
    assert cost.monthly_usd == pytest.approx(29.875)


def test_unknown_memory_size_is_unpriced_naming_it():
    assert "availableMemoryMb 300 is not a 1st gen size" in unpriced(
        function(availableMemoryMb=300)
    )


@pytest.mark.parametrize(
    ("average", "billed"), [(0.24, 0.3), (0.3, 0.3), (0.01, 0.1), (1.0, 1.0), (1.05, 1.1)]
)
def test_compute_time_is_billed_in_100_ms_increments(average: float, billed: float):
    declared = parse_usage_file(
        {"resource_usage": {"fn": {"monthly_invocations": 1000, "average_seconds": average}}}
    )
    cost = estimate_resources([function()], USAGE, usage_file=declared).get("fn")
    cpu = next(c for c in cost.cost_lines if c.what == "CPU" and c.bill == "governed")
    assert cpu.quantity == pytest.approx(1000 * billed * 0.4)
