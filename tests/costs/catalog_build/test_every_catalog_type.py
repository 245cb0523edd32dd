"""Every machine type the committed catalog holds parses and prices like the export (issue 31).

Not a sample: every `gce.type.<name>` of prices_regional.json, in every region and for every
pricing model the export has (on-demand by the hour and for a month with Google's sustained-use
discount, spot, 1- and 3-year commitments), priced through the estimator (export_walk.py). Each
row lands within 1% of the export's own figure, the -ext types included (their extended
memory at the catalog's custom RAM rate, as the export prices it); none fails to parse and none
is unpriced.

The export's figures are the full Billing Catalog export where it is present (its `month` column
is Google's sustained-use price as the export computed it); on a clean clone they are read back
from the committed catalog, which test_regional_current.py proves is that export's, byte for
byte: hour and spot per type, commitments per type x 730 h, and the month as hour x 730 x the
family's full-month factor (`sud.<family>.full_month`, the export's month / (hour x 730)).
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest
from catalog_reference import full_export
from export_walk import COLUMNS, Row, walk_machine

from governance.costs.catalog import Catalog, default_catalog
from governance.costs.machines import machine_shape

HOURS = 730.0


def catalog_types(catalog: Catalog) -> list[str]:
    return sorted(k.removeprefix("gce.type.") for k in catalog.keys("gce.type."))


def _family(name: str) -> str:
    # the export's family: its `type` for custom shapes (n1-custom), else the name's first part
    return "n1-custom" if name.startswith("custom-") else name.split("-", 1)[0]


def prices_from_catalog(catalog: Catalog, name: str) -> dict[str, dict[str, float]]:
    """The export's columns for one type, as the committed catalog keeps them."""
    key = f"gce.type.{name}"
    factor = catalog.find(f"sud.{_family(name)}.full_month", "global")
    out: dict[str, dict[str, float]] = {}
    for usage, columns in (
        ("ondemand", (("hour", 1.0), ("month", HOURS * (factor.usd if factor else 1.0)))),
        ("spot", (("hour_spot", 1.0), ("month_spot", HOURS))),
        ("1y", (("month_1y", HOURS),)),
        ("3y", (("month_3y", HOURS),)),
    ):
        for region in catalog.regions_for(key, usage):
            usd = catalog.price(key, region, usage).usd
            for column, times in columns:
                out.setdefault(region, {})[column] = usd * times
    return out


@cache
def export_prices() -> dict[str, dict[str, dict[str, float]]] | None:
    """Type -> region -> column -> USD of the full export, where it is present."""
    export = full_export()
    if export is None:
        return None
    return {
        m.name: {r: {c: float(v) for c, v in cols.items()} for r, cols in m.prices.items()}
        for m in export.machines.values()
        if m.prices
    }


@cache
def type_prices(name: str) -> dict[str, dict[str, float]]:
    """One type's export figures, region -> column -> USD (the full export's, else the
    catalog's), worked out once and read by every column's walk (never written to)."""
    full = export_prices()
    return full[name] if full is not None else prices_from_catalog(default_catalog(), name)


@cache
def rows(column: str) -> tuple[Row, ...]:
    """Every type's rows of one export column (the full export's, else the catalog's)."""
    catalog = default_catalog()
    out: list[Row] = []
    for name in catalog_types(catalog):
        prices = type_prices(name)
        only = {r: {column: cols[column]} for r, cols in prices.items() if column in cols}
        out += walk_machine(name, only, catalog)
    return tuple(out)


def test_the_walk_covers_exactly_the_types_the_catalog_prices():
    catalog = default_catalog()
    types = catalog_types(catalog)
    assert len(types) >= 500
    # the four the issue names, whose names alone do not tell their shape
    for name in ("a3-megagpu-8g", "z3-highmem-192-highlssd-metal", "c4-highmem-288-lssd-metal",
                 "c4-standard-288-lssd-metal"):  # fmt: skip
        assert name in types
    if (full := export_prices()) is not None:
        assert set(full) == set(types)


def test_every_catalog_type_parses_to_the_shape_the_export_lists():
    catalog = default_catalog()
    wrong = []
    for name in catalog_types(catalog):
        shape = machine_shape(name, catalog)
        facts = catalog.machine(name)
        assert facts is not None, name
        built_in = {shape.gpu: shape.gpu_count} if shape.gpu else {}
        if (shape.vcpus, shape.memory_gib, built_in) != (facts.vcpus, facts.memory_gib,
                                                         dict(facts.gpus)):  # fmt: skip
            wrong.append((name, shape, facts))
    assert not wrong, wrong[:3]


@pytest.mark.parametrize("column", sorted(COLUMNS))
def test_every_catalog_type_prices_like_the_export_in_every_region(column):
    found = rows(column)
    statuses = Counter(r.status for r in found)
    wrong = [r for r in found if r.status not in ("within", "skipped")]
    assert not wrong, f"{len(wrong)} rows not within 1%, e.g. {wrong[:3]}"
    assert statuses["within"] > 15_000
    # the -ext types the catalog lists (extended memory above 6.5 GiB per vCPU) are priced at
    # the catalog's own figure too, in every column
    ext = [r for r in found if r.machine in ("custom-1-7680-ext", "custom-4-30720-ext")]
    assert ext and all(r.status == "within" for r in ext)


def test_the_four_types_the_issue_names_price_at_the_export_figure():
    by_key = {(r.machine, r.region): r for r in rows("month")}
    a3 = by_key["a3-megagpu-8g", "asia-northeast1"]
    # $87,071.75 a month in asia-northeast1 (the export's month column)
    assert a3.status == "within" and a3.got == pytest.approx(87071.75, rel=1e-4)
    for name in ("z3-highmem-192-highlssd-metal", "c4-highmem-288-lssd-metal",
                 "c4-standard-288-lssd-metal"):  # fmt: skip
        found = [r for (m, _), r in by_key.items() if m == name]
        assert found and all(r.status == "within" for r in found), name
