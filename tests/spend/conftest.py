"""One BigQuery emulator per test session, loaded with billing export rows for the shipped stacks.

Datasets in project acme-ml-dev (the dev stack's export project), all for billing account
01D4EE-079462-DFD6EC (every shipped stack's):

- `billing_export`: standard and detailed tables, 40 days of rows for the dev, staging and prod
  projects and one project no stack governs, exported 5 h after each 6-hour slot (current);
- `stale_export`: the same usage, but the export stopped 3 days ago;
- `standard_only`: current standard rows, no detailed table (the detailed export is off);
- `empty_export`: an export table with no rows yet;
- `no_export`: a dataset the export never wrote to;
- `eur_export`: the dev project's rows for a billing account that pays in euros.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from governance.fakecloud import export_rows as ex
from governance.fakecloud.bqemulator import Emulator, EmulatorMissing, load_rows
from tests.spend.proxy import RecordingProxy

PROJECT = "acme-ml-dev"
SUFFIX = ex.ACCOUNT.replace("-", "_")
STANDARD = f"gcp_billing_export_v1_{SUFFIX}"
DETAILED = f"gcp_billing_export_resource_v1_{SUFFIX}"
DAYS = 40
STALE_BY = timedelta(days=3)
EUR_PER_USD = 0.8  # currency_conversion_rate: local currency per US dollar


@dataclass(frozen=True)
class Export:
    """The loaded emulator and the rows in it (the ground truth for expected numbers)."""

    url: str
    now: datetime
    rows: list[dict[str, Any]]  # billing_export's standard rows
    detailed_rows: list[dict[str, Any]]
    stale_rows: list[dict[str, Any]]
    emulator: Emulator


def _usages() -> list[ex.Usage]:
    return [u for stack in ("dev", "staging", "prod", "other") for u in ex.stack_usages(stack)]


@pytest.fixture(scope="session")
def export() -> Iterator[Export]:
    try:
        emulator = Emulator(PROJECT).start()
    except EmulatorMissing as err:
        pytest.fail(str(err))
    try:
        client = emulator.client()
        now = datetime.now(UTC)
        usages = _usages()
        rows = list(ex.rows(usages, now, DAYS))
        detailed = list(ex.rows(usages, now, DAYS, with_resource=True))
        stale = list(ex.rows(usages, now - STALE_BY, DAYS))
        load_rows(client, f"{PROJECT}.billing_export.{STANDARD}", ex.STANDARD_SCHEMA, rows)
        load_rows(client, f"{PROJECT}.billing_export.{DETAILED}", ex.DETAILED_SCHEMA, detailed)
        load_rows(client, f"{PROJECT}.stale_export.{STANDARD}", ex.STANDARD_SCHEMA, stale)
        load_rows(client, f"{PROJECT}.standard_only.{STANDARD}", ex.STANDARD_SCHEMA, rows)
        load_rows(client, f"{PROJECT}.empty_export.{STANDARD}", ex.STANDARD_SCHEMA, [])
        client.create_dataset(f"{PROJECT}.no_export")
        dev = ex.stack_usages("dev")
        for name, schema, detail in (
            (STANDARD, ex.STANDARD_SCHEMA, False),
            (DETAILED, ex.DETAILED_SCHEMA, True),
        ):
            euro = [
                {**r, "currency": "EUR", "currency_conversion_rate": EUR_PER_USD}
                for r in ex.rows(dev, now, DAYS, with_resource=detail)
            ]
            load_rows(client, f"{PROJECT}.eur_export.{name}", schema, euro)
        yield Export(emulator.url, now, rows, detailed, stale, emulator)
    finally:
        emulator.stop()


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
