"""The committed prices_regional.json is what the generator makes of the export today.

On every machine: regenerating from the trimmed reference gives exactly the committed values for
everything the reference covers. Where the full export is present ($MLGOV_PRICING_YML or
../shared/realdata/google-cloud-pricing/pricing.yml) the whole file must regenerate byte for byte.
"""

from __future__ import annotations

import json

import pytest
from catalog_reference import REFERENCE, full_export_path

from governance.costs.catalog import DEFAULT_PATH
from governance.costs.catalog_build.__main__ import main


def by_key(doc):
    return {
        (s["key"], s["usage"]): dict(zip(doc["regions"], s["values"], strict=True))
        for s in doc["series"]
    }


def test_cli_builds_from_the_reference_and_reports_the_fits(tmp_path, capsys):
    out = tmp_path / "catalog.json"
    assert main(["--pricing", str(REFERENCE), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "catalog of 2026-07-30:" in text
    assert "n1           4 types  exact  ondemand 0, spot 0, 1y 0, 3y 0" in text
    assert "g2           3 types  vCPU and RAM not separable" in text
    assert f"wrote {out}" in text
    assert json.loads(out.read_text())["generated"] == "2026-07-30"


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["--pricing", str(tmp_path / "nope.yml"), "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot read export ") and err.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_committed_catalog_agrees_with_the_reference(tmp_path):
    out = tmp_path / "catalog.json"
    assert main(["--pricing", str(REFERENCE), "--out", str(out), "--quiet"]) == 0
    fresh, committed = (
        by_key(json.loads(out.read_text())),
        by_key(json.loads(DEFAULT_PATH.read_text())),
    )
    assert len(fresh) > 200
    stale = []
    for key, values in fresh.items():
        shipped = committed.get(key, {})
        stale += [(key, r) for r, v in values.items() if v is not None and shipped.get(r) != v]
        if key[0].startswith("gce.type."):  # a type is sold in exactly the regions it is priced
            stale += [
                (key, r) for r, v in shipped.items() if v is not None and values.get(r) is None
            ]
    assert not stale, f"prices_regional.json is stale for {stale[:5]}: regenerate it"


def test_committed_catalog_regenerates_byte_for_byte_from_the_full_export(tmp_path):
    full = full_export_path()
    if full is None:
        pytest.skip("full Billing Catalog export not present (set MLGOV_PRICING_YML)")
    out = tmp_path / "catalog.json"
    assert main(["--pricing", str(full), "--out", str(out), "--quiet"]) == 0
    assert out.read_text() == DEFAULT_PATH.read_text(), (
        "prices_regional.json is not what the generator makes of the export: run "
        f"python -m governance.costs.catalog_build --pricing {full}"
    )
