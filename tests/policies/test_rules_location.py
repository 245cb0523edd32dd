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
