"""Cloud Storage transfer within Google Cloud: the matrix, the bucket's continent, the usage keys.

Figures: the "Data transfer within Google Cloud" matrix of https://cloud.google.com/storage/pricing
(documented.json source gcs-pricing-network), read through the catalog.
"""

from __future__ import annotations

import pytest

from governance.costs.catalog import default_catalog
from governance.costs.estimate import estimate_resources
from governance.costs.model import Resource
from governance.costs.transfer import CONTINENTS, GoogleTransfer, continent_of, transfer_key
from governance.costs.usage_file import UsageFileError, declared_usage, parse_usage_file
from tests.costs.cost_plans import price, usage_lines


def bucket(location: str, name: str = "data") -> dict[str, object]:
    return {"type": "gcp:storage/bucket:Bucket", "name": name,
            "inputs": {"name": f"acme-{name}", "location": location}}  # fmt: skip


def cost_of(location: str, **declared: float):
    file = parse_usage_file({"resource_usage": {"data": {"storage_gb": 0, **declared}}})
    return estimate_resources([bucket(location)], usage_file=file).get("data")


@pytest.mark.parametrize(
    ("location", "continent"),
    [
        ("US", "northern_america"), ("us", "northern_america"), ("NAM4", "northern_america"),
        ("US-CENTRAL1", "northern_america"), ("northamerica-northeast1", "northern_america"),
        ("northamerica-south1", "northern_america"),  # Mexico: listed under North America
        ("EU", "europe"), ("EUR4", "europe"), ("europe-west4", "europe"),
        ("ASIA", "asia"), ("ASIA1", "asia"), ("asia-northeast1", "asia"), ("asia-south1", "asia"),
        ("asia-southeast2", "indonesia"),  # Jakarta
        ("australia-southeast1", "oceania"), ("me-west1", "middle_east"),
        ("southamerica-east1", "latin_america"), ("africa-south1", "africa"),
        ("mars-north1", None), ("", None), ("moon7", None),
    ],
)  # fmt: skip
def test_a_bucket_location_is_placed_on_the_matrix(location, continent):
    assert continent_of(location) == continent


def test_the_catalog_holds_googles_matrix():
    # rows: bucket location; columns: destination (Google's order); None: Google's N/A
    matrix = {
        "northern_america": (0.02, 0.05, 0.08, 0.10, 0.10, 0.11, 0.14, 0.11),
        "europe": (0.05, 0.02, 0.08, 0.10, 0.10, 0.11, 0.14, 0.11),
        "asia": (0.08, 0.08, 0.08, 0.10, 0.10, 0.11, 0.14, 0.11),
        "indonesia": (0.10, 0.10, 0.10, None, 0.08, 0.11, 0.14, 0.14),
        "oceania": (0.10, 0.10, 0.10, 0.08, 0.08, 0.11, 0.14, 0.14),
        "middle_east": (0.11, 0.11, 0.11, 0.11, 0.11, 0.08, 0.14, 0.11),
        "latin_america": (0.14,) * 8,
        "africa": (0.11, 0.11, 0.11, 0.14, 0.14, 0.11, 0.14, None),
    }
    catalog = default_catalog()
    for src, row in matrix.items():
        found = tuple(
            p.usd if (p := catalog.find(transfer_key(src, dst), "global")) else None
            for dst in CONTINENTS
        )
        assert found == row, src
    cell = catalog.price(transfer_key("europe", "asia"), "global")
    assert (cell.source, cell.date) == (
        "https://cloud.google.com/storage/pricing#network-buckets",
        "2026-11-26",
    )


def test_declared_transfer_is_priced_by_the_buckets_continent_and_the_destination():
    # a us-central1 bucket: 200 GiB to Northern America ($0.02), 100 to Europe ($0.05),
    # 10 to Latin America ($0.14): $4 + $5 + $1.40
    cost = cost_of(
        "US-CENTRAL1",
        monthly_transfer_northern_america_gb=200,
        monthly_transfer_europe_gb=100,
        monthly_transfer_latin_america_gb=10,
        monthly_egress_gb=0, monthly_egress_asia_gb=0, monthly_egress_china_gb=0,
        monthly_egress_australia_gb=0, monthly_class_a_operations=0,
        monthly_class_b_operations=0,
    )  # fmt: skip
    transfer = {x.what: x.usd for x in cost.cost_lines if x.bill == "governed" and x.usd}
    assert transfer == pytest.approx({
        "transfer within Google Cloud to Northern America": 4.0,
        "transfer within Google Cloud to Europe": 5.0,
        "transfer within Google Cloud to Latin America": 1.4,
    })  # fmt: skip
    assert cost.monthly_usd == pytest.approx(10.40)
    assert cost.baseline_monthly_usd == pytest.approx(10.40)  # the baseline moves as much
    # once any destination is declared the others are 0, and the line says which
    assert (
        "transfer within Google Cloud: none declared to Asia, Indonesia, Oceania, Middle East, "
        "Africa (0 GiB)" in cost.lines
    )
    assert "transfer within Google Cloud" not in usage_lines(cost)


