"""`diff` and `prices refresh` handlers (in-process), and refresh against the fake Catalog API."""

from __future__ import annotations

import argparse
import json

import pytest
from cost_plans import node_pool, notebook

from governance.costs.catalog import default_catalog, load_catalog
from governance.costs.refresh import catalog_from_skus, fetch_skus, sku_key, sku_price
from governance.tools import costs_cli as cli
from governance.tools.cli import main
from tests.fakegcp.catalog import FakeCatalog
from tests.fakegcp.server import FakeGcp


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name: str, doc) -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_register_adds_diff_and_prices_refresh():
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["diff", "a.json", "b.json", "--markdown"])
    assert args.func is cli.run_diff
    assert args.markdown
    args = parser.parse_args(["prices", "refresh", "--endpoint", "http://x", "--regions", "a,b"])
    assert args.func is cli.run_prices_refresh
    assert (args.endpoint, args.regions, args.output) == ("http://x", "a,b", None)


def test_diff_identical_exit_0(tmp_path, capsys):
    doc = {"resources": [notebook(), node_pool()]}
    a, b = write(tmp_path, "a.json", doc), write(tmp_path, "b.json", doc)
    code, out, err = run(capsys, "diff", a, b)
    assert (code, err) == (0, "")
    assert out.startswith("no cost change")


def test_diff_markdown_and_json(tmp_path, capsys):
    a = write(tmp_path, "a.json", {"resources": [notebook()]})
    b = write(tmp_path, "b.json", {"resources": [notebook(), node_pool()]})
    code, out, _ = run(capsys, "diff", a, b, "--markdown")
    assert code == 0
    assert "| added | `t4-spot` |" in out
    code, out, _ = run(capsys, "diff", a, b, "--json")
    data = json.loads(out)
    assert [c["status"] for c in data["changes"]] == ["added"]
    assert data["after"]["monthly_usd"] > data["before"]["monthly_usd"]


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (None, "cannot read: No such file"),
        ("{not json", "not valid JSON"),
        ('{"resources": {}}', "resources: required, must be a list"),
        ('{"resources": [{"type": "gcp:foo/bar:Baz", "name": "q"}]}', "'gcp:foo/bar:Baz'"),
        ('{"resources": [], "assumptions": {"typo": 1}}', "assumptions.typo"),
    ],
)
def test_diff_bad_input_exit_2_one_line(tmp_path, capsys, doc, expected):
    good = write(tmp_path, "good.json", {"resources": []})
    bad = str(tmp_path / "missing.json") if doc is None else write(tmp_path, "bad.json", doc)
    code, out, err = run(capsys, "diff", good, bad)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("mlgov: error: ")
    assert expected in err
    assert "Traceback" not in err


# -- refresh ---------------------------------------------------------------------------------
@pytest.fixture
def fake_catalog():
    fake = FakeCatalog()
    with FakeGcp() as server:
        fake.install(server)
        yield server, fake


def test_sku_mapping_and_tiers(fake_catalog):
    _, fake = fake_catalog
    skus = {s["skuId"]: s for group in fake.data["skus"].values() for s in group}
    assert sku_key(skus["1DE5-A8F4-0B2C"]["description"]) == "gce.n1.vcpu"
    assert sku_key(skus["4E32-F036-B1D1"]["description"]) == "gce.e2.vcpu"  # 2020 "Preemptible"
    assert sku_key(skus["AB12-0000-1111"]["description"]) is None  # custom cores not used
    assert sku_price(skus["F8D0-8A2E-34E7"]) == (pytest.approx(2.933908), "h")
    # BigQuery's first 10 GiB are free: the catalog keeps the paid rate
    assert sku_price(skus["7B5E-3D5B-8C2A"]) == (pytest.approx(0.02), "GiBy.mo")


