"""The estimate driver: every resource priced or a stated $0, totals, errors that name the resource."""

from __future__ import annotations

import pytest
from cost_plans import USAGE, notebook

from governance.costs.catalog import default_catalog
from governance.costs.errors import CatalogError, CostError, UnknownResourceType
from governance.costs.estimate import estimate_resources


def test_full_plan_prices_every_resource_and_sums_totals(plan, usage):
    report = estimate_resources(plan, usage)
    assert [(r.name, r.type) for r in report.resources] == [(r["name"], r["type"]) for r in plan]
    assert 0 < report.monthly_usd < report.baseline_monthly_usd
    assert report.monthly_usd == pytest.approx(sum(r.monthly_usd for r in report.resources))
    assert report.as_dict() == {
        "monthly_usd": round(report.monthly_usd, 2),
        "baseline_monthly_usd": round(report.baseline_monthly_usd, 2),
    }
    assert report.by_name()["nb-alice"] == round(report.get("nb-alice").monthly_usd, 2)
    assert report.catalog_version == default_catalog().version


def test_free_resources_are_explicit_zeros_with_reasons(plan, usage):
    report = estimate_resources(plan, usage)
    for name, reason in (("net", "no charge"), ("member", "IAM"), ("db", "Cloud SQL instance"),
                         ("events", "priced on its dataset"), ("fleet", "component")):  # fmt: skip
        cost = report.get(name)
        assert (cost.monthly_usd, cost.baseline_monthly_usd) == (0, 0)
        assert cost.lines[0].startswith("$0.00: ") and reason in cost.lines[0]


def test_unknown_type_is_a_clear_error():
    with pytest.raises(
        UnknownResourceType, match=r"'gcp:alloydb/cluster:Cluster'.*'db1'.*registry"
    ):
        estimate_resources([{"type": "gcp:alloydb/cluster:Cluster", "name": "db1"}], USAGE)


def test_model_errors_name_the_type_and_resource():
    nb = notebook()
    nb["inputs"]["location"] = "asia-south2-a"
    with pytest.raises(
        CatalogError, match=r"^gcp:workbench/instance:Instance 'nb-alice': .*asia-south2"
    ):
        estimate_resources([nb], USAGE)
    nb["inputs"]["location"] = 7
    with pytest.raises(CostError, match=r"'nb-alice': location is 7, not a string"):
        estimate_resources([nb], USAGE)


def test_no_usage_or_catalog_means_defaults():
    report = estimate_resources(
        [
            {
                "type": "gcp:container/cluster:Cluster",
                "name": "gke",
                "inputs": {"location": "us-central1"},
            }
        ]
    )
    assert report.as_dict() == {"monthly_usd": 73.0, "baseline_monthly_usd": 73.0}


def test_negative_totals_are_floored_at_zero():
    zonal = {
        "type": "gcp:container/cluster:Cluster",
        "name": "z",
        "inputs": {"location": "us-central1-a"},
    }
    cost = estimate_resources([zonal], USAGE).get("z")
    assert (cost.monthly_usd, cost.baseline_monthly_usd) == (0.0, 0.0)  # $73 fee - $74.40 credit
