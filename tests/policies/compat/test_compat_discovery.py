"""The compat tables and acceptance rules against Google's machine-readable API descriptions.

Every enum value the tables or checks use, and every API field they reason about, must exist in
the discovery document of that API (google-api-python-client 2.202.0's cache). A new Workbench
GPU enum value fails a test here until the GPU table says what it is.
"""

from __future__ import annotations

import re

from discovery_documents import description, enum, properties

from mlgov_policies.compat import limits, sources
from mlgov_policies.compat.bigquery import (
    NESTED_TYPES,
    PARTITION_MODES,
    RANGE_PARTITION_TYPES,
    TIME_PARTITION_GRANULARITIES,
    TIME_PARTITION_TYPES,
)
from mlgov_policies.compat.gpus import GPUS
from mlgov_policies.compat.tpus import TPU_GENERATIONS

# Workbench enum values the GPU table deliberately leaves out, with the reason.
UNMAPPED_WORKBENCH = {
    "ACCELERATOR_TYPE_UNSPECIFIED": "no GPU",
    "NVIDIA_RTX6000": "no source says which Compute accelerator type it names",
}


def test_every_workbench_gpu_name_is_in_the_notebooks_v2_enum() -> None:
    names = {gpu.workbench for gpu in GPUS if gpu.workbench}
    allowed = enum("notebooks.v2", "AcceleratorConfig", "type")
    assert names <= allowed, sorted(names - allowed)


def test_every_notebooks_v2_gpu_enum_value_is_in_the_table_or_explained() -> None:
    mapped = {gpu.workbench for gpu in GPUS if gpu.workbench}
    assert enum("notebooks.v2", "AcceleratorConfig", "type") - mapped == set(UNMAPPED_WORKBENCH)


def test_workbench_fields_the_gpu_rule_reads_exist() -> None:
    assert {"machineType", "acceleratorConfigs"} <= set(properties("notebooks.v2", "GceSetup"))
    assert {"type", "coreCount"} <= set(properties("notebooks.v2", "AcceleratorConfig"))


def test_workbench_has_no_scheduling_block() -> None:
    # Why the scheduling rule does not cover Workbench: the v2 API has nothing to schedule.
    assert not {"scheduling", "provisioningModel"} & set(properties("notebooks.v2", "GceSetup"))


def test_compute_scheduling_enums_hold_the_values_the_rule_uses() -> None:
    assert enum("compute.v1", "Scheduling", "provisioningModel") >= limits.PROVISIONING_MODELS
    assert enum("compute.v1", "Scheduling", "onHostMaintenance") == limits.HOST_MAINTENANCE
    actions = enum("compute.v1", "Scheduling", "instanceTerminationAction")
    assert actions >= limits.TERMINATION_ACTIONS


def test_compute_scheduling_fields_the_rule_reads_exist() -> None:
    fields = set(properties("compute.v1", "Scheduling"))
    assert fields >= {
        "automaticRestart",
        "instanceTerminationAction",
        "maxRunDuration",
        "onHostMaintenance",
        "preemptible",
        "provisioningModel",
        "terminationTime",
    }
    assert "seconds" in properties("compute.v1", "Duration")


def test_compute_preemptible_vms_only_terminate_on_host_maintenance() -> None:
    text = description("compute.v1", "Scheduling", "onHostMaintenance")
    assert "the default and only possible behavior is TERMINATE" in text


def test_compute_accelerator_fields_behind_pulumis_type_and_count_exist() -> None:
    fields = set(properties("compute.v1", "AcceleratorConfig"))
    assert fields >= {"acceleratorType", "acceleratorCount"}
    assert "guestAccelerators" in properties("compute.v1", "Instance")
    assert "machineType" in properties("compute.v1", "Instance")


def test_tpu_config_types_are_in_the_tpu_v2_enum() -> None:
    allowed = enum("tpu.v2", "AcceleratorConfig", "type")
    assert {generation.config_type for generation in TPU_GENERATIONS} <= allowed


def test_tpu_node_fields_the_rules_read_exist() -> None:
    assert {"acceleratorType", "acceleratorConfig", "runtimeVersion", "schedulingConfig"} <= set(
        properties("tpu.v2", "Node")
    )
    assert {"type", "topology"} <= set(properties("tpu.v2", "AcceleratorConfig"))


