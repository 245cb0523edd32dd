"""The shipped price catalog: format, sources and dates, well-known list prices, machine shapes."""

from __future__ import annotations

import json
import statistics
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest

from governance.costs.catalog import DEFAULT_PATH, default_catalog
from governance.costs.errors import CatalogError
from governance.costs.machines import gpu_model, machine_shape, tpu_chips, tpu_from_config

REGIONS = ("us-central1", "europe-west4")


def test_catalog_file_is_the_regional_format_usd_with_sources_and_dates():
    doc = json.loads(DEFAULT_PATH.read_text())
    assert DEFAULT_PATH.name == "prices_regional.json"
    assert (doc["format"], doc["currency"], doc["generated"]) == (
        "mlgov-regional-price-catalog", "USD", "2026-07-30"
    )  # fmt: skip
    assert not (DEFAULT_PATH.parent / "prices.json").exists()  # one catalog, one file
    for series in doc["series"]:
        assert series["unit"] and series["date"] and series["how"], series["key"]
        source = series["source"]
        url = doc["sources"][source]["url"] if source in doc["sources"] else source
        assert url.startswith("https://"), series["key"]
    # undated snapshots say so: the SkyPilot copy is dated by when it was read, not generated
    assert "carries NO generation date" in doc["sources"]["skypilot-gcp-catalog"]["note"]


def test_n1_standard_4_us_central1_on_demand_hourly():
    cat = default_catalog()
    shape = machine_shape("n1-standard-4")
    hourly = (
        shape.vcpus * cat.price("gce.n1.vcpu", "us-central1").usd
        + shape.memory_gib * cat.price("gce.n1.ram", "us-central1").usd
    )
    # Compute Engine list price of n1-standard-4 in Iowa: $0.189999/hour
    assert hourly == pytest.approx(0.189999, abs=1e-6)
    assert cat.price("gce.type.n1-standard-4", "us-central1").usd == pytest.approx(0.189999)


def test_e2_shared_core_types_have_their_own_prices():
    cat = default_catalog()
    listed = {"e2-micro": 0.008376, "e2-small": 0.016751, "e2-medium": 0.033503}
    for name, usd in listed.items():
        # the pricing page rounds to 6 digits; the Billing Catalog export has more
        assert cat.price(f"gce.type.{name}", "us-central1").usd == pytest.approx(usd, rel=2e-4)


def test_t4_on_demand_and_spot_and_pd_balanced():
    cat = default_catalog()
    assert cat.price("gpu.nvidia-tesla-t4", "us-central1").usd == 0.35
    assert cat.price("gpu.nvidia-tesla-t4", "us-central1", "spot").usd == 0.175
    assert cat.price("disk.pd-balanced", "us-central1").usd == 0.10
    assert cat.price("disk.pd-balanced", "us-central1").unit == "GiB-month"
    gke = cat.price("gke.cluster", "us-central1")
    assert (gke.usd, gke.region, gke.requested) == (0.10, "global", "")  # global, no fallback


@pytest.mark.parametrize("region", REGIONS)
def test_spot_cheaper_than_on_demand_for_every_gpu_and_tpu(region):
    cat = default_catalog()
    keys = [k for k in sorted(cat.keys("gpu.") | cat.keys("tpu.")) if cat.find(k, region)]
    assert len(keys) >= 4
    for key in keys:
        on_demand = cat.price(key, region, "ondemand").usd
        spot = cat.price(key, region, "spot").usd
        assert 0 < spot < on_demand, key


@pytest.mark.parametrize("region", REGIONS)
def test_regions_the_stacks_use_have_compute_disks_bigquery_storage_fees(region):
    cat = default_catalog()
    for key in ("gce.type.n1-standard-8", "gce.type.g2-standard-16", "gce.type.e2-standard-4",
                "disk.pd-standard", "disk.pd-ssd", "bigquery.storage.active", "storage.standard",
                "workbench.mgmt.vcpu", "nat.gateway_vm"):  # fmt: skip
        found = cat.find(key, region)
        assert found is not None and found.usd > 0, key


# Cloud SQL SKUs per region with their Americas counterparts (infracost-cloudsql-2024; see
# tests/costs/data/SOURCES.md)
SQL_SKUS = Path(__file__).parent / "data" / "cloudsql_2024_skus.json"
SQL_KEYS = ("sql.enterprise.vcpu", "sql.enterprise.ram", "sql.shared.db-f1-micro",
            "sql.shared.db-g1-small", "sql.storage.pd-ssd", "sql.storage.pd-hdd")  # fmt: skip


