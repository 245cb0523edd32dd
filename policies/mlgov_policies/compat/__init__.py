"""Cloud compatibility facts, each with its source, and one-line checks over them.

The tables: gpus.py (GPU model and count per machine type, names per API), tpus.py (TPU
generations, runtime versions, zones, GKE machine types), bigquery.py (partition and clustering
columns), limits.py (timeouts and deadlines). The functions below need no plan and no Pulumi:
settings validation calls them to turn a bad pairing into a one-line key-path error, and the
policy rules in mlgov_policies.acceptance call them on resource inputs.
"""

from __future__ import annotations

from mlgov_policies.compat.bigquery import SchemaProblem, parse_schema, schema_problems
from mlgov_policies.compat.gpus import gpu_problem
from mlgov_policies.compat.tpus import (
    gke_tpu_zone_problem,
    tpu_runtime_problem,
    tpu_topology_problem,
    tpu_zone_problem,
)

__all__ = [
    "SchemaProblem",
    "gke_tpu_zone_problem",
    "gpu_problem",
    "parse_schema",
    "schema_problems",
    "tpu_runtime_problem",
    "tpu_topology_problem",
    "tpu_zone_problem",
]
