"""Where each compatibility fact comes from: one citation string per Google document.

Every row of the compat tables carries one of these as its `source`, in the form
`"<doc title> <URL>, checked <date>"`, so a reviewer can open the page and compare. `CHECKED` is
the day the pages were read for this table. Facts that only a secondary source confirmed say so in
their own citation. The tables live in gpus.py, tpus.py, bigquery.py and limits.py.
"""

from __future__ import annotations

from typing import Final

CHECKED: Final = "2026-11-23"


def cite(title: str, url: str, *, note: str = "", checked: str = CHECKED) -> str:
    """`"<title> <url>, checked <date>"`, with an optional note on how the fact was confirmed."""
    text = f"{title} {url}, checked {checked}"
    return f"{text} ({note})" if note else text


def short(source: str) -> str:
    """`"<title> <url>"` of a citation, for messages (the table row keeps the full citation)."""
    return source.split(", checked ", 1)[0]


GPU_MACHINE_TYPES: Final = cite("GPU machine types", "https://cloud.google.com/compute/docs/gpus")
GPU_N1_LIMITS: Final = cite(
    "GPU machine types",
    "https://cloud.google.com/compute/docs/gpus",
    note="N1 vCPU/memory maxima per GPU count as also tabulated by skypilot-org/skypilot "
    "sky/clouds/service_catalog/gcp_catalog.py, which cites the same page",
)
ACCELERATOR_OPTIMIZED: Final = cite(
    "Accelerator-optimized machine family",
    "https://cloud.google.com/compute/docs/accelerator-optimized-machines",
    note="type and count per machine type as in Google's GoogleCloudPlatform/cluster-toolkit "
    "modules/internal/gpu-definition/main.tf",
)
ACCELERATOR_OPTIMIZED_SECONDARY: Final = cite(
    "Accelerator-optimized machine family",
    "https://cloud.google.com/compute/docs/accelerator-optimized-machines",
    note="series named on the page; per-type GPU counts confirmed only by secondary sources "
    "(dstackai/dstack PR 3213 for G4)",
)
GENERAL_PURPOSE: Final = cite(
    "General-purpose machine family",
    "https://cloud.google.com/compute/docs/general-purpose-machines",
)
WORKBENCH_ENUM: Final = cite(
    "Notebooks API v2 AcceleratorConfig.type (discovery document notebooks.v2)",
    "https://notebooks.googleapis.com/$discovery/rest?version=v2",
)
LIVE_MIGRATION: Final = cite(
    "Live migration process: limitations",
    "https://cloud.google.com/compute/docs/instances/live-migration-process#limitations",
    note='API error "Instances with guest accelerators do not support live migration."',
)
SPOT_VMS: Final = cite(
    "Create and use Spot VMs", "https://cloud.google.com/compute/docs/instances/create-use-spot"
)
SPOT_SCHEDULING: Final = cite(
    "Compute Engine API Scheduling (discovery document compute.v1) and pulumi-gcp "
    "compute.InstanceSchedulingArgs",
    "https://cloud.google.com/compute/docs/reference/rest/v1/instances",
    note='API errors "Scheduling must have preemptible be false when AutomaticRestart is true" '
    'and "For preemptible, only allowed provisioning_model value is SPOT"',
)
LIMIT_RUNTIME: Final = cite(
    "Limit the run time of a VM",
    "https://cloud.google.com/compute/docs/instances/limit-vm-runtime",
)
TPU_RUNTIMES: Final = cite("TPU software versions", "https://cloud.google.com/tpu/docs/runtimes")
TPU_RUNTIMES_LEGACY: Final = cite(
    "TPU software versions (earlier revision)",
    "https://cloud.google.com/tpu/docs/runtimes",
    note="tpu-vm-base for v2/v3 and tpu-vm-v4-base for v4, as used by Google's "
    "GoogleCloudPlatform/ml-testing-accelerators",
)
TPU_ZONES: Final = cite("TPU regions and zones", "https://cloud.google.com/tpu/docs/regions-zones")
TPU_ZONES_REVISIONS: Final = cite(
    "TPU regions and zones",
    "https://cloud.google.com/tpu/docs/regions-zones",
    note="zones are the union of the page's revisions read (also served as "
    "https://docs.cloud.google.com/tpu/docs/types-zones and /tpu/docs/regions); its North "
    "America section was read whole, other sections only in part, so only us-* and "
    "northamerica-* zones are judged for this generation",
)
TPU_TYPES: Final = cite(
    "TPU API v2 AcceleratorConfig (discovery document tpu.v2) and TPU configurations",
    "https://cloud.google.com/tpu/docs/reference/rest/v2/AcceleratorConfig",
)
GKE_TPUS: Final = cite(
    "Plan TPUs in GKE", "https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus"
)
PULUMI_TPU_DEFAULT: Final = cite(
    "pulumi-gcp tpu.V2Vm accelerator_type",
    "https://www.pulumi.com/registry/packages/gcp/api-docs/tpu/v2vm/",
    note="\"If neither is specified, accelerator_type defaults to 'v2-8'\"",
)
BQ_PARTITIONING: Final = cite(
    "BigQuery: Introduction to partitioned tables",
    "https://cloud.google.com/bigquery/docs/partitioned-tables",
    note='API error "Table with field based partitioning must have a schema"; TimePartitioning.'
    "field and RangePartitioning.field in discovery document bigquery.v2",
)
BQ_CLUSTERING: Final = cite(
    "BigQuery: Introduction to clustered tables",
    "https://cloud.google.com/bigquery/docs/clustered-tables#limitations",
    note='Clustering.fields in discovery document bigquery.v2: "Only top-level, non-repeated, '
    'simple-type fields"; pulumi-gcp bigquery.Table clusterings: "Up to four top-level '
    'columns"',
)
FUNCTION_TIMEOUT: Final = cite(
    "Cloud Run functions: Function timeout",
    "https://cloud.google.com/functions/docs/configuring/timeout",
)
SCHEDULER_DEADLINE: Final = cite(
    "Cloud Scheduler API Job.attemptDeadline (discovery document cloudscheduler.v1)",
    "https://cloud.google.com/scheduler/docs/reference/rest/v1/projects.locations.jobs",
)
BQ_DEFAULT_EXPIRATIONS: Final = cite(
    "BigQuery API Dataset.defaultPartitionExpirationMs (discovery document bigquery.v2)",
    "https://cloud.google.com/bigquery/docs/reference/rest/v2/datasets",
    note='"When creating a partitioned table, if `defaultPartitionExpirationMs` is set, the '
    "`defaultTableExpirationMs` value is ignored and the table will not be inherit a table "
    'expiration deadline."',
)
WORKBENCH_GPU_DRIVER: Final = cite(
    "Notebooks API v2 GceSetup.gpuDriverConfig (discovery document notebooks.v2) and Deep "
    "Learning VM metadata install-nvidia-driver",
    "https://cloud.google.com/vertex-ai/docs/workbench/reference/rest/v2/projects.locations.instances",
    note='GPUDriverConfig.enableGpuDriver: "If this field is empty or set to false, the GPU driver '
    "won't be installed.\"; pulumi-gcp's InstanceGceSetup has no gpuDriverConfig, so the "
    "Deep Learning VM image's install-nvidia-driver metadata key "
    "(https://cloud.google.com/deep-learning-vm/docs/cli) is the way to ask for it",
)
