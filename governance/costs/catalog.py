"""The price catalog: list prices by (key, region, usage) loaded from the shipped prices.json.

It holds numbers and where they came from, nothing else: which prices a resource needs is its
cost model's business (resources/), and rebuilding the file from the Cloud Billing Catalog API
is refresh.py's. The default catalog is parsed once per process (`default_catalog()` is cached).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from governance.costs.errors import CatalogError

DEFAULT_PATH = Path(__file__).with_name("prices.json")
USAGES = ("ondemand", "spot")


@dataclass(frozen=True, slots=True)
class Price:
    """One list price: `usd` per `unit` for `key` in `region` ("global" if region-independent)."""

    key: str
    region: str
    usage: str
    usd: float
    unit: str
    source: str
    date: str
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON form used in prices.json."""
        out: dict[str, Any] = {
            "key": self.key,
            "region": self.region,
            "usage": self.usage,
            "usd": self.usd,
            "unit": self.unit,
            "source": self.source,
            "date": self.date,
        }
        if self.note:
            out["note"] = self.note
        return out


class Catalog:
    """Versioned set of prices with strict lookup: a missing price is a `CatalogError`."""

    def __init__(self, version: int, currency: str, generated: str, prices: list[Price]) -> None:
        self.version = version
        self.currency = currency
        self.generated = generated
        self.prices = prices
        self._index: dict[tuple[str, str, str], Price] = {
            (p.key, p.region, p.usage): p for p in prices
        }

    def __len__(self) -> int:
        return len(self.prices)

    def find(self, key: str, region: str, usage: str = "ondemand") -> Price | None:
        """The price for `key` in `region` (falling back to "global"), or None."""
        index = self._index
        return index.get((key, region, usage)) or index.get((key, "global", usage))

    def price(self, key: str, region: str, usage: str = "ondemand") -> Price:
        """The price for `key` in `region`; raises `CatalogError` naming what is missing."""
        found = self.find(key, region, usage)
        if found is None:
            regions = sorted({p.region for p in self.prices if p.key == key and p.usage == usage})
            where = f"; it has {usage} prices only for {', '.join(regions)}" if regions else ""
            raise CatalogError(
                f"price catalog v{self.version} has no {usage} price {key!r} in region "
                f"{region!r}{where} (run `python -m governance prices refresh` or add it)"
            )
        return found

    def keys(self, prefix: str) -> set[str]:
        """Distinct keys that start with `prefix` (e.g. "gpu.")."""
        return {p.key for p in self.prices if p.key.startswith(prefix)}

    def as_dict(self) -> dict[str, Any]:
        """The prices.json document."""
        return {
            "version": self.version,
            "currency": self.currency,
            "generated": self.generated,
            "entries": [p.as_dict() for p in self.prices],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], origin: str = "catalog") -> Catalog:
        """Validate and build a catalog from its JSON form."""
        try:
            version = int(data["version"])
            currency = str(data["currency"])
            generated = str(data["generated"])
            raw_entries: list[Mapping[str, Any]] = list(data["entries"])
        except (KeyError, TypeError, ValueError) as err:
            raise CatalogError(
                f"{origin}: needs 'version', 'currency', 'generated' and 'entries' ({err})"
            ) from None
        if currency != "USD":
            raise CatalogError(f"{origin}: currency is {currency!r}; mlgov prices in USD")
        prices: list[Price] = []
        for i, entry in enumerate(raw_entries):
            try:
                usage = str(entry["usage"])
                prices.append(
                    Price(
                        key=str(entry["key"]),
                        region=str(entry["region"]),
                        usage=usage,
                        usd=float(entry["usd"]),
                        unit=str(entry["unit"]),
                        source=str(entry["source"]),
                        date=str(entry["date"]),
                        note=str(entry.get("note", "")),
                    )
                )
            except (KeyError, TypeError, ValueError) as err:
                raise CatalogError(f"{origin}: entries[{i}] is invalid ({err})") from None
            if usage not in USAGES:
                raise CatalogError(f"{origin}: entries[{i}] usage {usage!r} not in {USAGES}")
        return cls(version, currency, generated, prices)


def load_catalog(path: str | Path) -> Catalog:
    """Read a catalog file; errors name the file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise CatalogError(f"cannot read price catalog {path}: {err.strerror}") from None
    except ValueError as err:
        raise CatalogError(f"price catalog {path} is not JSON: {err}") from None
    if not isinstance(data, dict):
        raise CatalogError(f"price catalog {path} must be a JSON object")
    return Catalog.from_dict(data, origin=str(path))  # pyright: ignore[reportUnknownArgumentType]


@functools.cache
def default_catalog() -> Catalog:
    """The catalog shipped with mlgov (parsed once per process)."""
    return load_catalog(DEFAULT_PATH)
