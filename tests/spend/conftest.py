"""The spend tests' fixtures: the loaded BigQuery emulator (tests/spend/emulator.py), the endpoint.

`export` is the one emulator of the test process, loaded with the shipped stacks' billing export
rows (tests/spend/emulator.py lists its datasets); tests/report uses it too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.spend.emulator import Export, shared_export
from tests.spend.proxy import RecordingProxy


@pytest.fixture(scope="session")
def export(pytestconfig: pytest.Config) -> Export:
    return shared_export(pytestconfig)


@pytest.fixture
def endpoint(export: Export, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point `spend` at the emulator through MLGOV_API_ENDPOINTS (docs/architecture.md#function-environment)."""
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"bigquery": export.url}))
    return export.url


@pytest.fixture
def proxy(export: Export, monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordingProxy]:
    """Point `spend` at a recording proxy in front of the emulator."""
    recorder = RecordingProxy(export.url).start()
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"bigquery": recorder.url}))
    try:
        yield recorder
    finally:
        recorder.stop()
