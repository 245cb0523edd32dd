"""What the Google APIs would refuse in the settings, caught before any resource is built.

GPU types on machine types that cannot carry them (notebooks, GKE training pools, GPU VMs, and
the GPU counts each machine type takes), TPU runtime versions of another generation, TPU zones
and GKE TPU topologies the generation does not offer, and BigQuery tables whose partition or
clustering columns are not top-level columns of their schema. The facts and the one-line
verdicts are mlgov_policies.compat's (each with its Google source), the same ones the policy
pack's cloud-acceptance rules apply to any plan; this module only maps them onto setting keys.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Protocol

from governance.settings.base import Problem
from governance.settings.workload_maps import WorkloadMaps
from mlgov_policies.compat import (
    gke_tpu_zone_problem,
    gpu_problem,
    schema_problems,
    tpu_runtime_problem,
    tpu_topology_problem,
    tpu_zone_problem,
)

if TYPE_CHECKING:
    from governance.settings.datasets import DatasetSettings, TableSettings


def gpu_pairing(
    machine_type: str, gpu: str, count: int, *, gpu_key: str, count_key: str
) -> Iterator[Problem]:
    """The GPU model on the machine type (at `gpu_key`), else the GPU count (at `count_key`)."""
    model = gpu_problem(machine_type, gpu)
    if model is not None:
        yield gpu_key, model
    elif (counted := gpu_problem(machine_type, gpu, count)) is not None:
        yield count_key, counted


class _AcceptanceStack(WorkloadMaps, Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def zones(self) -> tuple[str, ...]: ...

    @property
    def datasets(self) -> Mapping[str, DatasetSettings]: ...

    def zone_for(self, zone: str | None) -> str: ...


def gpu_problems(s: _AcceptanceStack) -> Iterator[Problem]:
    """Notebook, training-pool and GPU-VM accelerators on machine types that take them."""
    for name, nb in s.notebooks.items():
        if nb.gpu is not None:
            path = f"notebooks.{name}.gpu"
            yield from gpu_pairing(
                nb.machine_type, nb.gpu.type, nb.gpu.count,
                gpu_key=f"{path}.type", count_key=f"{path}.count",
            )  # fmt: skip
    for name, pool in s.training_pools.items():
        if pool.kind == "gpu" and pool.accelerator is not None:
            path = f"training_pools.{name}"
            yield from gpu_pairing(
                pool.machine_type, pool.accelerator, pool.accelerator_count,
                gpu_key=f"{path}.accelerator", count_key=f"{path}.accelerator_count",
            )  # fmt: skip
    for name, vm in s.gpu_vms.items():
        path = f"gpu_vms.{name}.gpu"
        yield from gpu_pairing(
            vm.machine_type, vm.gpu.type, vm.gpu.count,
            gpu_key=f"{path}.type", count_key=f"{path}.count",
        )  # fmt: skip


def _default_zone(zone: str) -> str:
    return f"not set, so the stack's first zone {zone!r}: "


def tpu_problems(s: _AcceptanceStack) -> Iterator[Problem]:
    """TPU VM runtime versions and zones; GKE TPU pool topologies and zones."""
    for name, tpu in s.tpu_vms.items():
        path = f"tpu_vms.{name}"
        runtime = tpu_runtime_problem(tpu.accelerator_type, tpu.runtime_version)
        if runtime is not None:
            yield f"{path}.runtime_version", runtime
        zone = s.zone_for(tpu.zone)
        if (offered := tpu_zone_problem(tpu.accelerator_type, zone)) is not None:
            yield f"{path}.zone", (_default_zone(zone) if tpu.zone is None else "") + offered
    for name, pool in s.training_pools.items():
        if pool.kind != "tpu":
            continue
        path = f"training_pools.{name}"
        if pool.tpu_topology is not None:
            topology = tpu_topology_problem(pool.machine_type, pool.tpu_topology)
            if topology is not None:
                yield f"{path}.tpu_topology", topology
        if pool.zones:
            for i, zone in enumerate(pool.zones):
                if (offered := gke_tpu_zone_problem(pool.machine_type, zone)) is not None:
                    yield f"{path}.zones.{i}", offered
            continue
        # Not set: the pool spans the stack's zones; one line for all of them.
        refused = [(z, p) for z in s.zones if (p := gke_tpu_zone_problem(pool.machine_type, z))]
        if refused:
            yield f"{path}.zones", f"not set, so the stack's zones {list(s.zones)}: {refused[0][1]}"


# What to change in the settings when a column is missing from the table's schema.
_ADD_COLUMN = {
    "partition_field": "; list it under schema with type TIMESTAMP, DATE or DATETIME",
    "clustering": "; list it under schema, or drop it from clustering",
}


def table_problems(path: str, table: TableSettings) -> Iterator[Problem]:
    """One table's partition and clustering columns against its schema."""
    schema = list(table.schema_fields) or None
    for problem in schema_problems(schema, table.partition_field, table.clustering):
        key = problem.part if problem.part in _ADD_COLUMN else "schema"
        where = f"{path}.{key}" if problem.index is None else f"{path}.{key}.{problem.index}"
        message = problem.message
        if problem.missing:
            # The fix goes before the closing "(source: ...)" so the line reads in order.
            head, sep, source = message.rpartition(" (source: ")
            message = (
                f"{head}{_ADD_COLUMN[key]}{sep}{source}" if sep else message + _ADD_COLUMN[key]
            )
        yield where, message


def bigquery_problems(s: _AcceptanceStack) -> Iterator[Problem]:
    """Each table's partition and clustering columns are top-level columns of its schema."""
    for dataset, ds in s.datasets.items():
        for name, table in ds.tables.items():
            yield from table_problems(f"datasets.{dataset}.tables.{name}", table)


def problems(s: _AcceptanceStack) -> Iterator[Problem]:
    """Everything the Google APIs would refuse at create time, by setting key."""
    yield from gpu_problems(s)
    yield from tpu_problems(s)
    yield from bigquery_problems(s)
