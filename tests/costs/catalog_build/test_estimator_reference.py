"""The ESTIMATOR against Google's Billing Catalog export, for every machine type the stacks use.

Not the catalog lookup alone: each price goes through the cost models a plan uses (a Compute
Engine instance and a GKE node pool), in every region of the reference export, on-demand and
spot. An instance billed 1 hour (no disk) costs the reference's hourly price; a fixed one-node
pool billed all month costs the reference's monthly price, which for on-demand N1/N2 already
includes Google's sustained-use discount, so the SUD model is checked too. Tolerance 1%. The
plan's catalog date is never later than the reference's.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from catalog_reference import used_machine_types

from governance.costs.assumptions import UsageAssumptions
from governance.costs.estimate import CostReport, estimate_resources
from governance.review.plan import evaluate_document

TOLERANCE = 0.01
GCE_TYPES = sorted(t for t in used_machine_types() if not t.startswith("ct"))
ONE_HOUR = UsageAssumptions(as_of=date(2026, 11, 1), gpu_vm_hours_per_month=1)
MONTH = UsageAssumptions(as_of=date(2026, 11, 1))
# model -> (reference column per usage, usage assumptions)
MODELS = {
    "instance": ({"ondemand": "hour", "spot": "hour_spot"}, ONE_HOUR),
    "node_pool": ({"ondemand": "month", "spot": "month_spot"}, MONTH),
}


def instance(machine: str, region: str, spot: bool) -> dict[str, Any]:
    return {
        "type": "gcp:compute/instance:Instance",
        "name": region,
        "inputs": {
            "zone": f"{region}-a",
            "machineType": machine,
            "scheduling": {"provisioningModel": "SPOT"} if spot else {},
            "bootDisk": {"initializeParams": {"size": 0}},
        },
    }


def node_pool(machine: str, region: str, spot: bool) -> dict[str, Any]:
    return {
        "type": "gcp:container/nodePool:NodePool",
        "name": region,
        "inputs": {
            "location": region,
            "nodeLocations": [f"{region}-a"],  # one zone: a regional pool would run 3
            "nodeCount": 1,
            "nodeConfig": {"machineType": machine, "spot": spot, "diskSizeGb": 0},
        },
    }


def estimate(model: str, machine: str, regions: list[str], spot: bool) -> CostReport:
    build = instance if model == "instance" else node_pool
    plan = [build(machine, region, spot) for region in regions]
    return estimate_resources(plan, MODELS[model][1])


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("usage", ["ondemand", "spot"])
@pytest.mark.parametrize("machine", GCE_TYPES)
def test_estimated_price_matches_the_reference_in_every_region(reference, machine, usage, model):
    column = MODELS[model][0][usage]
    want = {
        region: float(cols[column])
        for region, cols in reference.machines[machine].prices.items()
        if cols.get(column)
    }
    assert len(want) >= 30, f"{machine} should be sold in most regions"
    report = estimate(model, machine, sorted(want), spot=usage == "spot")
    off = []
    for r in report.resources:
        # the price under test is the region's own (a spot-only region's on-demand BASELINE
        # may borrow the nearest region's price: n1 in europe-north2)
        own = [f for f in r.fallbacks if f.usage == usage]
        assert r.priced and not own, (machine, r.name, r.unpriced, own)
        if abs(r.monthly_usd - want[r.name]) / want[r.name] > TOLERANCE:
            off.append((r.name, round(r.monthly_usd, 6), want[r.name]))
    assert not off, f"{machine} {usage} via {model}: {off[:5]}"


def test_the_issue_example_a_spot_n1_standard_8_with_a_t4_all_month():
    vm = instance("n1-standard-8", "us-central1", spot=True)
    vm["inputs"]["guestAccelerators"] = [{"type": "nvidia-tesla-t4", "count": 1}]
    cost = estimate_resources([vm], MONTH).resources[0]
    # "A spot n1-standard-8 + T4 runs about $226/month at published prices; we say $168."
    assert cost.monthly_usd == pytest.approx(225.58, abs=0.01)


def test_the_plan_names_a_catalog_date_no_later_than_the_reference(reference):
    doc: Any = {"stack": "x", "resources": []}
    catalog = evaluate_document(doc).get("price_catalog") or {}
    assert date.fromisoformat(catalog["date"]) <= reference.generated
