"""The plan context: cross-resource facts gathered once per estimate."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from cost_plans import USAGE, full_plan

from governance.costs.assumptions import UsageAssumptions
from governance.costs.catalog import default_catalog
from governance.costs.context import PlanContext
from governance.costs.model import Resource


def build(raw, usage=USAGE) -> PlanContext:
    return PlanContext.build([Resource.from_plan(r) for r in raw], usage, default_catalog())


def cluster(name: str, location: str) -> dict[str, object]:
    return {"type": "gcp:container/cluster:Cluster", "name": name, "inputs": {"location": location}}


def test_full_plan_context():
    ctx = build(full_plan())
    assert ctx.office_hours == {"acme-dev-nb-alice": pytest.approx(55 * 730 / 168)}
    assert [t["tableId"] for t in ctx.tables["features"]] == ["events"]
    assert ctx.free_scheduler_jobs == {"acme-dev-nb-alice-start", "acme-dev-nb-alice-stop"}
    assert ctx.free_tier_cluster == ""  # its only cluster is regional
    assert ctx.as_of == USAGE.as_of


def test_free_tier_cluster_is_the_first_zonal_one():
    ctx = build(
        [cluster("r", "us-central1"), cluster("z2", "us-central1-b"), cluster("z", "us-central1-a")]
    )
    assert ctx.free_tier_cluster == "z2"


def test_as_of_defaults_to_today():
    assert build([], UsageAssumptions()).as_of == datetime.now(UTC).date()
