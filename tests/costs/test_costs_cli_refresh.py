"""`diff`, `comment` and `prices refresh` handlers in-process; refresh against the fake Catalog API."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import pytest
from cost_plans import node_pool, notebook

from governance import deadlines
from governance.cli import costs as cli
from governance.cli.main import main
from governance.costs.catalog import DEFAULT_PATH, Catalog, load_catalog
from governance.costs.refresh import fetch_skus, refresh_document, sku_key, sku_price
from governance.fakecloud.catalog import FakeCatalog
from governance.fakecloud.server import FakeGcp


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
    args = parser.parse_args(["prices", "refresh", "--endpoint", "http://x", "--output", "o"])
    assert args.func is cli.run_prices_refresh
    assert (args.endpoint, args.output, args.catalog) == ("http://x", "o", None)
    args = parser.parse_args(["comment", "--stack", "dev", "none", "h.json"])
    assert args.func is cli.run_comment
    assert args.stack == [["dev", "none", "h.json"]]


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


def test_diff_unknown_type_is_unpriced_not_an_error(tmp_path, capsys):
    a = write(tmp_path, "a.json", {"resources": [notebook()]})
    b = write(tmp_path, "b.json", {"resources": [notebook(), {"type": "gcp:foo/bar:Baz",
                                                              "name": "q"}]})  # fmt: skip
    code, out, err = run(capsys, "diff", a, b, "--json")
    assert (code, err) == (0, "")
    change = json.loads(out)["changes"][0]
    assert (change["name"], change["status"], change["unpriced_after"]) == ("q", "added", True)
    code, out, _ = run(capsys, "diff", a, b, "--markdown")
    assert "| added | `q` | foo/Baz | $0.00 | unpriced | unknown |" in out


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (None, "cannot read: No such file"),
        ("{not json", "not valid JSON"),
        ('{"resources": {}}', "resources: required, must be a list"),
        (
            '{"resources": [{"type": "gcp:pubsub/topic:Topic", "name": "t"}],'
            ' "assumptions": {"typo": 1}}',
            "assumptions.typo",
        ),
        ('{"resources": []}', "no Google Cloud resource to judge"),
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


# -- refresh ----------------------------------------------------------------------------------
@pytest.fixture
def fake_catalog():
    fake = FakeCatalog()
    with FakeGcp() as server:
        fake.install(server)
        yield server, fake


@pytest.fixture(scope="module")
def shipped():
    return json.loads(DEFAULT_PATH.read_text())


@pytest.mark.parametrize(
    ("service", "description", "group", "key"),
    [
        ("Compute Engine", "Nvidia Tesla T4 GPU running in Americas", "GPU", "gpu.nvidia-tesla-t4"),
        ("Compute Engine", "Nvidia Tesla T4 GPU attached to Spot Preemptible VMs running in Iowa",
         "GPU", "gpu.nvidia-tesla-t4"),
        ("Compute Engine", "Commitment v1: Nvidia Tesla V100 GPU in Americas for 3 Year", "GPU",
         "gpu.nvidia-tesla-v100"),
        ("Compute Engine", "TpuV5e running in Netherlands", "TPU", "tpu.v5litepod.chip"),
        ("Compute Engine", "Preemptible Tpu-v6e running in Iowa", "TPU", "tpu.v6e.chip"),
        ("Cloud TPU", "Tpu-v4 Pod running in Americas", "TPU", None),  # per pod, not per chip
        ("Compute Engine", "TpuV5e running in Netherlands", "CPU", None),  # TPU group only
        ("Compute Engine", "Nvidia Tesla A100 GPU running in Americas", "GPU", None),  # bundled
        ("Compute Engine", "N1 Custom Instance Core running in Americas", "N1Standard", None),
        ("Cloud SQL", "Cloud SQL for MySQL: Zonal - RAM in Santiago", "", "sql.enterprise.ram"),
        ("Cloud SQL", "Cloud SQL for PostgreSQL: Regional - RAM in Santiago", "", None),
        ("BigQuery", "Active Logical Storage", "", "bigquery.storage.active"),
        ("Cloud Scheduler", "Jobs", "", "scheduler.job"),
        ("Cloud Vision API", "Jobs", "", None),  # the service decides, not only the words
    ],
)  # fmt: skip
def test_sku_descriptions_map_onto_catalog_keys(service, description, group, key):
    found = sku_key(description, service, group)
    assert (found[0] if found else None) == key


def test_sku_price_takes_the_first_paid_tier(fake_catalog):
    _, fake = fake_catalog
    skus = {s["skuId"]: s for group in fake.data["skus"].values() for s in group}
    assert sku_price(skus["F8D0-8A2E-34E7"]) == (pytest.approx(2.933908), "h")
    # BigQuery's first 10 GiB are free: the catalog keeps the paid rate
    assert sku_price(skus["7B5E-3D5B-8C2A"]) == (pytest.approx(0.02), "GiBy.mo")


def values(doc, key, usage="ondemand"):
    series = next(s for s in doc["series"] if (s["key"], s["usage"]) == (key, usage))
    return series, {r: v for r, v in zip(doc["regions"], series["values"], strict=True) if v}


def test_refresh_fills_what_the_export_lacks_from_the_fake_api(fake_catalog, shipped):
    server, fake = fake_catalog
    skus = list(fetch_skus(server.url))
    # paged (3 per page) through every service mlgov reads, not the unrelated one
    assert len(skus) == sum(len(v) for v in fake.data["skus"].values())
    assert not server.calls("GET", "0000-AAAA-0000")
    assert any("pageToken" in r.query for r in server.calls("GET", "/skus"))
    result = refresh_document(shipped, skus, today="2026-11-23")
    doc = result.document
    t4, got = values(doc, "gpu.nvidia-tesla-t4")
    assert got == {"us-central1": 0.35, "us-east1": 0.35, "europe-west4": 0.37}
    assert (t4["source"], t4["date"]) == ("cloud-billing-catalog-api", "2026-11-23")
    assert values(doc, "gpu.nvidia-tesla-t4", "spot")[1]["europe-west4"] == 0.16
    assert values(doc, "gpu.nvidia-tesla-t4", "1y")[1] == {"us-central1": 0.22, "us-east1": 0.22}
    assert values(doc, "tpu.v5litepod.chip")[1] == {"europe-west4": 1.55, "asia-east1": 1.39}
    assert values(doc, "tpu.v5litepod.chip", "spot")[1] == {"europe-west4": 0.45}
    assert values(doc, "sql.enterprise.vcpu")[1] == {"us-central1": 0.0413, "europe-west4": 0.0454}
    assert values(doc, "sql.shared.db-g1-small")[1] == {"us-central1": 0.035}
    assert values(doc, "bigquery.query.ondemand")[1] == {"us": 6.25}
    assert values(doc, "gke.cluster")[1] == {"global": 0.1}
    assert values(doc, "functions.invocation")[1] == {"global": 4e-7}
    assert values(doc, "pubsub.throughput")[1] == {"global": 40.0}
    assert values(doc, "workbench.mgmt.ram")[1] == {"us-central1": 0.0007}  # a new key
    # what the API does not answer keeps its shipped figure: TPU v4 (priced per pod), V100
    assert ("tpu.v4.chip", "ondemand") in result.kept
    assert ("gpu.nvidia-tesla-v100", "ondemand") in result.kept
    assert values(doc, "tpu.v4.chip")[0] == values(shipped, "tpu.v4.chip")[0]
    # the export's prices, date and the document's own date are untouched
    assert values(doc, "gce.type.n1-standard-8") == values(shipped, "gce.type.n1-standard-8")
    assert (doc["generated"], doc["refreshed"]) == ("2026-07-30", "2026-11-23")
    # where the API prices a GPU or TPU on demand is where it is offered
    assert doc["availability"]["tpu.v5litepod"]["regions"] == ["asia-east1", "europe-west4"]
    assert doc["availability"]["tpu.v4"] == shipped["availability"]["tpu.v4"]
    cat = Catalog(doc)
    assert cat.price("gpu.nvidia-tesla-t4", "europe-west4").source.startswith(
        "https://cloud.google.com/billing/docs/reference/rest/v1/services.skus"
    )
    assert cat.offered("tpu.v5litepod", "us-central1") is False
    assert len(cat) > 70_000


def sku(description, regions, usd, unit="h", usage="OnDemand", service="Compute Engine"):
    nanos = round(usd * 1e9)
    return {
        "skuId": description,
        "description": description,
        "category": {"serviceDisplayName": service, "resourceGroup": "GPU", "usageType": usage},
        "serviceRegions": regions,
        "pricingInfo": [{"pricingExpression": {"usageUnit": unit, "tieredRates": [
            {"startUsageAmount": 0, "unitPrice": {"units": str(nanos // 10**9),
                                                  "nanos": nanos % 10**9}}]}}],
    }  # fmt: skip


def test_refresh_adds_new_regions_and_skips_wrong_units_and_free_prices(shipped):
    skus = [
        sku("Nvidia Tesla P4 GPU running in Mars", ["mars-west1"], 0.7),
        sku("Nvidia Tesla P4 GPU attached to Spot in Mars", ["mars-west1"], 0.2, unit="GiBy.h",
            usage="Preemptible"),
        sku("Nvidia Tesla P100 GPU running in Americas", ["us-central1"], 0.0),
    ]  # fmt: skip
    doc = refresh_document(shipped, skus, today="2026-11-23").document
    assert doc["regions"][-1] == "mars-west1"
    assert all(len(s["values"]) == len(doc["regions"]) for s in doc["series"])
    assert values(doc, "gpu.nvidia-tesla-p4")[1] == {"mars-west1": 0.7}
    # a unit that is not the key's, or a $0 price, is no price: the shipped series stays
    p4_spot = values(doc, "gpu.nvidia-tesla-p4", "spot")
    assert p4_spot[1] == values(shipped, "gpu.nvidia-tesla-p4", "spot")[1]
    assert p4_spot[0]["source"] == "skypilot-gcp-catalog"
    assert values(doc, "gpu.nvidia-tesla-p100")[1] == values(shipped, "gpu.nvidia-tesla-p100")[1]


def test_prices_refresh_command_writes_a_loadable_catalog(
    fake_catalog, tmp_path, capsys, monkeypatch
):
    # A wait longer than the budget's quiet_s (2 s) prints `mlgov: waiting for ...` on stderr,
    # as it should; on a loaded machine reading the SKUs took that long and the line failed the
    # check below. No wait is that long here, so stderr holds only what is not progress: nothing.
    monkeypatch.setattr(deadlines, "BUDGET", replace(deadlines.budget(), quiet_s=3600.0))
    server, _ = fake_catalog
    out = tmp_path / "prices.json"
    code, stdout, err = run(capsys, "prices", "refresh", "--endpoint", server.url,
                            "--output", str(out))  # fmt: skip
    assert (code, err) == (0, "")
    assert f"wrote {out}:" in stdout and "keep their shipped figure: " in stdout
    refreshed = load_catalog(out)
    assert refreshed.price("gpu.nvidia-tesla-t4", "europe-west4", "spot").usd == 0.16
    assert refreshed.refreshed  # today's date
    assert refreshed.generated == "2026-07-30"


def test_prices_refresh_api_error_exit_4(fake_catalog, tmp_path, capsys):
    server, _ = fake_catalog
    server.inject(r"/v1/services", 403, times=5)
    out = tmp_path / "prices.json"
    code, _, err = run(capsys, "prices", "refresh", "--endpoint", server.url,
                            "--output", str(out))  # fmt: skip
    assert code == 4  # Exit.CLOUD: the API refused
    assert err.startswith("mlgov: error: Cloud Billing Catalog API")
    assert err.count("\n") == 1
    assert not out.exists()


def test_prices_refresh_bad_starting_catalog_exit_2(tmp_path, capsys):
    bad = tmp_path / "cat.json"
    bad.write_text('{"format": "x"}')
    code, _, err = run(capsys, "prices", "refresh", "--catalog", str(bad))
    assert code == 2
    assert "cat.json: not a regional price catalog" in err
