"""`pytest -n 2` keeps together the files that share a costly per-process object (tests/conftest.py).

A file split from its unit still passes, only slower (its emulator or export is made again on the
other worker), so nothing else would notice the grouping break.
"""

from __future__ import annotations

import pytest

from tests.conftest import SHARED_UNITS, pytest_xdist_make_scheduler, work_unit


def test_the_emulator_files_are_one_unit() -> None:
    assert work_unit("tests/spend/test_spend_report.py") == work_unit(
        "tests/report/test_report_browser.py"
    )
    # the docs' `mlgov spend` samples read the same emulator (tests/docs/test_docs.py)
    assert work_unit("tests/docs/test_docs.py") == work_unit("tests/spend/test_spend_report.py")
    assert work_unit("tests/docs/test_docs_site.py") == "tests/docs/test_docs_site.py"


def test_the_catalog_build_files_are_one_unit_apart_from_the_emulator() -> None:
    units = {
        work_unit("tests/costs/catalog_build/test_every_catalog_type.py"),
        work_unit("tests/costs/catalog_build/test_regional_current.py"),
    }
    assert len(units) == 1
    assert units != {work_unit("tests/spend/test_spend_report.py")}


def test_any_other_file_is_its_own_unit() -> None:
    for path in ("tests/costs/test_bill.py", "tests/layout/test_import_rules.py"):
        assert work_unit(path) == path
    assert len(set(SHARED_UNITS.values())) == 2


def test_the_units_are_used_only_with_loadfile(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `make e2e` passes --dist load: its runs are spread one by one, no units.
    monkeypatch.setattr(pytestconfig.option, "dist", "load")
    assert pytest_xdist_make_scheduler(pytestconfig, None) is None
    monkeypatch.setattr(pytestconfig.option, "dist", "loadfile")
    monkeypatch.setattr(pytestconfig.option, "tx", ["2*popen"])  # what -n 2 sets
    scheduler = pytest_xdist_make_scheduler(pytestconfig, None)
    nodeid = "tests/report/test_report_cli.py::test_x"
    assert scheduler._split_scope(nodeid) == "the BigQuery emulator's files"
