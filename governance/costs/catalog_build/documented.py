"""Read documented.json: the figures the Billing Catalog export lacks, each with source and date.

Standalone GPUs attached to N1, TPU chips, Cloud SQL, BigQuery, the GKE fee, the Workbench fee,
Functions, Pub/Sub and Scheduler are not in the export. documented.json holds the best figures
found for them (see its `sources`), which GPUs/TPUs are offered where, and the documented
sustained-use tier tables. This module validates that file; build.py merges it with the export.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, cast

from governance.costs.catalog_build.jsonfile import read_json_object

DEFAULT_PATH = Path(__file__).with_name("documented.json")
USAGES = ("ondemand", "spot", "1y", "3y")


class DocumentedError(ValueError):
    """documented.json is malformed; the message names the key path."""


@dataclass(frozen=True, slots=True)
class Scale:
    """Extend a figure documented for one region to every region and the usages listed.

    The documented price is a fixed multiple of a related series of the export (`of`) in the
    anchor region; build.py applies the same multiple to that series in every region and for
    each usage in `usages`: value[u][r] = documented / of[ondemand][anchor] x of[u][r].
    """

    of: str
    anchor: str
    usages: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DocumentedEntry:
    """One documented price series: `values[usage][region]` in USD per `unit`."""

    key: str
    unit: str
    source: str  # an id of `Documented.sources` or a URL
    date: str
    note: str
    values: Mapping[str, Mapping[str, float]]
    scale: Scale | None = None


@dataclass(frozen=True, slots=True)
class Availability:
    """Where a GPU or TPU generation is offered, per a source."""

    regions: tuple[str, ...]
    source: str
    note: str


@dataclass(frozen=True, slots=True)
class Documented:
    """The whole file, validated."""

    sources: Mapping[str, Mapping[str, str]]
    sud_tables: Mapping[str, tuple[float, ...]]
    sud_source: str
    sud_date: str
    availability: Mapping[str, Availability]  # "gpu.nvidia-tesla-t4", "tpu.v4", ...
    entries: tuple[DocumentedEntry, ...]


def _map(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DocumentedError(f"{path}: expected an object")
    return cast(Mapping[str, Any], value)


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise DocumentedError(f"{path}: expected a non-empty string")
    return value


def _iso(value: Any, path: str) -> str:
    text = _text(value, path)
    try:
        date.fromisoformat(text)
    except ValueError:
        raise DocumentedError(f"{path}: {text!r} is not a YYYY-MM-DD date") from None
    return text


def _usd(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise DocumentedError(f"{path}: expected a price >= 0, got {value!r}")
    return float(value)


def _source(value: Any, sources: Mapping[str, Any], path: str) -> str:
    text = _text(value, path)
    if text not in sources and not text.startswith("https://"):
        raise DocumentedError(f"{path}: {text!r} is neither a source id nor an https URL")
    return text


def _entry(raw: Any, sources: Mapping[str, Any], path: str) -> DocumentedEntry:
    spec = _map(raw, path)
    values: dict[str, dict[str, float]] = {}
    for usage, regions in _map(spec.get("values"), f"{path}.values").items():
        if usage not in USAGES:
            raise DocumentedError(f"{path}.values.{usage}: usage not in {USAGES}")
        values[usage] = {
            str(region): _usd(usd, f"{path}.values.{usage}.{region}")
            for region, usd in _map(regions, f"{path}.values.{usage}").items()
        }
    return DocumentedEntry(
        scale=_scale(spec.get("scale"), values, f"{path}.scale"),
        key=_text(spec.get("key"), f"{path}.key"),
        unit=_text(spec.get("unit"), f"{path}.unit"),
        source=_source(spec.get("source"), sources, f"{path}.source"),
        date=_iso(spec.get("date"), f"{path}.date"),
        note=str(spec.get("note", "")),
        values=values,
    )


def _scale(raw: Any, values: Mapping[str, Mapping[str, float]], path: str) -> Scale | None:
    if raw is None:
        return None
    spec = _map(raw, path)
    anchor = _text(spec.get("anchor"), f"{path}.anchor")
    if set(values) != {"ondemand"} or set(values["ondemand"]) != {anchor}:
        raise DocumentedError(f"{path}: needs exactly one on-demand value, for {anchor!r}")
    usages = spec.get("usages")
    if not isinstance(usages, list) or not usages or not set(cast(list[Any], usages)) <= {*USAGES}:
        raise DocumentedError(f"{path}.usages: expected a list of usages from {USAGES}")
    return Scale(
        of=_text(spec.get("of"), f"{path}.of"),
        anchor=anchor,
        usages=tuple(str(u) for u in cast(list[Any], usages)),
    )


def parse_documented(data: Any) -> Documented:
    """Validate the parsed documented.json (pure)."""
    doc = _map(data, "<documented>")
    sources = {
        str(sid): {str(k): str(v) for k, v in _map(spec, f"sources.{sid}").items()}
        for sid, spec in _map(doc.get("sources"), "sources").items()
    }
    sud = _map(doc.get("sud_tables"), "sud_tables")
    tables: dict[str, tuple[float, ...]] = {}
    for name, raw in _map(sud.get("tables"), "sud_tables.tables").items():
        if not isinstance(raw, list) or len(cast(list[Any], raw)) != 4:
            raise DocumentedError(f"sud_tables.tables.{name}: expected 4 quarter factors")
        tables[str(name)] = tuple(
            _usd(v, f"sud_tables.tables.{name}[{i}]") for i, v in enumerate(cast(list[Any], raw))
        )
    availability: dict[str, Availability] = {}
    for key, raw in _map(doc.get("availability"), "availability").items():
        spec = _map(raw, f"availability.{key}")
        regions = spec.get("regions")
        if not isinstance(regions, list) or not regions:
            raise DocumentedError(f"availability.{key}.regions: expected a list of regions")
        source = _source(spec.get("source"), sources, f"availability.{key}.source")
        availability[str(key)] = Availability(
            regions=tuple(str(r) for r in cast(list[Any], regions)),
            source=source,
            note=str(spec.get("note", "")),
        )
    raw_entries = doc.get("entries")
    if not isinstance(raw_entries, list):
        raise DocumentedError("entries: expected a list")
    entries = tuple(
        _entry(raw, sources, f"entries[{i}]") for i, raw in enumerate(cast(list[Any], raw_entries))
    )
    seen: set[tuple[str, str]] = set()
    for i, entry in enumerate(entries):
        for usage in entry.values:
            if (entry.key, usage) in seen:
                raise DocumentedError(f"entries[{i}]: {entry.key} {usage} is listed twice")
            seen.add((entry.key, usage))
    return Documented(
        sources=sources,
        sud_tables=tables,
        sud_source=_text(sud.get("source_url"), "sud_tables.source_url"),
        sud_date=_iso(sud.get("date"), "sud_tables.date"),
        availability=availability,
        entries=entries,
    )


def read_documented(path: str | Path = DEFAULT_PATH) -> Documented:
    """Read and validate documented.json; errors name the file."""
    data = read_json_object(path, DocumentedError, "documented figures")
    try:
        return parse_documented(data)
    except DocumentedError as err:
        raise DocumentedError(f"{path}: {err}") from None
