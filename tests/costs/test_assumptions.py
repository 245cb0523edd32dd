"""UsageAssumptions: composed from each cost model's knobs, in the documented order."""

from __future__ import annotations

from datetime import date

import pytest

from governance.costs.assumptions import CommonUsage, UsageAssumptions
from governance.costs.resources import nat, workbench

DOCUMENTED_ORDER = [
    "as_of", "default_region",
    "notebook_active_hours_per_month", "notebook_sessions_per_month", "notebook_active_hours",
    "training_pool_average_nodes", "training_pool_nodes",
    "gpu_vm_hours_per_month", "gpu_vm_runs_per_month", "tpu_vm_hours_per_month",
    "bigquery_ingest_gb_per_day", "bigquery_ingest", "bigquery_stored_gb",
    "bigquery_unbounded_retention_days", "sql_backup_gb", "storage_gb_per_bucket", "storage_gb",
    "function_invocations_per_month", "function_invocations", "function_seconds_per_invocation",
    "pubsub_gb_per_month", "nat_vm_count", "nat_gb_per_month",
]  # fmt: skip


def test_fields_keep_the_order_plan_json_prints():
    assert list(UsageAssumptions.model_fields) == DOCUMENTED_ORDER
    assert list(UsageAssumptions().model_dump()) == DOCUMENTED_ORDER


def test_each_models_knobs_are_part_of_the_whole():
    for part in (CommonUsage, workbench.WorkbenchUsage, nat.NatUsage):
        assert set(part.model_fields) <= set(UsageAssumptions.model_fields)


def test_round_trip_through_the_plan_document_and_typos_rejected():
    u = UsageAssumptions(as_of=date(2026, 1, 5), training_pool_nodes={"a100": 1.5})
    assert UsageAssumptions.model_validate(u.model_dump(mode="json")) == u
    with pytest.raises(ValueError, match="extra"):
        UsageAssumptions.model_validate({"notebook_hours": 3})
    with pytest.raises(ValueError, match="notebook_active_hours_per_month"):
        UsageAssumptions(notebook_active_hours_per_month=731)