def test_refresh_from_fake_api_matches_recorded_prices(fake_catalog):
    server, fake = fake_catalog
    skus = list(fetch_skus(server.url))
    # paged (3 per page) through every service mlgov uses, not the unrelated one
    assert len(skus) == sum(len(v) for v in fake.data["skus"].values())
    assert not server.calls("GET", "0000-AAAA-0000")
    assert any("pageToken" in r.query for r in server.calls("GET", "/skus"))
    result = catalog_from_skus(skus, ["us-central1", "europe-west4", "us-east4"],
                               default_catalog(), today="2026-11-21")  # fmt: skip
    cat = result.catalog
    expected = {
        ("gce.n1.vcpu", "us-central1", "ondemand"): (0.031611, "2E27-4F75-95CD"),
        ("gce.n1.ram", "us-central1", "ondemand"): (0.004237, "6C71-D8DC-FC32"),
        ("gce.n1.vcpu", "us-central1", "spot"): (0.006655, "1DE5-A8F4-0B2C"),
        ("gce.n1.vcpu", "europe-west4", "ondemand"): (0.034773, "9C4E-37BB-0A95"),
        ("gpu.nvidia-tesla-t4", "us-central1", "ondemand"): (0.35, "039F-D0DA-4055"),
        ("gpu.nvidia-tesla-t4", "us-central1", "spot"): (0.11, "0ACF-C2AC-2F58"),
        ("gpu.nvidia-tesla-a100", "us-central1", "ondemand"): (2.933908, "F8D0-8A2E-34E7"),
        ("disk.pd-balanced", "us-central1", "ondemand"): (0.10, "D973-5D65-BAB2"),
        ("gce.e2.vcpu", "us-east4", "spot"): (0.007370235, "4E32-F036-B1D1"),
        ("gce.e2.ram", "us-east4", "spot"): (0.000987597, "BB7E-A48A-0879"),
        ("disk.pd-standard", "us-east4", "ondemand"): (0.044, "8AF1-1146-E7DA"),
        ("disk.pd-ssd", "us-east4", "ondemand"): (0.187, "75B0-B95E-76A8"),
        ("gke.cluster", "global", "ondemand"): (0.10, "B561-BFBD-1264"),
        ("sql.enterprise.vcpu", "us-central1", "ondemand"): (0.0413, "4B1A-8B6E-2D11"),
        ("bigquery.storage.active", "us-central1", "ondemand"): (0.02, "7B5E-3D5B-8C2A"),
    }
    for (key, region, usage), (usd, sku_id) in expected.items():
        price = cat.price(key, region, usage)
        assert price.usd == pytest.approx(usd, abs=1e-9), key
        assert price.source == f"Cloud Billing Catalog API SKU {sku_id}"
        assert price.date == "2026-11-21"
    assert result.refreshed == len(expected)
    assert result.kept == len(default_catalog()) - (len(expected) - 4)  # 4 new us-east4 prices
    # keys the API did not answer keep their shipped price and source
    kept = cat.price("tpu.v5litepod.chip", "us-central1")
    assert kept == default_catalog().price("tpu.v5litepod.chip", "us-central1")
    assert cat.version == default_catalog().version + 1


def test_prices_refresh_command_writes_a_loadable_catalog(fake_catalog, tmp_path, capsys):
    server, _ = fake_catalog
    out = tmp_path / "prices.json"
    code, stdout, err = run(capsys, "prices", "refresh", "--endpoint", server.url,
                            "--output", str(out), "--regions", "us-central1")  # fmt: skip
    assert (code, err) == (0, "")
    assert "wrote" in stdout
    refreshed = load_catalog(out)
    assert refreshed.price("gpu.nvidia-tesla-t4", "us-central1", "spot").usd == pytest.approx(0.11)


def test_prices_refresh_api_error_exit_2(fake_catalog, tmp_path, capsys):
    server, _ = fake_catalog
    server.inject(r"/v1/services", 403, times=5)
    out = tmp_path / "prices.json"
    code, _, err = run(capsys, "prices", "refresh", "--endpoint", server.url,
                            "--output", str(out))  # fmt: skip
    assert code == 2
    assert err.startswith("mlgov: error: Cloud Billing Catalog API")
    assert err.count("\n") == 1
    assert not out.exists()
