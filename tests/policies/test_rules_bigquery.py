"""mlgov-bigquery-*: default expiration, the retained billing export, partitioned tables.

Cases for mlgov_policies/rules/bigquery.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, cfg, check_case, d, s

QUOTA = "mlgov-bigquery-query-quota"

CASES: tuple[Case, ...] = (
    Case(
        "dataset-no-expiration",
        "mlgov-bigquery-dataset-expiration",
        (d("features", "defaultTableExpirationMs"),),
    ),
    Case(
        "dataset-zero-expiration",
        "mlgov-bigquery-dataset-expiration",
        (s("features", "defaultTableExpirationMs", "0"),),
    ),
    Case(
        "dataset-partition-expiration",
        None,
        (
            d("features", "defaultTableExpirationMs"),
            s("features", "defaultPartitionExpirationMs", 2592000000.0),
        ),
    ),
    Case(
        "billing-export-expires",
        "mlgov-bigquery-billing-export-retained",
        (s("billing-export", "defaultTableExpirationMs", "86400000"),),
    ),
    Case(
        "billing-export-destroyable",
        "mlgov-bigquery-billing-export-retained",
        (s("billing-export", "deleteContentsOnDestroy", True),),
    ),
    Case(
        "billing-export-custom-id",
        "mlgov-bigquery-billing-export-retained",
        (s("features", "deleteContentsOnDestroy", True),),
        cfg(billing_export_dataset="features"),
    ),
    Case(
        "table-unpartitioned",
        "mlgov-bigquery-table-partitioned",
        (d("events", "timePartitioning"),),
    ),
    Case(
        "view-unpartitioned",
        None,
        (
            d("events", "timePartitioning"),
            s("events", "view", {"query": "select 1", "useLegacySql": False}),
        ),
    ),
    Case("prod-no-query-quota", QUOTA, (("drop", "query-quota"),), resource=""),
    Case("prod-unlimited-quota", QUOTA, (s("query-quota", "overrideValue", "-1"),), resource=""),
    Case(
        "prod-per-user-quota-only",
        QUOTA,
        (s("query-quota", "limit", "%2Fd%2Fproject%2Fuser"),),
        resource="",
    ),
    Case(
        "prod-quota-unencoded-names",
        None,
        (
            s("query-quota", "metric", "bigquery.googleapis.com/quota/query/usage"),
            s("query-quota", "limit", "/d/project"),
        ),
    ),
    Case(
        "prod-quota-other-metric",
        QUOTA,
        (s("query-quota", "metric", "compute.googleapis.com%2Fcpus"),),
        resource="",
    ),
    Case("dev-no-query-quota", None, (("drop", "query-quota"),), cfg(environment="dev")),
    Case(
        "prod-no-datasets-no-quota",
        None,
        (("drop", "query-quota"), ("drop", "features"), ("drop", "billing-export")),
    ),
    Case(
        "table-expiration-ignored",
        "mlgov-bigquery-table-expiration-ignored",
        (s("features", "defaultPartitionExpirationMs", 2592000000.0),),
    ),
    Case(
        "table-expiration-reaches-a-view",
        None,
        (
            s("features", "defaultPartitionExpirationMs", 2592000000.0),
            d("events", "timePartitioning"),
            s("events", "view", {"query": "select 1", "useLegacySql": False}),
        ),
    ),
    Case(
        "table-expiration-no-table-in-dataset",
        None,
        (
            s("features", "defaultPartitionExpirationMs", 2592000000.0),
            s("events", "datasetId", "scratch"),
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
