"""Logging models: retention past 30 days per GiB-month; exclusions save ingestion."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from governance.costs.month import DAYS_PER_MONTH
from tests.costs.cost_plans import AS_OF, one, price

BUCKET = {"type": "gcp:logging/projectBucketConfig:ProjectBucketConfig", "name": "logs",
          "inputs": {"bucketId": "_Default", "location": "global", "retentionDays": 90}}  # fmt: skip
EXCLUSION = {"type": "gcp:logging/projectExclusion:ProjectExclusion", "name": "ex",
             "inputs": {"filter": 'resource.type="k8s_container" AND severity<=INFO'}}  # fmt: skip


def test_ninety_days_bills_sixty_days_of_ingest():
    cost = one(BUCKET)
    assert price("logging.retention", "global") == 0.01
    # 50 GiB/month x 60 extra days / 30.42 days per month = 98.6 GiB x $0.01
    assert cost.monthly_usd == pytest.approx(50 * 60 / DAYS_PER_MONTH * 0.01)
    assert cost.monthly_usd == pytest.approx(0.99, abs=0.005)
    assert cost.baseline_monthly_usd == 0.0  # the 30-day default costs nothing extra


def test_thirty_days_or_unset_costs_nothing():
    for days in (30, 7, 0, None):
        inputs = {**BUCKET["inputs"], "retentionDays": days}
        assert one({**BUCKET, "inputs": inputs}).monthly_usd == 0.0


def test_a_year_of_a_busy_project():
    usage = UsageAssumptions(as_of=AS_OF, logging_gb_per_month=1000)
    busy = {**BUCKET, "inputs": {**BUCKET["inputs"], "retentionDays": 365}}
    assert one(busy, usage).monthly_usd == pytest.approx(1000 * 335 / DAYS_PER_MONTH * 0.01)


def test_exclusion_is_free_and_saves_its_ingestion():
    cost = one(EXCLUSION)
    assert cost.monthly_usd == 0.0
    assert cost.baseline_monthly_usd == pytest.approx(20 * 0.50)  # $10


def test_ingestion_depends_on_usage_and_declared_ingestion_is_billed_past_the_free_50_gib():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file
    from tests.costs.cost_plans import usage_lines

    assert usage_lines(one(BUCKET)) == {"ingestion": "monthly_ingestion_gib"}
    declared = parse_usage_file({"resource_usage": {"logs": {"monthly_ingestion_gib": 250}}})
    cost = estimate_resources([BUCKET], usage_file=declared).get("logs")
    # (250 - 50 free) x logging.ingestion + 250 GiB/month x 60/30.4 days x logging.retention
    assert cost.monthly_usd == pytest.approx(
        200 * price("logging.ingestion", "global") + 250 * 60 / DAYS_PER_MONTH * 0.01
    )


@pytest.mark.parametrize(
    "type_",
    [
        "gcp:logging/folderBucketConfig:FolderBucketConfig",
        "gcp:logging/organizationBucketConfig:OrganizationBucketConfig",
        "gcp:logging/billingAccountBucketConfig:BillingAccountBucketConfig",
    ],
)
def test_aggregated_buckets_bill_declared_ingestion_past_one_free_allotment(type_: str):
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    bucket = {"type": type_, "name": "agg", "inputs": {"bucketId": "_Default", "retentionDays": 30}}
    declared = parse_usage_file({"resource_usage": {"agg": {"monthly_ingestion_gib": 100}}})
    cost = estimate_resources([bucket], usage_file=declared).get("agg")
    assert cost.monthly_usd == pytest.approx((100 - 50) * price("logging.ingestion", "global"))


@pytest.mark.parametrize("kind", ["project", "folder", "organization", "billingAccount"])
def test_sinks_are_free_the_log_router_has_no_charge(kind: str):
    type_ = f"gcp:logging/{kind}Sink:{kind[0].upper()}{kind[1:]}Sink"
    sink = {"type": type_, "name": "s", "inputs": {"destination": "storage.googleapis.com/b"}}
    cost = one(sink)
    assert cost.priced
    assert cost.monthly_usd == 0.0
    assert any("the Log Router has no charge" in line for line in cost.lines)
