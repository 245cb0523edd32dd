"""Quota overrides cost $0; a project-wide BigQuery query cap shows its worst case per month."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from tests.costs.cost_plans import USAGE, one, price


def override(limit: str, mib: str, metric: str = "bigquery.googleapis.com%2Fquota%2Fquery%2Fusage"):
    return {"type": "gcp:serviceusage/consumerQuotaOverride:ConsumerQuotaOverride",
            "name": f"q{limit.count('2F')}", "inputs": {"service": "bigquery.googleapis.com",
            "metric": metric, "limit": limit, "overrideValue": mib}}  # fmt: skip


def test_project_cap_worst_case_is_informational():
    cost = one(override("%2Fd%2Fproject", "1048576"))  # 1 TiB/day
    assert price("bigquery.query.ondemand", "us") == 6.25
    assert (cost.monthly_usd, cost.baseline_monthly_usd) == (0.0, 0.0)
    assert cost.worst_case_usd == pytest.approx(1 * 6.25 * 30)  # $187.50
    assert any("$187.50/month" in line for line in cost.lines)


def test_ten_tib_prod_cap_and_the_total_ignores_it():
    report = estimate_resources([override("%2Fd%2Fproject", "10485760")], USAGE)
    assert report.resources[0].worst_case_usd == pytest.approx(1875.0)
    assert report.monthly_usd == 0.0


def test_user_cap_and_other_overrides_have_no_ceiling():
    assert one(override("%2Fd%2Fproject%2Fuser", "262144")).worst_case_usd is None
    cpus = override("%2Fproject%2Fregion", "8", metric="compute.googleapis.com%2Fcpus")
    assert one(cpus).worst_case_usd is None
    assert one(override("%2Fd%2Fproject", "-1")).worst_case_usd is None  # unlimited
