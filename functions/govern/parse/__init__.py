"""Parsers: everything raw that enters the functions becomes a model here, or a clear error.

One module per input: `budget` (the Pub/Sub budget notification), `resources` (REST JSON of the
resources the adapters list), `policy` (the `MLGOV_POLICY` environment variable). Pure and
standard library only; `reader` holds what they share. The names below are the public surface.
"""

from __future__ import annotations

from govern.parse.assets import (
    PROJECT_ASSET_TYPE,
    WORKLOAD_ASSET_TYPES,
    found_project,
    found_workload,
)
from govern.parse.budget import SUPPORTED_SCHEMA_VERSIONS, budget_alert
from govern.parse.container import cluster
from govern.parse.policy import action_policy
from govern.parse.reader import ParseError
from govern.parse.resources import (
    INSTANCE_RESOURCE_TYPE,
    compute_instance,
    gpu_utilization,
    notebook_instance,
    recommendation,
    tpu_duty_cycle,
    tpu_node,
)
from govern.parse.vertex import endpoint, vertex_job
from govern.parse.workitem import Delivery, delivery, work_item

__all__ = [
    "INSTANCE_RESOURCE_TYPE",
    "PROJECT_ASSET_TYPE",
    "SUPPORTED_SCHEMA_VERSIONS",
    "WORKLOAD_ASSET_TYPES",
    "Delivery",
    "ParseError",
    "action_policy",
    "budget_alert",
    "cluster",
    "compute_instance",
    "delivery",
    "endpoint",
    "found_project",
    "found_workload",
    "gpu_utilization",
    "notebook_instance",
    "recommendation",
    "tpu_duty_cycle",
    "tpu_node",
    "vertex_job",
    "work_item",
]
