"""Machines, GPUs and TPUs the settings ask for in a region that does not sell them.

The price catalog knows where each machine type, GPU and TPU generation is sold (the Billing
Catalog prices a type exactly where Google offers it; documented lists for attached GPUs and
TPUs, each with its source). A notebook, training pool, TPU VM or GPU VM asking for one where it
is not offered is refused here, with its key path, as `pulumi up` would fail on it; the estimate
reports the same for plans of any program (governance/costs/findings.py). Where no source says,
nothing is judged. Which GPU attaches to which machine type is the compatibility checks' job.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from governance.costs.catalog import Catalog, default_catalog
from governance.costs.errors import CatalogError
from governance.costs.machines import gpu_model, machine_shape, tpu_chips
from governance.costs.regions import region_of
from governance.settings.base import Problem
from governance.settings.locations import region_offered
from governance.settings.workload_maps import WorkloadMaps
from mlgov_policies.compat import tpus as tpu_facts


def _missing(catalog: Catalog, what: str, label: str, region: str) -> str | None:
    # A region Google does not offer at all is one line of its own (locations.py).
    if not region_offered(region) or catalog.offered(what, region) is not False:
        return None
    where = ", ".join(catalog.where_offered(what)) or "no region the catalog knows"
    source = catalog.source_of(what)
    return (
        f"{label} is not offered in region {region} (offered in {where}"
        + (f"; source: {source})" if source else ")")
        + "; choose another type or a zone in a region that offers it"
    )


def _zones_known(generation: object) -> bool:
    """Whether Google's TPU zone list covers this generation: then acceptance.py judges the zone.

    That check names the zone and its source; the catalog's region-level answer would only repeat
    it in a second line.
    """
    return generation is not None and bool(getattr(generation, "zones", ()))


def _machine(catalog: Catalog, machine_type: str, region: str) -> str | None:
    try:
        shape = machine_shape(machine_type, catalog)
    except CatalogError:
        return None  # not a type the catalog knows: the estimate says it is unpriced
    if shape.tpu:
        gke = tpu_facts.gke_machine(machine_type)
        if gke is not None and _zones_known(gke[0]):
            return None
        return _missing(catalog, f"tpu.{shape.tpu}", f"TPU {shape.tpu} ({machine_type})", region)
    return _missing(catalog, f"gce.type.{shape.name}", f"machine type {machine_type}", region)


def _gpu(catalog: Catalog, gpu_type: str, machine_type: str, region: str) -> str | None:
    try:
        if machine_shape(machine_type, catalog).gpu:
            return None  # built into the type (G2's L4): the type's own check covers it
    except CatalogError:
        pass
    model = gpu_model(gpu_type)
    return _missing(catalog, f"gpu.{model}", f"GPU {model}", region)


class _OfferedStack(WorkloadMaps, Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def region(self) -> str: ...

    def zone_for(self, zone: str | None) -> str: ...


def problems(s: _OfferedStack) -> Iterator[Problem]:
    """Each notebook, pool, TPU VM and GPU VM against what its region offers."""
    catalog = default_catalog()
    for name, nb in s.notebooks.items():
        region = region_of(s.zone_for(nb.zone))
        if found := _machine(catalog, nb.machine_type, region):
            yield f"notebooks.{name}.machine_type", found
        if nb.gpu is not None and (found := _gpu(catalog, nb.gpu.type, nb.machine_type, region)):
            yield f"notebooks.{name}.gpu.type", found
    for name, pool in s.training_pools.items():
        region = region_of(pool.zones[0]) if pool.zones else s.region
        if found := _machine(catalog, pool.machine_type, region):
            yield f"training_pools.{name}.machine_type", found
        if (
            pool.kind == "gpu"
            and pool.accelerator
            and (found := _gpu(catalog, pool.accelerator, pool.machine_type, region))
        ):
            yield f"training_pools.{name}.accelerator", found
    for name, tpu in s.tpu_vms.items():
        region = region_of(s.zone_for(tpu.zone))
        if _zones_known(tpu_facts.generation(tpu.accelerator_type)):
            continue
        try:
            gen, _ = tpu_chips(tpu.accelerator_type)
        except CatalogError:
            continue
        if found := _missing(catalog, f"tpu.{gen}", f"TPU {gen} ({tpu.accelerator_type})", region):
            yield f"tpu_vms.{name}.accelerator_type", found
    for name, vm in s.gpu_vms.items():
        region = region_of(s.zone_for(vm.zone))
        if found := _machine(catalog, vm.machine_type, region):
            yield f"gpu_vms.{name}.machine_type", found
        if found := _gpu(catalog, vm.gpu.type, vm.machine_type, region):
            yield f"gpu_vms.{name}.gpu.type", found