def _four_decimals(usd: float) -> float:
    return float(Decimal(repr(usd)).quantize(Decimal("0.0001"), ROUND_HALF_UP))


def test_cloud_sql_is_the_americas_price_times_one_factor_per_region():
    """Every SKU of a region is its Americas price times one factor; the catalog applies it.

    europe-west1's SKUs are named "in EMEA" (factor 1.0, as us-central1's "in Americas"),
    europe-west4's "in Netherlands" (1.1): neither had a per-unit SKU in the snapshot, so both
    fell back to europe-west2 (1.2), about 9% high.
    """
    regions: dict[str, list[list[Any]]] = json.loads(SQL_SKUS.read_text())["regions"]
    cat = default_catalog()
    assert len(regions) >= 40
    factors: dict[str, float] = {}
    for region, skus in regions.items():
        ratios = [usd / americas for _, usd, americas in skus]
        factor = round(statistics.median(ratios), 3)
        assert all(abs(r / factor - 1) < 0.005 for r in ratios), (region, skus)
        factors[region] = factor
    assert (factors["europe-west1"], factors["europe-west4"], factors["europe-west3"]) == (
        1.0, 1.1, 1.2,
    )  # fmt: skip
    for key in SQL_KEYS:
        base = cat.price(key, "us-central1").usd
        for region, factor in factors.items():
            found = cat.find(key, region)
            assert found is not None and found.region == region, (key, region)  # no fallback
            assert found.usd == pytest.approx(_four_decimals(base * factor), abs=0.00011), (
                key, region,
            )  # fmt: skip
    assert cat.price("sql.enterprise.vcpu", "europe-west4").usd == pytest.approx(0.0454)
    assert cat.price("sql.enterprise.ram", "europe-west1").usd == pytest.approx(0.007)


def test_cloud_sql_elsewhere_without_a_price_still_falls_back_to_the_nearest_region():
    cat = default_catalog()
    assert cat.price("sql.enterprise.vcpu", "europe-west2").usd == pytest.approx(0.0496)
    assert cat.find("sql.enterprise.vcpu", "europe-north2") is None  # not in the snapshot
    fallback = cat.price("sql.enterprise.vcpu", "europe-north2")
    assert fallback.requested == "europe-north2" and fallback.region == "europe-north1"
    # no documented backup price outside us-central1: that one still comes from there
    assert cat.price("sql.backup", "europe-west4").region == "us-central1"


def test_cloud_run_functions_prices_are_tier_1_request_based():
    cat = default_catalog()
    assert cat.price("functions.vcpu_second", "global").usd == pytest.approx(0.000024)
    assert cat.price("functions.gib_second", "global").usd == pytest.approx(0.0000025)
    assert cat.price("functions.invocation", "global").usd == pytest.approx(0.40 / 1e6)


def test_machine_shapes():
    assert machine_shape("n1-highmem-8").memory_gib == 52
    assert machine_shape("zones/us-central1-a/machineTypes/e2-standard-4").vcpus == 4
    g2 = machine_shape("g2-standard-24")
    assert (g2.gpu, g2.gpu_count, g2.memory_gib) == ("nvidia-l4", 2, 96)
    a2 = machine_shape("a2-ultragpu-1g")
    assert (a2.family, a2.gpu, a2.gpu_count) == ("a2", "nvidia-a100-80gb", 1)
    assert machine_shape("custom-2-7680").memory_gib == 7.5
    assert machine_shape("ct5lp-hightpu-4t").tpu_chips == 4
    assert machine_shape("g1-small").fixed_key == "gce.shared.g1-small"


def test_unknown_machine_gpu_tpu_names_are_errors():
    with pytest.raises(CatalogError, match="'galactic'"):
        machine_shape("galactic")
    generic = machine_shape("m9-galactic-64")  # Google's pattern: priced only from the catalog
    assert (generic.family, generic.vcpus, generic.generic) == ("m9", 0.0, True)
    assert machine_shape("c3-standard-8").vcpus == 8
    with pytest.raises(CatalogError, match="'v3-8'"):
        tpu_chips("v3-8")
    with pytest.raises(CatalogError, match="V2"):
        tpu_from_config("V2", "2x2")
    assert tpu_chips("v4-8") == ("v4", 4)  # v4 sizes count TensorCores, 2 per chip
    assert tpu_chips("v5e-16") == ("v5litepod", 16)
    assert tpu_from_config("V6E", "2x4") == ("v6e", 8)
    assert gpu_model("NVIDIA_A100_80GB") == "nvidia-a100-80gb"
