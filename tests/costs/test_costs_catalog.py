"""The shipped price catalog: shape, well-known list prices, spot below on-demand."""

from __future__ import annotations

import json

import pytest

from governance.costs.catalog import DEFAULT_PATH, Catalog, default_catalog, load_catalog
from governance.costs.errors import CatalogError
from governance.costs.machines import gpu_model, machine_shape, tpu_chips, tpu_from_config

REGIONS = ("us-central1", "europe-west4")


def test_catalog_file_is_versioned_usd_with_sources_and_dates():
    doc = json.loads(DEFAULT_PATH.read_text())
    assert doc["version"] >= 1
    assert doc["currency"] == "USD"
    assert doc["generated"]
    for entry in doc["entries"]:
        assert entry["unit"]
        assert entry["date"]
        assert entry["source"].startswith(("https://cloud.google.com/", "Cloud Billing Catalog"))


def test_n1_standard_4_us_central1_on_demand_hourly():
    cat = default_catalog()
    shape = machine_shape("n1-standard-4")
    hourly = (
        shape.vcpus * cat.price("gce.n1.vcpu", "us-central1").usd
        + shape.memory_gib * cat.price("gce.n1.ram", "us-central1").usd
    )
    # Compute Engine list price of n1-standard-4 in Iowa: $0.189999/hour
    assert hourly == pytest.approx(0.189999, abs=1e-6)


def test_e2_shared_core_formula_matches_list_prices():
    cat = default_catalog()
    vcpu, ram = (
        cat.price("gce.e2.vcpu", "us-central1").usd,
        cat.price("gce.e2.ram", "us-central1").usd,
    )
    listed = {"e2-micro": 0.008376, "e2-small": 0.016751, "e2-medium": 0.033503}
    for name, price in listed.items():
        shape = machine_shape(name)
        assert shape.vcpus * vcpu + shape.memory_gib * ram == pytest.approx(price, abs=2e-6)


def test_t4_on_demand_and_spot_and_pd_balanced():
    cat = default_catalog()
    assert cat.price("gpu.nvidia-tesla-t4", "us-central1").usd == 0.35
    assert cat.price("gpu.nvidia-tesla-t4", "us-central1", "spot").usd < 0.35
    assert cat.price("disk.pd-balanced", "us-central1").usd == 0.10
    assert cat.price("disk.pd-balanced", "us-central1").unit == "GiB-month"
    assert cat.price("gke.cluster", "us-central1").usd == 0.10  # global entry


@pytest.mark.parametrize("region", REGIONS)
def test_spot_cheaper_than_on_demand_for_every_gpu_and_tpu(region):
    cat = default_catalog()
    keys = cat.keys("gpu.") | {k for k in cat.keys("tpu.")}
    assert len(keys) >= 12
    for key in sorted(keys):
        on_demand = cat.price(key, region, "ondemand").usd
        spot = cat.price(key, region, "spot").usd
        assert 0 < spot < on_demand, key


@pytest.mark.parametrize("region", REGIONS)
def test_regions_the_stacks_use_have_compute_disks_sql_bigquery(region):
    cat = default_catalog()
    for key in ("gce.n1.vcpu", "gce.n2.ram", "gce.e2.vcpu", "gce.g2.vcpu", "gce.a2.ram",
                "disk.pd-standard", "disk.pd-ssd", "sql.enterprise.vcpu", "sql.storage.pd-ssd",
                "bigquery.storage.active", "storage.standard", "workbench.mgmt.vcpu"):  # fmt: skip
        assert cat.price(key, region).usd > 0


def test_missing_price_names_key_region_and_what_exists():
    with pytest.raises(CatalogError, match=r"'gce.n1.vcpu' in region 'asia-east1'.*us-central1"):
        default_catalog().price("gce.n1.vcpu", "asia-east1")


def test_bad_catalog_documents_are_clear_errors(tmp_path):
    with pytest.raises(CatalogError, match="needs 'version'"):
        Catalog.from_dict({"currency": "USD"})
    with pytest.raises(CatalogError, match="EUR"):
        Catalog.from_dict({"version": 1, "currency": "EUR", "generated": "x", "entries": []})
    bad = {"version": 1, "currency": "USD", "generated": "x", "entries": [{"key": "k"}]}
    with pytest.raises(CatalogError, match=r"entries\[0\]"):
        Catalog.from_dict(bad)
    path = tmp_path / "p.json"
    path.write_text("{nope")
    with pytest.raises(CatalogError, match="not JSON"):
        load_catalog(path)
    with pytest.raises(CatalogError, match="cannot read"):
        load_catalog(tmp_path / "missing.json")


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
    with pytest.raises(CatalogError, match="'m9-galactic-64'"):
        machine_shape("m9-galactic-64")
    with pytest.raises(CatalogError, match="'v3-8'"):
        tpu_chips("v3-8")
    with pytest.raises(CatalogError, match="V2"):
        tpu_from_config("V2", "2x2")
    assert tpu_chips("v4-8") == ("v4", 4)  # v4 sizes count TensorCores, 2 per chip
    assert tpu_chips("v5e-16") == ("v5litepod", 16)
    assert tpu_from_config("V6E", "2x4") == ("v6e", 8)
    assert gpu_model("NVIDIA_A100_80GB") == "nvidia-a100-80gb"
