"""What the estimator works out once per catalog (`Catalog.derived`) stays that catalog's own.

A machine type's shape and a family's sustained-use shares are kept with the catalog they were
read from: another catalog that says otherwise gets its own answer, and a name that raises keeps
raising (an error is never kept as an answer).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from governance.costs.catalog import DEFAULT_PATH, Catalog
from governance.costs.errors import Refused
from governance.costs.machine_pricing import sud_hours
from governance.costs.machines import machine_shape


@pytest.fixture(scope="module")
def shipped_doc() -> dict[str, Any]:
    return json.loads(DEFAULT_PATH.read_text())


def _catalog(doc: dict[str, Any], edit: Any = None) -> Catalog:
    doc = copy.deepcopy(doc)
    if edit is not None:
        edit(doc)
    return Catalog(doc)


def test_a_shape_is_read_from_each_catalog_of_its_own(shipped_doc):
    def fewer_cpus(doc):
        doc["machine_types"]["a3-megagpu-8g"]["vcpus"] = 104.0

    shipped, edited = _catalog(shipped_doc), _catalog(shipped_doc, fewer_cpus)
    assert machine_shape("a3-megagpu-8g", shipped).vcpus == 208.0
    assert machine_shape("a3-megagpu-8g", edited).vcpus == 104.0
    # asked again, each catalog keeps its own answer
    assert machine_shape("a3-megagpu-8g", shipped).vcpus == 208.0
    assert machine_shape("a3-megagpu-8g", edited).vcpus == 104.0


def test_a_name_google_refuses_is_refused_every_time(shipped_doc):
    catalog = _catalog(shipped_doc)
    for _ in range(2):
        with pytest.raises(Refused, match="N1-STANDARD-4"):
            machine_shape("N1-STANDARD-4", catalog)
    assert machine_shape("n1-standard-4", catalog).vcpus == 4.0


def test_sustained_use_shares_are_each_catalogs_own(shipped_doc):
    def no_discount(doc):
        for s in doc["series"]:
            if s["key"].startswith("sud.n1.q"):
                s["values"] = [1.0 if v is not None else None for v in s["values"]]

    def no_tiers(doc):
        doc["series"] = [s for s in doc["series"] if not s["key"].startswith("sud.n1.q")]

    shipped = _catalog(shipped_doc)
    flat, untiered = _catalog(shipped_doc, no_discount), _catalog(shipped_doc, no_tiers)
    discounted = sud_hours(shipped, "n1", 730.0, "ondemand")
    assert discounted < 730.0 * 0.75  # N1's full month bills at 70% of list
    assert sud_hours(flat, "n1", 730.0, "ondemand") == pytest.approx(730.0)
    assert sud_hours(untiered, "n1", 730.0, "ondemand") == 730.0
    assert sud_hours(shipped, "n1", 730.0, "ondemand") == discounted  # asked again
    assert sud_hours(shipped, "n1", 730.0, "spot") == 730.0  # never on spot hours
