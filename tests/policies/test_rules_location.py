"""mlgov-location-in-region: zones, regions and BigQuery locations against the stack region.

Cases for mlgov_policies/rules/location.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, cfg, check_case, s

CASES: tuple[Case, ...] = (
    Case(
        "zone-other-region",
        "mlgov-location-in-region",
        (s("nb-alice", "location", "europe-west4-a"),),
    ),
    Case("sql-other-region", "mlgov-location-in-region", (s("metadata-db", "region", "us-east1"),)),
    Case(
        "pool-node-location",
        "mlgov-location-in-region",
        (s("gpu-pool", "nodeLocations", ["us-central1-a", "us-east1-b"]),),
    ),
    Case("bucket-multi-region", "mlgov-location-in-region", (s("source", "location", "US"),)),
    Case("bq-multi-region", "mlgov-location-in-region", (s("features", "location", "US"),)),
    Case(
        "bq-multi-region-allowed",
        None,
        (s("features", "location", "US"),),
        cfg(allowed_bigquery_locations=["US"]),
    ),
    Case(
        "region-inferred",
        "mlgov-location-in-region",
        (s("features", "location", "US"),),
        cfg(region=None),
    ),
    # us-west4-a: outside the stack region, yet a documented TPU v5e zone (the fixture is a v5e).
    Case("region-ambiguous-skipped", None, (s("tpu", "zone", "us-west4-a"),), cfg(region=None)),
    Case(
        "function-trigger-region",
        "mlgov-location-in-region",
        (s("budget-fn", "eventTrigger.triggerRegion", "us-east1"),),
    ),
    Case(
        "tensorboard-other-region",
        "mlgov-location-in-region",
        (s("tensorboard", "region", "europe-west4"),),
    ),
    Case(
        "vertex-persistent-other-region",
        "mlgov-location-in-region",
        (s("train-cluster", "location", "us-east1"),),
    ),
    Case(
        "repository-multi-region",
        "mlgov-location-in-region",
        (s("images", "location", "us"),),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_without_a_configured_region_each_resource_meets_its_own_providers() -> None:
    """Issue 32: another team's resources are judged against their own provider's region."""
    from mlgov_policies.config import PolicyConfig
    from mlgov_policies.rule import StackResource
    from mlgov_policies.rules.location import in_region

    west = ("us-west1", "region of provider 'default'")
    europe = ("europe-west4", "zone of provider 'eu'")
    resources = [
        StackResource(
            "gcp:compute/subnetwork:Subnetwork", "subnet", {"region": "us-central1"}, west
        ),
        StackResource("gcp:compute/disk:Disk", "eu-disk", {"zone": "europe-west4-b"}, europe),
        StackResource("gcp:compute/router:Router", "router", {"region": "us-west1"}, west),
    ]
    assert list(in_region(resources, PolicyConfig())) == [
        (
            0,
            "region 'us-central1' is outside 'us-west1', the region its own provider gives it "
            "(region of provider 'default')",
        )
    ]
    # a configured region wins over every provider's
    configured = list(in_region(resources, PolicyConfig(region="us-west1")))
    assert configured == [
        (0, "region 'us-central1' is outside the stack region 'us-west1'"),
        (1, "zone 'europe-west4-b' is outside the stack region 'us-west1'"),
    ]