def test_the_same_gib_cost_more_from_an_asia_bucket_than_an_eu_one():
    # same-continent transfer: $0.02 within Europe, $0.08 within Asia (multi-regions count as
    # their continent)
    eu = cost_of("EU", monthly_transfer_europe_gb=550)
    asia = cost_of("ASIA", monthly_transfer_asia_gb=550)
    line = "transfer within Google Cloud to {}"
    assert {x.what: x.usd for x in eu.cost_lines if x.usd}[line.format("Europe")] == (
        pytest.approx(11.0)
    )
    assert {x.what: x.usd for x in asia.cost_lines if x.usd}[line.format("Asia")] == (
        pytest.approx(44.0)
    )


def test_undeclared_transfer_is_one_usage_line_never_zero():
    cost = estimate_resources([bucket("europe-west4")]).get("data")
    (line,) = [x for x in cost.cost_lines if x.what == "transfer within Google Cloud"]
    assert (line.kind, line.usage_key, line.key, line.unit_usd) == (
        "usage", "monthly_transfer_europe_gb", "storage.transfer.europe.europe", 0.02
    )  # fmt: skip
    # an Indonesian bucket's own cell is N/A: the cheapest it has (to Oceania) is shown
    jakarta = estimate_resources([bucket("asia-southeast2")]).get("data")
    (line,) = [x for x in jakarta.cost_lines if x.what == "transfer within Google Cloud"]
    assert (line.usage_key, line.unit_usd) == ("monthly_transfer_oceania_gb", 0.08)


def test_a_cell_google_lists_as_na_is_a_named_unpriced_part():
    cost = cost_of(
        "asia-southeast2", monthly_transfer_indonesia_gb=100, monthly_transfer_asia_gb=10
    )
    assert dict(cost.unpriced_parts) == {
        "transfer within Google Cloud to Indonesia": (
            "Google's matrix lists no price (N/A) from Indonesia to Indonesia"
        )
    }
    priced = {x.what: x.usd for x in cost.cost_lines if x.usd}
    assert priced["transfer within Google Cloud to Asia"] == pytest.approx(1.0)  # 10 x $0.10


def test_a_location_off_the_matrix_is_unpriced_when_declared_and_noted_otherwise():
    declared = cost_of("moon7", monthly_transfer_europe_gb=10)
    assert dict(declared.unpriced_parts)["transfer within Google Cloud"] == (
        "mlgov cannot place location 'moon7' on a continent of Google's matrix"
    )
    quiet = estimate_resources([bucket("moon7")]).get("data")
    assert any("transfer within Google Cloud: not estimated" in x for x in quiet.lines)
    assert "transfer within Google Cloud" not in dict(quiet.unpriced_parts)


def test_zero_declared_is_said_not_charged():
    cost = cost_of("us-east1", monthly_transfer_europe_gb=0)
    assert "transfer within Google Cloud to Europe: 0 GiB (monthly_transfer_europe_gb)" in (
        cost.lines
    )
    assert not [x for x in cost.cost_lines if x.what.startswith("transfer") and x.usd]


def test_the_keys_are_one_per_destination_and_validated():
    assert list(GoogleTransfer.model_fields) == [f"monthly_transfer_{c}_gb" for c in CONTINENTS]
    file = parse_usage_file({"resource_usage": {"data": {"monthly_transfer_asia_gb": "lots"}}})
    with pytest.raises(UsageFileError) as err:
        declared_usage(file, [Resource.from_plan(bucket("EU"))])
    assert err.value.problems == [
        "usage file: resource_usage.data.monthly_transfer_asia_gb: Input should be a valid "
        "number, unable to parse string as a number"
    ]
    negative = parse_usage_file({"resource_usage": {"data": {"monthly_transfer_asia_gb": -1}}})
    with pytest.raises(UsageFileError, match="monthly_transfer_asia_gb: Input should be greater"):
        declared_usage(negative, [Resource.from_plan(bucket("EU"))])


def test_a_registry_is_priced_from_its_multi_region():
    gcr = {"type": "gcp:container/registry:Registry", "name": "gcr", "inputs": {"location": "ASIA"}}
    file = parse_usage_file({"resource_usage": {"gcr": {
        "storage_gb": 0, "monthly_transfer_europe_gb": 100}}})  # fmt: skip
    cost = estimate_resources([gcr], usage_file=file).get("gcr")
    lines = {x.what: (x.key, x.usd) for x in cost.cost_lines if x.usd}
    assert lines["transfer within Google Cloud to Europe"] == (
        "storage.transfer.asia.europe", pytest.approx(8.0)
    )  # fmt: skip
    assert price("storage.transfer.asia.europe", "global") == 0.08
