"""Load the generated regional price catalog (prices_regional.json) for fast lookups.

Stdlib JSON only, so `plan` and `check` pay ~15 ms for every region's prices. A
`RegionalCatalog` answers the same questions as costs/catalog.py's `Catalog` (`find`, `price`,
`keys`) with the same semantics (a region falls back to "global"; a missing price is a
`CatalogError` naming key, region, usage and where that price does exist), plus which regions
price a key and whether a GPU/TPU/machine type is offered in a region. Building the file is
build.py's job; deciding which keys a resource needs is the estimator's.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from governance.costs.catalog_build.jsonfile import read_json_object
from governance.costs.errors import CatalogError

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "prices_regional.json"
SCHEMA = "mlgov-regional-price-catalog"
USAGES = ("ondemand", "spot", "1y", "3y")


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One price: `usd` per `unit` for `key` in `region` under `usage` (fields as catalog.Price)."""

    key: str
    region: str
    usage: str
    usd: float
    unit: str
    source: str  # URL (or title) of where the figure comes from
    date: str  # YYYY-MM-DD the figure is from
    note: str = ""  # how it was obtained (e.g. "exact least-squares fit over ...")


class RegionalCatalog:
    """Prices by (key, region, usage) over every region the catalog knows; strict lookups."""

    def __init__(self, doc: Mapping[str, Any], origin: str = "catalog") -> None:
        try:
            fmt, version = doc["format"], int(doc["version"])
            regions = [str(r) for r in doc["regions"]]
            series = list(doc["series"])
            self.currency = str(doc["currency"])
            self.generated = str(doc["generated"])
            self.attribution = str(doc.get("attribution", ""))
            sources = cast(Mapping[str, Mapping[str, str]], doc.get("sources", {}))
            self.fits = cast(Mapping[str, Mapping[str, Any]], doc.get("fits", {}))
            availability = cast(Mapping[str, Mapping[str, Any]], doc.get("availability", {}))
        except (KeyError, TypeError, ValueError) as err:
            raise CatalogError(f"{origin}: not a regional price catalog ({err})") from None
        if fmt != SCHEMA:
            raise CatalogError(f"{origin}: format {fmt!r} is not {SCHEMA!r}")
        if self.currency != "USD":
            raise CatalogError(f"{origin}: currency is {self.currency!r}; mlgov prices in USD")
        self.version = version
        self.regions = tuple(regions)
        self.sources = sources
        self._column = {region: i for i, region in enumerate(regions)}
        self._series: dict[tuple[str, str], Mapping[str, Any]] = {}
        for i, s in enumerate(series):
            try:
                ok = len(s["values"]) == len(regions) and s["usage"] in USAGES
                key = (str(s["key"]), str(s["usage"]))
            except (KeyError, TypeError):
                ok, key = False, ("", "")
            if not ok:
                raise CatalogError(
                    f"{origin}: series[{i}] needs key, usage in {USAGES} and "
                    f"one value per region ({len(regions)})"
                )
            self._series[key] = s
        self._offered = {
            str(k): frozenset(str(r) for r in v.get("regions", [])) for k, v in availability.items()
        }

    def __len__(self) -> int:
        return sum(1 for s in self._series.values() for v in s["values"] if v is not None)

    def _entry(self, s: Mapping[str, Any], region: str, usd: float) -> CatalogEntry:
        source = str(s["source"])
        spec = self.sources.get(source)
        if spec is not None:
            source = spec.get("url") or spec.get("title") or source
        return CatalogEntry(
            key=str(s["key"]),
            region=region,
            usage=str(s["usage"]),
            usd=float(usd),
            unit=str(s["unit"]),
            source=source,
            date=str(s["date"]),
            note=str(s.get("how", "")),
        )

    def find(self, key: str, region: str, usage: str = "ondemand") -> CatalogEntry | None:
        """The price for `key` in `region` (falling back to "global"), or None."""
        s = self._series.get((key, usage))
        if s is None:
            return None
        values: Sequence[float | None] = s["values"]
        for where in (region, "global"):
            col = self._column.get(where)
            if col is not None and values[col] is not None:
                return self._entry(s, where, cast(float, values[col]))
        return None

    def price(self, key: str, region: str, usage: str = "ondemand") -> CatalogEntry:
        """The price for `key` in `region`; `CatalogError` names what is missing and where not."""
        found = self.find(key, region, usage)
        if found is None:
            where = self.regions_for(key, usage)
            has = f"; it has {usage} prices for {len(where)} locations" if where else ""
            some = f" ({', '.join(where[:6])}{', ...' if len(where) > 6 else ''})" if where else ""
            raise CatalogError(
                f"regional price catalog of {self.generated} has no {usage} price {key!r} in "
                f"region {region!r}{has}{some}"
            )
        return found

    def keys(self, prefix: str = "") -> set[str]:
        """Distinct keys that start with `prefix` (e.g. "gpu.")."""
        return {key for key, _ in self._series if key.startswith(prefix)}

    def regions_for(self, key: str, usage: str = "ondemand") -> tuple[str, ...]:
        """Locations with a price for `key` under `usage`, in catalog order."""
        s = self._series.get((key, usage))
        if s is None:
            return ()
        return tuple(r for r, v in zip(self.regions, s["values"], strict=True) if v is not None)

    def offered(self, what: str, region: str) -> bool | None:
        """Whether a GPU, TPU or machine type is offered in `region`, where a source says.

        `what` is "gpu.nvidia-l4", "tpu.v4" or "gce.type.n1-standard-4"; None means no source
        says either way (the estimator then prices with a visible fallback, not an error).
        """
        if what in self._offered:
            return region in self._offered[what]
        if what.startswith(("gce.type.", "gpu.")) and any(
            (what, u) in self._series for u in USAGES
        ):
            # the export prices a type (or a bundled GPU) exactly where Google sells it
            return any(region in self.regions_for(what, usage) for usage in USAGES)
        return None


def load_generated_catalog(path: str | Path = DEFAULT_PATH) -> RegionalCatalog:
    """Read a generated regional catalog; errors name the file."""
    data = read_json_object(path, CatalogError, "price catalog")
    return RegionalCatalog(data, origin=str(path))


@functools.cache
def default_generated_catalog() -> RegionalCatalog:
    """The regional catalog shipped with mlgov (parsed once per process)."""
    return load_generated_catalog(DEFAULT_PATH)
