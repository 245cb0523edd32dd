"""The price catalog: list prices by (key, location, usage) for every location Google prices.

One type, `Catalog`, over the generated file governance/costs/prices_regional.json (built by
catalog_build/ from Google's Billing Catalog export plus documented figures, each with its
source and date; updated by `prices refresh` from the Cloud Billing Catalog API). Stdlib JSON
only, parsed once per process (`default_catalog()` is cached): ~15 ms for every region.

Lookups: `find` answers for the location or "global" or not at all; `price` also falls back to
the nearest priced location (nearest.py) and marks the answer (`Price.requested`), so an
estimate never stops on a location the catalog lacks but always says where a price came from.
`offered` says whether a source knows a machine type, GPU or TPU is sold in a region; `machine`
what a machine type is made of (vCPUs, memory, bundled GPUs and local SSD), as the export lists
it. Which keys a resource needs is its cost model's business (resources/).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from governance.costs.catalog_build.jsonfile import read_json_object
from governance.costs.errors import CatalogError
from governance.costs.nearest import fallback_order

DEFAULT_PATH = Path(__file__).with_name("prices_regional.json")
SCHEMA = "mlgov-regional-price-catalog"
USAGES = ("ondemand", "spot", "1y", "3y")
_UNASKED: Any = object()  # a cache's "not asked yet", apart from a cached None (no price)


@dataclass(frozen=True, slots=True)
class MachineFacts:
    """What a machine type is made of, as the export the catalog was built from lists it."""

    vcpus: float
    memory_gib: float
    gpus: tuple[tuple[str, float], ...] = ()
    """(GPU model, count) bundled with the type; a count may be a fraction (G4's 1/8 GPU)."""
    local_ssd_gib: float = 0.0
    """Local SSD bundled with the type (its price is in the type's)."""


def _machine_facts(raw: object, origin: str) -> dict[str, MachineFacts]:
    """The document's `machine_types`: name -> facts; a malformed entry names its key path."""
    if not isinstance(raw, Mapping):
        raise CatalogError(f"{origin}: machine_types is not a mapping")
    out: dict[str, MachineFacts] = {}
    for name, spec in cast(Mapping[str, Any], raw).items():
        where = f"{origin}: machine_types.{name}"
        try:
            gpus = cast(Mapping[str, Any], spec.get("gpus") or {})
            facts = MachineFacts(
                vcpus=float(spec["vcpus"]),
                memory_gib=float(spec["memory_gib"]),
                gpus=tuple((str(model), float(count)) for model, count in gpus.items()),
                local_ssd_gib=float(spec.get("local_ssd_gib", 0)),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as err:
            raise CatalogError(f"{where}: needs vcpus and memory_gib numbers ({err})") from None
        out[str(name)] = facts
    return out


@dataclass(frozen=True, slots=True)
class Price:
    """One list price: `usd` per `unit` for `key` in `region` ("global": region-independent)."""

    key: str
    region: str
    usage: str
    usd: float
    unit: str
    source: str  # URL (or title) of where the figure comes from
    date: str  # YYYY-MM-DD the figure is from (or was retrieved, where its source is undated)
    note: str = ""  # how it was obtained (e.g. "exact least-squares fit over ...")
    requested: str = ""
    """The location asked for when this price is another location's (a fallback), else ""."""


class Catalog:
    """Prices by (key, location, usage) over every location the catalog knows."""

    def __init__(self, doc: Mapping[str, Any], origin: str = "catalog") -> None:
        try:
            fmt, version = doc["format"], int(doc["version"])
            regions = [str(r) for r in doc["regions"]]
            series = list(doc["series"])
            self.currency = str(doc["currency"])
            self.generated = str(doc["generated"])
            self.refreshed = str(doc.get("refreshed", ""))
            self.attribution = str(doc.get("attribution", ""))
            sources = cast(Mapping[str, Mapping[str, str]], doc.get("sources", {}))
            self.fits = cast(Mapping[str, Mapping[str, Any]], doc.get("fits", {}))
            availability = cast(Mapping[str, Mapping[str, Any]], doc.get("availability", {}))
            machine_types: object = doc.get("machine_types", {})
        except (KeyError, TypeError, ValueError) as err:
            raise CatalogError(f"{origin}: not a regional price catalog ({err})") from None
        if fmt != SCHEMA:
            raise CatalogError(f"{origin}: format {fmt!r} is not {SCHEMA!r}")
        if self.currency != "USD":
            raise CatalogError(f"{origin}: currency is {self.currency!r}; mlgov prices in USD")
        self.version = version
        self._machines = _machine_facts(machine_types, origin)
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
        self._offered_source = {str(k): str(v.get("source", "")) for k, v in availability.items()}
        self._found: dict[tuple[str, str, str], Price | None] = {}
        self._nearest: dict[tuple[str, str, str], Price | None] = {}
        self._offered_cache: dict[tuple[str, str], bool | None] = {}
        self.derived: dict[tuple[str, str], Any] = {}
        """Answers other modules work out from this catalog alone (a machine type's shape, a
        family's sustained-use tiers), kept with it: a catalog never changes once read, and an
        estimate asks them for every VM."""

    def __len__(self) -> int:
        return sum(1 for s in self._series.values() for v in s["values"] if v is not None)

    def _entry(self, s: Mapping[str, Any], region: str, usd: float) -> Price:
        source = str(s["source"])
        spec = self.sources.get(source)
        if spec is not None:
            source = spec.get("url") or spec.get("title") or source
        return Price(
            key=str(s["key"]),
            region=region,
            usage=str(s["usage"]),
            usd=float(usd),
            unit=str(s["unit"]),
            source=source,
            date=str(s["date"]),
            note=str(s.get("how", "")),
        )

    def find(self, key: str, region: str, usage: str = "ondemand") -> Price | None:
        """The price for `key` in `region` (or its "global" price), or None: no fallback."""
        cache_key = (key, region, usage)
        # an estimate asks the same few questions many times: one dict probe when answered
        found = self._found.get(cache_key, _UNASKED)
        if found is not _UNASKED:
            return found
        found = None
        s = self._series.get((key, usage))
        if s is not None:
            values: Sequence[float | None] = s["values"]
            for where in (region, "global"):
                col = self._column.get(where)
                if col is not None and values[col] is not None:
                    found = self._entry(s, where, cast(float, values[col]))
                    break
        self._found[cache_key] = found
        return found

    def nearest(self, key: str, region: str, usage: str = "ondemand") -> Price | None:
        """The price of the nearest location that has one (nearest.py), marked as a fallback."""
        cache_key = (key, region, usage)
        if cache_key not in self._nearest:
            found = None
            for where in fallback_order(region, self.regions_for(key, usage)):
                if (price := self.find(key, where, usage)) is not None:
                    found = replace(price, requested=region)
                    break
            self._nearest[cache_key] = found
        return self._nearest[cache_key]

    def price(self, key: str, region: str, usage: str = "ondemand") -> Price:
        """The price in `region`, else the nearest location's (`requested` set); else an error."""
        # the cache `find` fills, read here first: every charge of an estimate asks for a price
        found = self._found.get((key, region, usage))
        if found is None:
            found = self.find(key, region, usage) or self.nearest(key, region, usage)
        if found is None:
            raise CatalogError(
                f"price catalog of {self.generated} has no {usage} price {key!r} in any location"
            )
        return found

    def machine(self, name: str) -> MachineFacts | None:
        """What machine type `name` is made of, where the catalog's export lists it."""
        return self._machines.get(name)

    def keys(self, prefix: str = "") -> set[str]:
        """Distinct keys that start with `prefix` (e.g. "gpu.")."""
        return {key for key, _ in self._series if key.startswith(prefix)}

    def has(self, key: str, usage: str = "ondemand") -> bool:
        """Whether any location has a `usage` price for `key`."""
        return (key, usage) in self._series

    def regions_for(self, key: str, usage: str = "ondemand") -> tuple[str, ...]:
        """Locations with a price for `key` under `usage`, in catalog order."""
        s = self._series.get((key, usage))
        if s is None:
            return ()
        return tuple(r for r, v in zip(self.regions, s["values"], strict=True) if v is not None)

    def offered(self, what: str, region: str) -> bool | None:
        """Whether a GPU, TPU or machine type is offered in `region`, where a source says.

        `what` is "gpu.nvidia-l4", "tpu.v4" or "gce.type.n1-standard-4". None means no source
        says either way (an unknown type, or a location the catalog does not know): the
        estimator then prices with a visible fallback, never an error.
        """
        cache_key = (what, region)
        if cache_key not in self._offered_cache:  # every VM and node asks; answers never change
            self._offered_cache[cache_key] = self._is_offered(what, region)
        return self._offered_cache[cache_key]

    def _is_offered(self, what: str, region: str) -> bool | None:
        if what in self._offered:  # a documented list of every region that sells it
            return region in self._offered[what]
        col = self._column.get(region)
        if col is None:
            return None
        if what.startswith(("gce.type.", "gpu.")):
            # the export prices a type (or a bundled GPU) exactly where Google sells it: sold
            # here when any usage has a price in this region's column (one lookup per usage,
            # not a list of every region: a catalog walk asks for each type in each region)
            found = [s for u in USAGES if (s := self._series.get((what, u))) is not None]
            if found:
                return any(s["values"][col] is not None for s in found)
        return None

    def where_offered(self, what: str) -> tuple[str, ...]:
        """Regions a source says offer `what` (empty when none says)."""
        if what in self._offered:
            return tuple(sorted(self._offered[what]))
        return tuple(sorted({r for u in USAGES for r in self.regions_for(what, u)}))

    def source_of(self, what: str) -> str:
        """The URL (or title) of the source behind `offered(what, ...)` and `where_offered`."""
        sid = self._offered_source.get(what, "")
        if not sid:
            sid = next((str(s["source"]) for u in USAGES if (s := self._series.get((what, u)))), "")
        spec = self.sources.get(sid)
        return (spec.get("url") or spec.get("title") or sid) if spec is not None else sid


def load_catalog(path: str | Path = DEFAULT_PATH) -> Catalog:
    """Read a catalog file; errors name the file."""
    return Catalog(read_json_object(path, CatalogError, "price catalog"), origin=str(path))


@functools.cache
def default_catalog() -> Catalog:
    """The catalog shipped with mlgov (parsed once per process)."""
    return load_catalog(DEFAULT_PATH)
