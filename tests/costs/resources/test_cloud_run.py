"""Cloud Run services and jobs: request-based or instance-based, at the region's tier."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price, usage_lines


def service(location: str = "europe-west3", **template: object) -> dict[str, object]:
    return {"type": "gcp:cloudrunv2/service:Service", "name": "svc",
            "inputs": {"location": location, "template": {
                "containers": [{"image": "hello"}], **template}}}  # fmt: skip


def job(**inputs: object) -> dict[str, object]:
    return {"type": "gcp:cloudrunv2/job:Job", "name": "job",
            "inputs": {"location": "europe-west3", "template": {
                "taskCount": 1, "template": {"containers": [{"image": "hello"}]}}, **inputs}}  # fmt: skip


def test_request_based_service_without_usage_depends_on_usage():
    cost = one(service())
    assert cost.monthly_usd == 0
    assert usage_lines(cost) == {
        "CPU": "monthly_requests", "memory": "monthly_requests", "requests": "monthly_requests",
    }  # fmt: skip


def test_request_based_service_declared_usage_at_tier_2():
    # Infracost's throttling_enabled (europe-west3, Tier 2): 500k requests x 3.6 s, 1 at a time:
    # 1.8M vCPU-s x run.request.vcpu_second + 0.9M GiB-s (512 MiB) x run.request.gib_second
    # + 500k x run.request.request = $60.48 + $3.15 + $0.20
    declared = parse_usage_file({"resource_usage": {"svc": {
        "monthly_requests": 500_000, "average_request_seconds": 3.6,
        "concurrent_requests_per_instance": 1}}})  # fmt: skip
    cost = estimate_resources([service()], USAGE, usage_file=declared).get("svc")
    expected = (
        1_800_000 * price("run.request.vcpu_second", "europe-west3")
        + 900_000 * price("run.request.gib_second", "europe-west3")
        + 500_000 * price("run.request.request", "europe-west3")
    )
    assert cost.monthly_usd == pytest.approx(expected)
    assert cost.monthly_usd == pytest.approx(63.83)


def test_cpu_always_allocated_bills_minimum_instances_all_month():
    # Infracost's throttling_disabled: 2 min instances x 730 h x 3600 s at instance-based prices
    svc = service(containers=[{"image": "hello", "resources": {
        "limits": {"cpu": "1", "memory": "512Mi"}, "cpuIdle": False}}],
        scaling={"minInstanceCount": 2})  # fmt: skip
    cost = one(svc)
    seconds = 2 * 730 * 3600
    assert cost.monthly_usd == pytest.approx(
        seconds * price("run.instance.vcpu_second", "europe-west3")
        + seconds * 0.5 * price("run.instance.gib_second", "europe-west3")
    )  # $113.53 + $6.31


def test_idle_minimum_instances_of_a_request_based_service_bill_the_idle_rate_all_month():
    """2 minimum instances, 2 vCPU, 1 GiB in a Tier 1 region, nothing declared: 2 x 730 h idle.

    Google's idle rate (Tier 1 $0.0000025 per vCPU-second, memory at $0.0000025 per GiB-second,
    https://cloud.google.com/run/pricing as transcribed by firebase-tools) is a tenth of the
    request-time CPU rate.
    """
    svc = service("us-central1", containers=[{"image": "hello", "resources": {
        "limits": {"cpu": "2", "memory": "1Gi"}}}], scaling={"minInstanceCount": 2})  # fmt: skip
    cost = one(svc)
    seconds = 2 * 730 * 3600
    assert price("run.idle.vcpu_second", "us-central1") == pytest.approx(0.0000025)
    assert price("run.idle.gib_second", "us-central1") == pytest.approx(0.0000025)
    assert price("run.idle.vcpu_second", "europe-west3") == pytest.approx(0.0000035)  # Tier 2
    assert cost.monthly_usd == pytest.approx(seconds * 2 * 0.0000025 + seconds * 1 * 0.0000025)
    assert cost.baseline_monthly_usd == pytest.approx(cost.monthly_usd)
    assert cost.priced and not cost.unpriced_parts  # no longer an unpriced part
    cpu = next(x for x in cost.cost_lines if x.what == "idle minimum instances: CPU")
    assert (cpu.key, cpu.quantity) == ("run.idle.vcpu_second", seconds * 2)
    assert "2 minimum instance(s) x 730 h idle (the default: an upper bound" in cpu.text
    assert "declare `idle_instance_hours`" in cpu.text


def test_declared_idle_hours_replace_the_all_month_default():
    declared = parse_usage_file({"resource_usage": {"svc": {"idle_instance_hours": 100}}})
    svc = service("europe-west3", scaling={"minInstanceCount": 3})  # 1 vCPU, 512 MiB defaults
    cost = estimate_resources([svc], USAGE, usage_file=declared).get("svc")
    idle = [x for x in cost.cost_lines if x.bill == "governed" and x.kind == "charge"]
    assert {x.what: x.quantity for x in idle} == {
        "idle minimum instances: CPU": 360_000, "idle minimum instances: memory": 180_000,
    }  # fmt: skip
    assert cost.monthly_usd == pytest.approx(360_000 * 0.0000035 + 180_000 * 0.0000035)
    assert "100 idle instance-hours (idle_instance_hours)" in idle[0].text


def test_a_service_without_minimum_instances_has_no_idle_charge():
    cost = one(service("us-central1"))
    assert not any("idle" in x.what for x in cost.cost_lines)


def test_tier_1_region_uses_tier_1_prices():
    declared = parse_usage_file({"resource_usage": {"svc": {
        "monthly_requests": 1_000_000, "average_request_seconds": 1}}})  # fmt: skip
    cost = estimate_resources([service("us-central1")], USAGE, usage_file=declared).get("svc")
    assert cost.monthly_usd == pytest.approx(1_000_000 * (0.000024 + 0.5 * 0.0000025 + 0.0000004))


def test_job_bills_executions_tasks_and_seconds():
    # Infracost's my_job: 50,000 executions x 1 task x 600 s = 30M vCPU-s, 15M GiB-s (512 MiB)
    declared = parse_usage_file({"resource_usage": {"job": {
        "monthly_executions": 50_000, "average_task_seconds": 600}}})  # fmt: skip
    cost = estimate_resources([job()], USAGE, usage_file=declared).get("job")
    assert cost.monthly_usd == pytest.approx(
        30_000_000 * price("run.instance.vcpu_second", "europe-west3")
        + 15_000_000 * price("run.instance.gib_second", "europe-west3")
    )  # $648 + $36
    assert usage_lines(one(job())) == {"CPU": "monthly_executions", "memory": "monthly_executions"}
