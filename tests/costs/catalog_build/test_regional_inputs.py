"""Reading the export and documented.json: typed records, and errors that name the key path."""

from __future__ import annotations

from datetime import date
from fractions import Fraction

import pytest
from catalog_reference import REFERENCE
from export_docs import documented_doc, export_doc

from governance.costs.catalog_build.documented import (
    DocumentedError,
    parse_documented,
    read_documented,
)
from governance.costs.catalog_build.export import ExportError, parse_export, read_export


def test_export_records_shapes_prices_and_date():
    export = parse_export(export_doc())
    assert export.generated == date(2026, 7, 30)
    assert export.regions == ("us-central1", "europe-west4")
    n1 = export.machines["n1-standard-4"]
    assert (n1.family, n1.vcpus, n1.ram_gib) == ("n1", 4, 15)
    assert n1.prices["us-central1"]["hour"] == Fraction("0.189999")  # exact decimal
    assert export.machines["g2-standard-24"].gpus == (("nvidia-l4", 2),)
    assert export.machines["z3-highmem-8-highlssd"].local_ssd_gib == 3000
    assert export.disks["balanced"][0] == "pd-balanced"
    assert export.dual_regions == {"nam4": ("us-central1", "us-east1")}


def test_fractional_gpus_and_custom_types_keep_their_meaning():
    doc = export_doc()
    doc["compute"]["instance"]["g4-standard-6"] = {"cpu": 6, "ram": 22, "rtx6000": 0.125}
    doc["compute"]["instance"]["custom-1-7680-ext"] = {"cpu": 1, "ram": 7.5, "type": "n1-custom"}
    export = parse_export(doc)
    assert export.machines["g4-standard-6"].gpus == (("nvidia-rtx-pro-6000", Fraction(1, 8)),)
    assert export.machines["custom-1-7680-ext"].family == "n1-custom"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["about"].update(generated="last week"), r"about\.generated: 'last week'"),
        (lambda d: d["compute"]["instance"]["n1-standard-4"].pop("cpu"),
         r"compute\.instance\.n1-standard-4: needs 'cpu' and 'ram'"),
        (lambda d: d["compute"]["instance"]["n1-standard-4"]["cost"]["us-central1"].update(
            hour="0.19"), r"compute\.instance\.n1-standard-4\.cost\.us-central1\.hour: expected a number"),
        (lambda d: d["compute"]["instance"]["n1-standard-4"]["cost"]["us-central1"].update(
            hour=-1), r"\.us-central1\.hour: negative price"),
        (lambda d: d["compute"]["instance"]["n1-standard-4"]["cost"]["us-central1"].update(
            hour_preemptible=1), r"hour_preemptible: unknown price column"),
        (lambda d: d["compute"]["instance"]["n1-standard-4"].update(tpu=4),
         r"compute\.instance\.n1-standard-4: unknown keys \['tpu'\]"),
        (lambda d: d.update(region={}), r"region: the export lists no regions"),
        (lambda d: d["storage"].update(bucket=[]), r"storage\.bucket: expected a mapping"),
    ],
)  # fmt: skip
def test_malformed_export_names_the_key_path(mutate, message):
    doc = export_doc()
    mutate(doc)
    with pytest.raises(ExportError, match=message):
        parse_export(doc)


def test_read_export_names_the_file(tmp_path):
    with pytest.raises(ExportError, match=r"cannot read export .*missing\.yml"):
        read_export(tmp_path / "missing.yml")
    bad = tmp_path / "bad.yml"
    bad.write_text("about: [unclosed")
    with pytest.raises(ExportError, match=r"export .*bad\.yml is not YAML"):
        read_export(bad)
    bad.write_text("about: {generated: nope}\n")
    with pytest.raises(ExportError, match=r"bad\.yml: about\.generated"):
        read_export(bad)


def test_the_reference_export_parses(reference):
    assert len(reference.regions) == 43
    assert reference.generated == date(2026, 7, 30)
    assert "Nils Knieling" in reference.copyright and "Apache" in reference.copyright
    assert REFERENCE.read_text().startswith("# Trimmed copy of google-cloud-pricing")


def test_shipped_documented_figures_are_valid_and_sourced():
    documented = read_documented()
    keys = {e.key for e in documented.entries}
    assert {"gpu.nvidia-tesla-t4", "tpu.v5litepod.chip", "tpu.v4.chip", "sql.enterprise.vcpu",
            "gke.cluster", "workbench.mgmt.vcpu", "bigquery.query.ondemand"} <= keys  # fmt: skip
    for entry in documented.entries:
        assert entry.source in documented.sources or entry.source.startswith("https://")
    # no figure invented by a flat regional uplift survives the move
    assert all("x 1.10" not in e.note for e in documented.entries)
    assert documented.availability["tpu.v4"].regions == ("us-central2",)
    assert documented.sud_tables["n1"] == (1.0, 0.8, 0.6, 0.4)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["entries"][0].update(source="nobody"),
         r"entries\[0\]\.source: 'nobody' is neither a source id nor an https URL"),
        (lambda d: d["entries"][0].update(date="30/07/2026"), r"entries\[0\]\.date: .* YYYY-MM-DD"),
        (lambda d: d["entries"][0]["values"].update(reserved={"us-central1": 1}),
         r"entries\[0\]\.values\.reserved: usage not in"),
        (lambda d: d["entries"][1]["values"]["ondemand"].update(global_=-0.1),
         r"entries\[1\]\.values\.ondemand\.global_: expected a price >= 0"),
        (lambda d: d["entries"].append(dict(d["entries"][1])),
         r"entries\[2\]: gke\.cluster ondemand is listed twice"),
        (lambda d: d["sud_tables"]["tables"].update(n1=[1, 0.8]),
         r"sud_tables\.tables\.n1: expected 4 quarter factors"),
        (lambda d: d["availability"]["tpu.v4"].update(regions=[]),
         r"availability\.tpu\.v4\.regions: expected a list"),
        (lambda d: d["entries"][0].update(scale={"of": "gce.n1.ram", "anchor": "us-central2",
                                                 "usages": ["ondemand"]}),
         r"entries\[0\]\.scale: needs exactly one on-demand value, for 'us-central2'"),
        (lambda d: d["entries"][1].update(scale={"of": "gce.n1.ram", "anchor": "global",
                                                 "usages": ["reserved"]}),
         r"entries\[1\]\.scale\.usages: expected a list of usages"),
    ],
)  # fmt: skip
def test_malformed_documented_names_the_key_path(mutate, message):
    doc = documented_doc()
    mutate(doc)
    with pytest.raises(DocumentedError, match=message):
        parse_documented(doc)


def test_read_documented_names_the_file(tmp_path):
    bad = tmp_path / "documented.json"
    bad.write_text("{not json")
    with pytest.raises(DocumentedError, match=r"documented\.json is not JSON"):
        read_documented(bad)
    bad.write_text('{"sources": {}, "entries": []}')
    with pytest.raises(DocumentedError, match=r"documented\.json: sud_tables: expected an object"):
        read_documented(bad)
