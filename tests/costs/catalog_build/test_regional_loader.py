"""catalog.Catalog over the generated document: lookups, fallbacks, offers, bad files."""

from __future__ import annotations

import json

import pytest
from export_docs import documented_doc, export_doc

from governance.costs.catalog import (
    DEFAULT_PATH,
    Catalog,
    Price,
    default_catalog,
    load_catalog,
)
from governance.costs.catalog_build.build import build_document, render_document
from governance.costs.catalog_build.documented import parse_documented
from governance.costs.catalog_build.export import parse_export
from governance.costs.errors import CatalogError


@pytest.fixture
def small():
    doc = build_document(parse_export(export_doc()), parse_documented(documented_doc()))
    return Catalog(json.loads(render_document(doc)), origin="small.json")


def test_find_returns_a_dated_sourced_entry(small):
    entry = small.find("gce.n1.vcpu", "europe-west4", "spot")
    assert entry == Price(
        key="gce.n1.vcpu", region="europe-west4", usage="spot", usd=0.0202, unit="hour",
        source="https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator",
        date="2026-07-30", note="exact least-squares fit over the n1 family's 3 types",
    )  # fmt: skip
    # documented source ids resolve to their URL, URLs stay as they are
    assert small.price("tpu.v4.chip", "us-central2").source == "https://example.test/sky"
    assert small.price("gke.cluster", "global").source.endswith("/kubernetes-engine/pricing")


def test_region_falls_back_to_global_like_the_old_catalog(small):
    entry = small.price("gke.cluster", "asia-east1")
    assert (entry.region, entry.usd) == ("global", 0.1)
    assert small.price("nat.gateway_vm", "us-central1").region == "us-central1"
    assert small.price("nat.gateway_vm", "asia-east1").region == "global"


def test_a_location_without_a_price_falls_back_to_the_nearest_and_says_so(small):
    assert small.find("gce.n1.vcpu", "asia-east1", "1y") is None  # find never falls back
    entry = small.price("gce.n1.vcpu", "asia-east1", "1y")
    assert (entry.region, entry.requested) == ("us-central1", "asia-east1")
    assert entry.usd == small.price("gce.n1.vcpu", "us-central1", "1y").usd
    # the same continent first: europe-west1 (no price) -> europe-west4, not us-central1
    near = small.price("disk.pd-balanced", "europe-west1")
    assert (near.region, near.requested) == ("europe-west4", "europe-west1")
    # a priced region is never marked
    assert small.price("disk.pd-balanced", "europe-west4").requested == ""


def test_no_price_anywhere_names_key_and_usage(small):
    with pytest.raises(CatalogError, match=r"no ondemand price 'gpu\.nvidia-h200' in any location"):
        small.price("gpu.nvidia-h200", "us-central1")
    assert small.find("gce.n1.vcpu", "us-central1", "reserved") is None


def test_keys_regions_and_size(small):
    assert small.keys("gpu.") == {"gpu.nvidia-l4"}
    assert small.regions_for("disk.pd-balanced") == ("us-central1", "europe-west4")
    assert small.regions_for("nope") == ()
    assert len(small) == sum(1 for k in small.keys("") for u in ("ondemand", "spot", "1y", "3y")
                             for _ in small.regions_for(k, u))  # fmt: skip


def test_offered_says_where_a_source_does_and_none_elsewhere(small):
    assert small.offered("tpu.v4", "us-central2") is True
    assert small.offered("tpu.v4", "us-central1") is False
    assert small.offered("gce.type.g2-standard-4", "us-central1") is True
    assert small.offered("gce.type.g2-standard-4", "europe-west4") is False
    assert small.offered("gpu.nvidia-l4", "europe-west4") is False
    assert small.offered("tpu.v6e", "us-central1") is None  # no source says either way
    # a location the catalog does not know: nobody says it is not offered there
    assert small.offered("gce.type.g2-standard-4", "mars-west1") is None
    assert small.offered("tpu.v4", "mars-west1") is False  # the documented list is complete
    assert small.where_offered("tpu.v4") == ("us-central2",)
    assert small.source_of("tpu.v4") == "https://example.test/sky"


def test_shipped_catalog_loads_with_every_region_and_its_date():
    cat = default_catalog()
    assert cat is default_catalog()  # parsed once per process
    assert DEFAULT_PATH.name == "prices_regional.json"
    assert (cat.version, cat.currency, cat.generated) == (2, "USD", "2026-07-30")
    assert len([r for r in cat.regions if r[-1].isdigit() and "-" in r]) >= 44
    assert len(cat) > 70_000
    assert "Apache License" in cat.attribution and "Nils Knieling" in cat.attribution
    # the regions issue 11 found unpriced now have prices
    for region in ("asia-east1", "southamerica-west1", "me-central2"):
        assert cat.price("gce.type.n1-standard-4", region).usd > 0
        assert cat.price("disk.pd-balanced", region).usd > 0
    assert cat.fits["n1"]["status"] == "exact"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "must be a JSON object"),
        ("{oops", "is not JSON"),
        ('{"format": "x"}', r"not a regional price catalog \('version'\)"),
        ('{"format": "other", "version": 2, "regions": [], "series": [], "currency": "USD", '
         '"generated": "2026-07-30"}', "format 'other' is not"),
        ('{"format": "mlgov-regional-price-catalog", "version": 2, "regions": ["a"], '
         '"currency": "EUR", "generated": "x", "series": []}', "currency is 'EUR'"),
        ('{"format": "mlgov-regional-price-catalog", "version": 2, "regions": ["a", "b"], '
         '"currency": "USD", "generated": "x", "series": [{"key": "k", "usage": "ondemand", '
         '"values": [1]}]}', r"series\[0\] needs key, usage .* one value per region \(2\)"),
        ('{"format": "mlgov-regional-price-catalog", "version": 2, "regions": ["a"], '
         '"currency": "USD", "generated": "x", "series": [], "machine_types": '
         '{"x1-standard-2": {"vcpus": "two"}}}',
         r"machine_types\.x1-standard-2: needs vcpus and memory_gib numbers"),
        ('{"format": "mlgov-regional-price-catalog", "version": 2, "regions": ["a"], '
         '"currency": "USD", "generated": "x", "series": [], "machine_types": []}',
         "machine_types is not a mapping"),
    ],
)  # fmt: skip
def test_bad_catalog_file_names_the_file_and_the_problem(tmp_path, text, message):
    path = tmp_path / "cat.json"
    path.write_text(text)
    with pytest.raises(CatalogError, match=message) as err:
        load_catalog(path)
    assert "cat.json" in str(err.value)


def test_unreadable_catalog_file(tmp_path):
    with pytest.raises(CatalogError, match=r"cannot read price catalog .*nope\.json"):
        load_catalog(tmp_path / "nope.json")
