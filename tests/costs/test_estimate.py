"""The estimate driver: every resource priced or a stated $0, totals, errors that name the resource."""

from __future__ import annotations

import pytest
from cost_plans import USAGE, notebook, one, unpriced

from governance.costs.catalog import default_catalog
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


def test_unknown_type_is_unpriced_with_a_clear_reason_and_left_out_of_the_total(plan):
    alloy = {"type": "gcp:alloydb/cluster:Cluster", "name": "db1"}
    report = estimate_resources([*plan, alloy], USAGE)
    cost = report.get("db1")
    assert not cost.priced
    assert "'gcp:alloydb/cluster:Cluster' (resource 'db1')" in cost.unpriced
    assert "registry" in cost.unpriced
    assert report.monthly_usd == pytest.approx(estimate_resources(plan, USAGE).monthly_usd)
    assert report.as_dict()["unpriced"] == ["db1"]
    assert report.notes()[-1].endswith("could not be priced: db1")


def test_a_region_without_prices_falls_back_to_the_nearest_and_says_so():
    nb = notebook()
    nb["inputs"]["location"] = "asia-south1-a"
    cost = one(nb)
    # the machine is sold there; the Workbench fee has prices only for two regions
    assert any("gce.type.n1-standard-4[asia-south1/ondemand]" in line for line in cost.lines)
    fee = next(line for line in cost.lines if line.startswith("Workbench fee"))
    assert "[us-central1/ondemand, nearest priced location to asia-south1]" in fee
    assert {(f.key, f.used, f.requested) for f in cost.fallbacks} == {
        ("workbench.mgmt.vcpu", "us-central1", "asia-south1"),
        ("workbench.mgmt.gpu.nvidia-tesla-t4", "us-central1", "asia-south1"),
    }


def test_a_gpu_not_offered_in_the_region_is_unpriced_and_marked_not_offered():
    nb = notebook()
    nb["inputs"]["location"] = "asia-south2-a"  # Delhi sells N1, not T4s
    cost = one(nb)
    assert cost.not_offered and not cost.priced
    assert cost.unpriced.startswith("GPU nvidia-tesla-t4 is not offered in region 'asia-south2'")
    assert "asia-south1" in cost.unpriced and "skypilot" in cost.unpriced


def test_input_errors_are_unpriced_naming_the_input():
    nb = notebook()
    nb["inputs"]["location"] = 7
    assert unpriced(nb) == "location is 7, not a string"


def test_no_usage_or_catalog_means_defaults():
    report = estimate_resources(
        [
            {
                "type": "gcp:container/cluster:Cluster",
                "name": "gke",
                "inputs": {"location": "us-central1", "removeDefaultNodePool": True},
            }
        ]
    )
    assert report.as_dict() == {"monthly_usd": 73.0, "baseline_monthly_usd": 73.0}


def test_negative_totals_are_floored_at_zero():
    zonal = {
        "type": "gcp:container/cluster:Cluster",
        "name": "z",
        "inputs": {"location": "us-central1-a", "removeDefaultNodePool": True},
    }
    cost = estimate_resources([zonal], USAGE).get("z")
    assert (cost.monthly_usd, cost.baseline_monthly_usd) == (0.0, 0.0)  # $73 fee - $74.40 credit
