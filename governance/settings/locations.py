"""Regions, zones and BigQuery locations the settings name: only ones Google offers.

Regions are the price catalog's (governance/costs/prices_regional.json, built from Google's
Billing Catalog: a region is priced exactly where Google sells in it), plus those of the zone
table. Zones are Google's Compute Engine regions-and-zones table, kept as data with its source
and date in zones.json, plus the zones Google's TPU page names (AI zones such as us-central1-ai1
are only there); a region the catalog prices but the table lacks (the file says which) has its
zones accepted unjudged. A typo gets a suggestion: the region's real zones, or the closest
region names. Whether a machine, GPU or TPU is sold in the region is offered.py's concern.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol, cast

from governance.costs.catalog import default_catalog
from governance.settings.base import REGION_PATTERN, Problem, shown
from governance.settings.workload_maps import WorkloadMaps
from mlgov_policies.compat.tpus import TPU_GENERATIONS

if TYPE_CHECKING:
    from governance.costs.assumptions import UsageAssumptions
    from governance.settings.billing_export import BillingExportSettings
    from governance.settings.datasets import DatasetSettings
    from governance.settings.limits import Limits

BIGQUERY_MULTI_REGIONS = ("US", "EU")
"""BigQuery's multi-region locations (https://cloud.google.com/bigquery/docs/locations)."""


@functools.cache
def zone_table() -> Mapping[str, Any]:
    """zones.json: `regions` (region -> its zones), `source`, `retrieved`, `incomplete`."""
    text = resources.files("governance.settings").joinpath("zones.json").read_text("utf-8")
    return cast(Mapping[str, Any], json.loads(text))


def _table_zones() -> Mapping[str, list[str]]:
    return cast(Mapping[str, list[str]], zone_table()["regions"])


@functools.cache
def _tpu_zones() -> frozenset[str]:
    """Zones Google's TPU page names (each generation's list, with its own source)."""
    return frozenset(zone for g in TPU_GENERATIONS for zone in g.zones)


@functools.cache
def offered_regions() -> tuple[str, ...]:
    """Every region name Google offers: the catalog's (not multi-regions) and the zone table's."""
    priced = {r for r in default_catalog().regions if re.fullmatch(REGION_PATTERN, r)}
    return tuple(sorted(priced | set(_table_zones())))


def region_zones(region: str) -> tuple[str, ...]:
    """The zones of `region` in Google's table, in order; empty where the table lacks it."""
    return tuple(_table_zones().get(region, ()))


def region_offered(region: str) -> bool:
    """Whether `region` is a region Google offers."""
    return region in offered_regions()


def zone_region(zone: str) -> str:
    """`us-central1` for `us-central1-a`."""
    return zone.rsplit("-", 1)[0]


def _close(name: str, choices: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=3, cutoff=0.6)
    return f"; did you mean {', '.join(close)}?" if close else ""


def zones_hint(region: str) -> str:
    """`us-central1's zones are us-central1-a, ...` (or how to find them, if the table lacks it)."""
    zones = _table_zones().get(region)
    if zones:
        return f"{region}'s zones are {', '.join(zones)}"
    return f"use a zone of {region} (see {zone_table()['source']})"


def region_problem(region: str) -> str | None:
    """Why `region` is not a region Google offers, or None."""
    if region_offered(region):
        return None
    catalog = default_catalog()
    return (
        f"{shown(region)} is not a region Google offers (regions of the price catalog of "
        f"{catalog.generated}){_close(region, offered_regions())}"
    )


def zone_problem(zone: str) -> str | None:
    """Why `zone` is not a zone Google offers, or None (not judged where the table lacks it)."""
    region = zone_region(zone)
    if not region_offered(region):
        every = [z for zones in _table_zones().values() for z in zones]
        return (
            f"{shown(zone)} is not a zone Google offers: no region {region!r}{_close(zone, every)}"
        )
    zones = _table_zones().get(region)
    if zones is None or zone in zones or zone in _tpu_zones():
        return None
    return (
        f"{shown(zone)} is not a zone Google offers; did you mean one of {region}'s zones "
        f"{', '.join(zones)}? (source: {zone_table()['source']}, {zone_table()['retrieved']})"
    )


def bigquery_location_problem(location: str) -> str | None:
    """Why `location` is not a BigQuery location (a region, US or EU), or None."""
    if location.upper() in BIGQUERY_MULTI_REGIONS or region_offered(location.lower()):
        return None
    choices = (*BIGQUERY_MULTI_REGIONS, *offered_regions())
    return (
        f"{shown(location)} is not a BigQuery location (a region such as us-central1, or the "
        f"multi-regions US and EU){_close(location, choices)}"
    )


class _LocationsStack(WorkloadMaps, Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def region(self) -> str: ...

    @property
    def zones(self) -> tuple[str, ...]: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def usage(self) -> UsageAssumptions: ...

    @property
    def datasets(self) -> Mapping[str, DatasetSettings]: ...

    @property
    def billing_export(self) -> BillingExportSettings: ...


def _zones(s: _LocationsStack) -> Iterator[tuple[str, str]]:
    """(key path, zone) of every zone the settings name."""
    for i, zone in enumerate(s.zones):
        yield f"zones.{i}", zone
    for section, entries in (("notebooks", s.notebooks), ("tpu_vms", s.tpu_vms)):
        for name, entry in entries.items():
            if entry.zone is not None:
                yield f"{section}.{name}.zone", entry.zone
    for name, vm in s.gpu_vms.items():
        if vm.zone is not None:
            yield f"gpu_vms.{name}.zone", vm.zone
    for name, pool in s.training_pools.items():
        for i, zone in enumerate(pool.zones):
            yield f"training_pools.{name}.zones.{i}", zone


def _bigquery_locations(s: _LocationsStack) -> Iterator[tuple[str, str]]:
    for i, location in enumerate(s.limits.allowed_bigquery_locations):
        yield f"limits.allowed_bigquery_locations.{i}", location
    for name, ds in s.datasets.items():
        if ds.location is not None:
            yield f"datasets.{name}.location", ds.location
    if s.billing_export.location is not None:
        yield "billing_export.location", s.billing_export.location


def problems(s: _LocationsStack) -> Iterator[Problem]:
    """The region, every zone, every BigQuery location and the pricing region: offered ones."""
    if found := region_problem(s.region):
        yield "region", found
    for path, zone in _zones(s):
        if found := zone_problem(zone):
            yield path, found
    for path, location in _bigquery_locations(s):
        if found := bigquery_location_problem(location):
            yield path, found
    if found := region_problem(s.usage.default_region):
        yield "usage.default_region", found
