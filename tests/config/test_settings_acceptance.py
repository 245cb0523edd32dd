"""Settings refuse what the Google APIs would refuse: one exact line per problem, with its source.

GPU/machine pairings and GPU counts (notebooks, training pools, GPU VMs), TPU runtime versions,
zones and topologies, BigQuery partition and clustering columns. Each case changes one key of a
shipped stack (which is valid: test_settings.py); the verdicts come from mlgov_policies.compat.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from governance.settings import SettingsError, settings_from_config
from tests.conftest import stack_config

Mutation = Callable[[dict[str, Any]], None]
P = "mlgov:settings"
GPU_DOC = "GPU machine types https://cloud.google.com/compute/docs/gpus"
AO_DOC = (
    "Accelerator-optimized machine family "
    "https://cloud.google.com/compute/docs/accelerator-optimized-machines"
)
TPU_RUNTIMES = "TPU software versions https://cloud.google.com/tpu/docs/runtimes"
TPU_ZONES = "TPU regions and zones https://cloud.google.com/tpu/docs/regions-zones"
GKE_TPUS = "Plan TPUs in GKE https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus"
PARTITIONING = (
    "BigQuery: Introduction to partitioned tables "
    "https://cloud.google.com/bigquery/docs/partitioned-tables"
)
CLUSTERING = (
    "BigQuery: Introduction to clustered tables "
    "https://cloud.google.com/bigquery/docs/clustered-tables#limitations"
)
L4_ONLY_ON = (
    "it runs only on g2-standard-4, g2-standard-8, g2-standard-12, g2-standard-16, "
    "g2-standard-24, g2-standard-32, g2-standard-48, g2-standard-96"
)


def problems(stack: str, mutate: Mutation) -> list[str]:
    config = copy.deepcopy(stack_config(stack))
    mutate(config["mlgov:settings"])
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


def events(s: dict[str, Any]) -> dict[str, Any]:
    return s["datasets"]["features"]["tables"]["events"]


CASES: list[tuple[str, str, Mutation, list[str]]] = [
    (
        "L4 on an N1 notebook (issue 10's staging stack)",
        "staging",
        lambda s: s["notebooks"]["pipelines"].update(machine_type="n1-standard-8"),
        [
            f"{P}.notebooks.pipelines.gpu.type: NVIDIA L4 (nvidia-l4) cannot attach to "
            f"n1-standard-8: {L4_ONLY_ON} (source: {GPU_DOC})"
        ],
    ),
    (
        "two L4s on a G2 size that carries one",
        "staging",
        lambda s: s["notebooks"]["pipelines"]["gpu"].update(count=2),
        [
            f"{P}.notebooks.pipelines.gpu.count: g2-standard-8 comes with 1 x nvidia-l4 built in; "
            f"an explicit accelerator must match it, got 2 x nvidia-l4 (source: {AO_DOC})"
        ],
    ),
    (
        "three T4s on N1",
        "dev",
        lambda s: s["notebooks"]["alice"]["gpu"].update(count=3),
        [
            f"{P}.notebooks.alice.gpu.count: 3 x nvidia-tesla-t4 on n1-standard-4: N1 takes "
            f"nvidia-tesla-t4 in counts [1, 2, 4] (source: {GPU_DOC})"
        ],
    ),
    (
        "T4 on an E2 notebook",
        "dev",
        lambda s: s["notebooks"]["alice"].update(machine_type="e2-standard-4"),
        [
            f"{P}.notebooks.alice.gpu.type: NVIDIA T4 (nvidia-tesla-t4) cannot attach to "
            f"e2-standard-4: it runs only on n1-* (source: {GPU_DOC})"
        ],
    ),
    (
        "L4 training pool on N1",
        "staging",
        lambda s: s["training_pools"]["l4-spot"].update(machine_type="n1-standard-8"),
        [
            f"{P}.training_pools.l4-spot.accelerator: NVIDIA L4 (nvidia-l4) cannot attach to "
            f"n1-standard-8: {L4_ONLY_ON} (source: {GPU_DOC})"
        ],
    ),
    (
        "training pool count a G2 type does not carry",
        "prod",
        lambda s: s["training_pools"]["l4-spot"].update(accelerator_count=2),
        [
            f"{P}.training_pools.l4-spot.accelerator_count: g2-standard-16 comes with 1 x "
            f"nvidia-l4 built in; an explicit accelerator must match it, got 2 x nvidia-l4 "
            f"(source: {AO_DOC})"
        ],
    ),
    (
        "GPU VM with an L4 on an A2 (which carries its own A100)",
        "staging",
        lambda s: s["gpu_vms"]["nightly-eval"].update(machine_type="a2-highgpu-1g"),
        [
            f"{P}.gpu_vms.nightly-eval.gpu.type: a2-highgpu-1g comes with 1 x nvidia-tesla-a100 "
            f"built in; an explicit accelerator must match it, got nvidia-l4 (source: {AO_DOC})"
        ],
    ),
    (
        "TPU runtime of another generation",
        "prod",
        lambda s: s["tpu_vms"]["research-v5e"].update(runtime_version="v2-alpha-tpuv5"),
        [
            f"{P}.tpu_vms.research-v5e.runtime_version: runtime version 'v2-alpha-tpuv5' is for "
            "TPU v5p, not v5litepod-8 (TPU v5e); use v2-alpha-tpuv5-lite "
            f"(source: {TPU_RUNTIMES})"
        ],
    ),
    (
        "TPU v4 in a zone that does not offer it",
        "prod",
        lambda s: s["tpu_vms"]["research-v5e"].update(
            accelerator_type="v4-8", runtime_version="tpu-ubuntu2204-base"
        ),
        [
            f"{P}.tpu_vms.research-v5e.zone: TPU v4 (v4-8) is offered only in us-central2-b, not "
            f"in europe-west4-b (source: {TPU_ZONES})"
        ],
    ),
    (
        "TPU v4 placed in the stack's first zone",
        "prod",
        lambda s: s["tpu_vms"]["research-v5e"].update(
            accelerator_type="v4-8", runtime_version="tpu-ubuntu2204-base", zone=None
        ),
        [
            f"{P}.tpu_vms.research-v5e.zone: not set, so the stack's first zone 'europe-west4-a': "
            "TPU v4 (v4-8) is offered only in us-central2-b, not in europe-west4-a "
            f"(source: {TPU_ZONES})"
        ],
    ),
    (
        "GKE TPU topology of the wrong shape",
        "prod",
        lambda s: s["training_pools"]["tpu-v5e"].update(tpu_topology="2x2x2"),
        [
            f"{P}.training_pools.tpu-v5e.tpu_topology: tpuTopology '2x2x2' does not fit "
            f"ct5lp-hightpu-4t: TPU v5e topologies are AxB (source: {GKE_TPUS})"
        ],
    ),
    (
        "GKE TPU topology that is not whole nodes",
        "prod",
        lambda s: s["training_pools"]["tpu-v5e"].update(tpu_topology="1x2"),
        [
            f"{P}.training_pools.tpu-v5e.tpu_topology: tpuTopology '1x2' has 2 chips, not a "
            f"whole number of ct5lp-hightpu-4t nodes (4 chips each) (source: {GKE_TPUS})"
        ],
    ),
    (
        "GKE TPU v4 pool in the stack's zones",
        "prod",
        lambda s: s["training_pools"]["tpu-v5e"].update(machine_type="ct4p-hightpu-4t", zones=[]),
        [
            f"{P}.training_pools.tpu-v5e.zones: not set, so the stack's zones ['europe-west4-a', "
            "'europe-west4-b']: TPU v4 (v4-4) is offered only in us-central2-b, not in "
            f"europe-west4-a (source: {TPU_ZONES})"
        ],
    ),
    (
        "partitioned table without a schema (issue 10's staging and prod stacks)",
        "staging",
        lambda s: events(s).pop("schema"),
        [
            f"{P}.datasets.features.tables.events.partition_field: the table declares no schema "
            "but is partitioned on partition column 'event_ts': a table with field based "
            "partitioning must have a schema; list it under schema with type TIMESTAMP, DATE or "
            f"DATETIME (source: {PARTITIONING})"
        ],
    ),
    (
        "clustering without a schema (issue 10's prod stack)",
        "prod",
        lambda s: events(s).update(partition_field=None, schema=[]),
        [
            f"{P}.datasets.features.tables.events.clustering.0: clustering column 'user_id': the "
            "table declares no schema; clustering columns must be top-level schema columns; list "
            f"it under schema, or drop it from clustering (source: {CLUSTERING})"
        ],
    ),
    (
        "partition column not in the schema",
        "prod",
        lambda s: events(s).update(partition_field="ts"),
        [
            f"{P}.datasets.features.tables.events.partition_field: partition column 'ts' is not a "
            "top-level column of the schema (columns: ['event_name', 'event_ts', 'user_id']); "
            f"list it under schema with type TIMESTAMP, DATE or DATETIME (source: {PARTITIONING})"
        ],
    ),
    (
        "partition column of a type BigQuery cannot partition on",
        "prod",
        lambda s: events(s).update(partition_field="user_id"),
        [
            f"{P}.datasets.features.tables.events.partition_field: partition column 'user_id' is "
            f"STRING; it must be DATE or DATETIME or TIMESTAMP (source: {PARTITIONING})"
        ],
    ),
    (
        "five clustering columns",
        "prod",
        lambda s: events(s).update(
            clustering=["user_id", "event_name", "event_ts", "user_id", "event_name"]
        ),
        [
            f"{P}.datasets.features.tables.events.clustering: 5 clustering columns ['user_id', "
            "'event_name', 'event_ts', 'user_id', 'event_name']: BigQuery allows at most 4 "
            f"(source: {CLUSTERING})"
        ],
    ),
    (
        "clustering column not in the schema",
        "prod",
        lambda s: events(s).update(clustering=["user_id", "country"]),
        [
            f"{P}.datasets.features.tables.events.clustering.1: clustering column 'country': not "
            "a top-level column; clustering columns must be top-level schema columns; list it "
            f"under schema, or drop it from clustering (source: {CLUSTERING})"
        ],
    ),
]


@pytest.mark.parametrize(
    ("stack", "mutate", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_refusal_lines(stack: str, mutate: Mutation, expected: list[str]) -> None:
    assert problems(stack, mutate) == expected


@pytest.mark.parametrize(
    ("stack", "mutate"),
    [
        ("staging", lambda s: s["notebooks"]["pipelines"].update(machine_type="g2-standard-8")),
        ("dev", lambda s: s["notebooks"]["alice"]["gpu"].update(count=4)),
        ("prod", lambda s: s["training_pools"]["tpu-v5e"].update(tpu_topology="2x4")),
        ("prod", lambda s: s["datasets"]["features"]["tables"]["events"].update(clustering=[])),
        ("dev", lambda s: s["notebooks"]["alice"].update(gpu=None)),
    ],
    ids=["l4-on-g2", "four-t4s-on-n1", "v5e-2x4", "no-clustering", "no-gpu"],
)
def test_compliant_neighbours_are_accepted(stack: str, mutate: Mutation) -> None:
    config = copy.deepcopy(stack_config(stack))
    mutate(config["mlgov:settings"])
    settings_from_config(config)


def test_a_gpu_both_disallowed_and_unattachable_gets_both_lines() -> None:
    found = problems(
        "dev", lambda s: s["notebooks"]["alice"]["gpu"].update(type="NVIDIA_H100_80GB")
    )
    assert [line.split(": ", 1)[0] for line in found] == [f"{P}.notebooks.alice.gpu.type"] * 2
    assert "is not allowed in dev" in found[0]
    assert "cannot attach to n1-standard-4" in found[1]
