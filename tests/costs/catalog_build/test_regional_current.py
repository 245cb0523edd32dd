"""The committed prices_regional.json is what the generator makes of the export today.

On every machine: regenerating from the trimmed reference gives exactly the committed values for
everything the reference covers. Where the full export is present ($MLGOV_PRICING_YML or
../shared/realdata/google-cloud-pricing/pricing.yml) the whole file must regenerate byte for byte.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from catalog_reference import REFERENCE, full_export, full_export_path

from governance.costs.catalog import DEFAULT_PATH
from governance.costs.catalog_build.__main__ import main
from governance.costs.catalog_build.build import build_document, render_document
from governance.costs.catalog_build.documented import DEFAULT_PATH as DOCUMENTED_PATH
from governance.costs.catalog_build.documented import read_documented


@pytest.fixture(scope="module")
def built_from_reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path]:
    """The CLI run once on the reference: exit code, what it printed, the catalog it wrote.

    Two tests read it (what the command reports, and that its catalog agrees with the committed
    one); a build takes about a second, the same every time.
    """
    out = tmp_path_factory.mktemp("reference") / "catalog.json"
    printed = io.StringIO()
    with redirect_stdout(printed):
        code = main(["--pricing", str(REFERENCE), "--out", str(out)])
    return code, printed.getvalue(), out


def by_key(doc):
    return {
        (s["key"], s["usage"]): dict(zip(doc["regions"], s["values"], strict=True))
        for s in doc["series"]
    }


def test_cli_builds_from_the_reference_and_reports_the_fits(built_from_reference):
    code, text, out = built_from_reference
    assert code == 0
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


def test_committed_catalog_agrees_with_the_reference(built_from_reference):
    code, _, out = built_from_reference
    assert code == 0
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


def test_committed_catalog_regenerates_byte_for_byte_from_the_full_export():
    export, path = full_export(), full_export_path()
    if export is None:
        pytest.skip("full Billing Catalog export not present (set MLGOV_PRICING_YML)")
    # What the command writes (__main__.main: build_document, then render_document as UTF-8),
    # from the export parsed once for this folder (catalog_reference.full_export); the command
    # itself, reading and writing files, is test_cli_builds_from_the_reference_and_reports_the_fits's.
    fresh = render_document(build_document(export, read_documented(DOCUMENTED_PATH)))
    assert fresh.encode("utf-8") == DEFAULT_PATH.read_bytes(), (
        "prices_regional.json is not what the generator makes of the export: run "
        f"python -m governance.costs.catalog_build --pricing {path}"
    )
