"""One BigQuery emulator per test process, loaded with billing export rows for the shipped stacks.

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any, cast

import pytest

from governance.fakecloud import export_rows as ex
from governance.fakecloud.bqemulator import Emulator, EmulatorMissing, load_rows

PROJECT = "acme-ml-dev"
SUFFIX = ex.ACCOUNT.replace("-", "_")
STANDARD = f"gcp_billing_export_v1_{SUFFIX}"
DETAILED = f"gcp_billing_export_resource_v1_{SUFFIX}"
DAYS = 40
STALE_BY = timedelta(days=3)
EUR_PER_USD = 0.8  # currency_conversion_rate: local currency per US dollar


@dataclass(frozen=True)
class Export:
    """The loaded emulator and the rows in it (the ground truth for expected numbers).

    Shared by every test of the process (tests/report's too): the rows are read-only mappings,
    so no test can change the ground truth another test compares with.
    """

    url: str
    now: datetime
    rows: tuple[Mapping[str, Any], ...]  # billing_export's standard rows
    detailed_rows: tuple[Mapping[str, Any], ...]
    stale_rows: tuple[Mapping[str, Any], ...]
    emulator: Emulator


def _usages() -> list[ex.Usage]:
    return [u for stack in ("dev", "staging", "prod", "other") for u in ex.stack_usages(stack)]


def _frozen(value: Any) -> Any:
    """A read-only copy of a generated row (mappings and lists all the way down)."""
    if isinstance(value, Mapping):
        mapping = cast(Mapping[str, Any], value)
        return MappingProxyType({k: _frozen(v) for k, v in mapping.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in cast(list[Any], value))
    return value


@dataclass(frozen=True)
class Table:
    """One table the emulator holds, and the rows loaded into it."""

    id: str
    schema: Sequence[Mapping[str, Any]]
    rows: list[dict[str, Any]]


def billing_export(now: datetime) -> list[Table]:
    """The current export's standard and detailed tables, as loaded at `now` (no emulator).

    tests/docs checks the `spend` samples against this emulator: it compares these tables with
    the ones `make demo` loads (governance/demo/export.py) without starting either.
    """
    usages = _usages()
    return [
        Table(
            f"{PROJECT}.billing_export.{STANDARD}",
            ex.STANDARD_SCHEMA,
            list(ex.rows(usages, now, DAYS)),
        ),
        Table(
            f"{PROJECT}.billing_export.{DETAILED}",
            ex.DETAILED_SCHEMA,
            list(ex.rows(usages, now, DAYS, with_resource=True)),
        ),
    ]


def tables(now: datetime) -> list[Table]:
    """Every table of the emulator with the rows it holds when loaded at `now`."""
    standard, detailed = billing_export(now)
    dev = ex.stack_usages("dev")
    euro = [
        Table(
            f"{PROJECT}.eur_export.{name}",
            schema,
            [
                {**r, "currency": "EUR", "currency_conversion_rate": EUR_PER_USD}
                for r in ex.rows(dev, now, DAYS, with_resource=detail)
            ],
        )
        for name, schema, detail in (
            (STANDARD, ex.STANDARD_SCHEMA, False),
            (DETAILED, ex.DETAILED_SCHEMA, True),
        )
    ]
    return [
        standard,
        detailed,
        Table(
            f"{PROJECT}.stale_export.{STANDARD}",
            ex.STANDARD_SCHEMA,
            list(ex.rows(_usages(), now - STALE_BY, DAYS)),
        ),
        Table(f"{PROJECT}.standard_only.{STANDARD}", ex.STANDARD_SCHEMA, standard.rows),
        Table(f"{PROJECT}.empty_export.{STANDARD}", ex.STANDARD_SCHEMA, []),
        *euro,
    ]


def _load(emulator: Emulator) -> Export:
    client = emulator.client()
    now = datetime.now(UTC)
    loaded = tables(now)
    for table in loaded:
        load_rows(client, table.id, table.schema, table.rows)
    client.create_dataset(f"{PROJECT}.no_export")
    held = {table.id: table.rows for table in loaded}
    return Export(
        emulator.url,
        now,
        tuple(map(_frozen, held[f"{PROJECT}.billing_export.{STANDARD}"])),
        tuple(map(_frozen, held[f"{PROJECT}.billing_export.{DETAILED}"])),
        tuple(map(_frozen, held[f"{PROJECT}.stale_export.{STANDARD}"])),
        emulator,
    )


_SHARED = pytest.StashKey[Export]()


def shared_export(config: pytest.Config) -> Export:
    """The process's one loaded emulator, started by the first test that asks for it.

    tests/report reads the same emulator, but its conftest cannot see tests/spend's fixtures; a
    fixture imported into a second conftest is a second fixture with a cache of its own, and
    pytest imports this folder's conftest under two module names (`spend.conftest`, and
    `tests.spend.conftest` when a test imports from it). A worker running both folders (one unit
    of `-n 2`, tests/conftest.py) started and loaded two emulators. So the one loaded emulator is
    kept on the pytest config, by this module (imported by one name only), and stopped when the
    session ends.
    """
    if (known := config.stash.get(_SHARED, None)) is not None:
        return known
    try:
        emulator = Emulator(PROJECT).start()
    except EmulatorMissing as err:
        pytest.fail(str(err))
    try:
        loaded = _load(emulator)
    except BaseException:
        emulator.stop()
        raise
    config.add_cleanup(emulator.stop)
    config.stash[_SHARED] = loaded
    return loaded
