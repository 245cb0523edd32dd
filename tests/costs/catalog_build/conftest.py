"""Fixtures for the regional catalog tests: the reference export and the shipped catalog."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from catalog_reference import REFERENCE

from governance.costs.catalog import Catalog, load_catalog
from governance.costs.catalog_build.export import Export, read_export


@pytest.fixture(scope="session")
def reference() -> Export:
    return read_export(REFERENCE)


@pytest.fixture(scope="session")
def reference_doc() -> dict[str, Any]:
    return yaml.load(REFERENCE.read_text(), Loader=yaml.CSafeLoader)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()
