"""Google's discovery documents, as google-api-python-client ships them (test-only oracle).

The package is a dev dependency only; nothing at run time imports it. Documents are read as JSON
from its discovery cache, without importing the client.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

_SPEC = importlib.util.find_spec("googleapiclient")
assert _SPEC is not None and _SPEC.submodule_search_locations, "google-api-python-client missing"
DOCUMENTS = Path(next(iter(_SPEC.submodule_search_locations))) / "discovery_cache" / "documents"


@functools.cache
def document(name: str) -> dict[str, Any]:
    """The discovery document `<name>.json`, e.g. `compute.v1`."""
    return json.loads((DOCUMENTS / f"{name}.json").read_text(encoding="utf-8"))


def schema(api: str, name: str) -> dict[str, Any]:
    """One schema of a discovery document."""
    return document(api)["schemas"][name]


def properties(api: str, name: str) -> dict[str, Any]:
    """The properties of one schema."""
    return schema(api, name)["properties"]


def enum(api: str, name: str, field: str) -> set[str]:
    """The enum values of one field of one schema."""
    return set(properties(api, name)[field]["enum"])


def description(api: str, name: str, field: str) -> str:
    """The description of one field of one schema."""
    return properties(api, name)[field]["description"]