def test_gke_fields_the_rules_read_exist() -> None:
    assert {"acceleratorType", "acceleratorCount"} <= set(
        properties("container.v1", "AcceleratorConfig")
    )
    assert {"machineType", "accelerators", "spot"} <= set(properties("container.v1", "NodeConfig"))
    assert "tpuTopology" in properties("container.v1", "PlacementPolicy")


def test_bigquery_fields_the_rule_reads_exist() -> None:
    assert {
        "schema",
        "timePartitioning",
        "rangePartitioning",
        "clustering",
        "view",
        "materializedView",
        "externalDataConfiguration",
    } <= set(properties("bigquery.v2", "Table"))
    assert {"field", "type"} <= set(properties("bigquery.v2", "TimePartitioning"))
    assert "field" in properties("bigquery.v2", "RangePartitioning")
    assert "fields" in properties("bigquery.v2", "Clustering")


def test_bigquery_time_partitioning_types_are_the_documented_ones() -> None:
    text = description("bigquery.v2", "TimePartitioning", "type")
    assert "The supported types are DAY, HOUR, MONTH, and YEAR" in text
    for granularity in TIME_PARTITION_GRANULARITIES:
        assert granularity in text


def test_bigquery_column_types_and_modes_are_bigquerys() -> None:
    types = description("bigquery.v2", "TableFieldSchema", "type")
    for kind in TIME_PARTITION_TYPES | RANGE_PARTITION_TYPES | NESTED_TYPES:
        assert re.search(rf"\b{kind}\b", types), kind
    modes = description("bigquery.v2", "TableFieldSchema", "mode")
    for mode in (*PARTITION_MODES, "REPEATED"):
        assert mode in modes


def test_bigquery_partition_and_clustering_columns_must_be_top_level() -> None:
    assert "must be a top-level TIMESTAMP or DATE field" in description(
        "bigquery.v2", "TimePartitioning", "field"
    )
    assert "Its mode must be NULLABLE or REQUIRED" in description(
        "bigquery.v2", "TimePartitioning", "field"
    )
    assert "top-level, INT64 column" in description("bigquery.v2", "RangePartitioning", "field")
    assert "Only top-level, non-repeated, simple-type fields" in description(
        "bigquery.v2", "Clustering", "fields"
    )


def test_function_timeout_field_exists() -> None:
    assert "timeoutSeconds" in properties("cloudfunctions.v2", "ServiceConfig")
    assert {"eventTrigger", "serviceConfig"} <= set(properties("cloudfunctions.v2", "Function"))


def test_scheduler_deadline_limits_are_the_ones_the_api_describes() -> None:
    text = description("cloudscheduler.v1", "Job", "attemptDeadline")
    assert (
        "For HTTP targets, the default is 3 minutes. The deadline must be in the interval [15 seconds, 30 minutes]"
        in text
    )
    assert "it must be in the interval [15 seconds, 24 hours 15 seconds]" in text
    assert "For Pub/Sub targets, this field is ignored" in text
    assert (limits.SCHEDULER_DEADLINE_HTTP.minimum, limits.SCHEDULER_DEADLINE_HTTP.maximum) == (
        15,
        30 * 60,
    )
    assert (
        limits.SCHEDULER_DEADLINE_APP_ENGINE.minimum,
        limits.SCHEDULER_DEADLINE_APP_ENGINE.maximum,
    ) == (15, 24 * 3600 + 15)
    assert {"httpTarget", "appEngineHttpTarget", "pubsubTarget"} <= set(
        properties("cloudscheduler.v1", "Job")
    )


def test_bigquery_ignores_table_expiration_for_partitioned_tables_as_quoted() -> None:
    # The sentence the advisory rule and the settings warning cite, verbatim from the API.
    quoted = sources.BQ_DEFAULT_EXPIRATIONS.split('"')[1]
    assert quoted in description("bigquery.v2", "Dataset", "defaultPartitionExpirationMs")
    assert {"defaultTableExpirationMs", "defaultPartitionExpirationMs"} <= set(
        properties("bigquery.v2", "Dataset")
    )


def test_workbench_installs_no_gpu_driver_unless_asked_as_quoted() -> None:
    quoted = "If this field is empty or set to false, the GPU driver won't be installed."
    assert quoted in sources.WORKBENCH_GPU_DRIVER
    assert quoted in description("notebooks.v2", "GPUDriverConfig", "enableGpuDriver")
    assert "gpuDriverConfig" in properties("notebooks.v2", "GceSetup")
