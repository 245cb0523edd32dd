"""Cloud Run services and jobs: request-based or instance-based, at the region's tier."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, partial, price, usage_lines


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


def test_idle_minimum_instances_of_a_request_based_service_are_named():
    _, parts = partial(service(scaling={"minInstanceCount": 1}))
    assert "idle rate" in parts["1 idle minimum instance(s)"]


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
