"""Read the Billing Catalog export (Cyclenerd's pricing.yml) into typed, validated records.

The export is a YAML document generated weekly from Google's Cloud Billing Catalog API by
https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator (Apache-2.0). Prices become
exact `Fraction`s of their decimal text so that the fit in fit.py can prove exactness. Only the
parts the catalog uses are read; anything malformed is an `ExportError` naming its key path.
Parsing YAML is slow in pure Python (~15 s for 4 MB), so `read_export` uses libyaml's C loader.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any, cast

import yaml

# columns of a machine type's per-region cost map, in the export's own words
MACHINE_COLUMNS = ("hour", "hour_spot", "month", "month_1y", "month_3y", "month_spot")
# bundled GPUs the export counts per machine type (key in the export -> catalog GPU model)
EXPORT_GPUS = {
    "a100": "nvidia-tesla-a100",
    "a100-80gb": "nvidia-a100-80gb",
    "h100-80gb": "nvidia-h100-80gb",
    "h100-80gb-mega": "nvidia-h100-mega-80gb",
    "l4": "nvidia-l4",
    "rtx6000": "nvidia-rtx-pro-6000",
}
_SHAPE_KEYS = frozenset({"cpu", "ram", "local-ssd", "type", "cost", *EXPORT_GPUS})


class ExportError(ValueError):
    """The export is unreadable or not shaped as expected; the message names the key path."""


Prices = Mapping[str, Mapping[str, Fraction]]  # region -> column -> USD


@dataclass(frozen=True, slots=True)
class ExportMachine:
    """One machine type of the export: its shape and its prices per region."""

    name: str
    kind: str  # the export's `type` (e.g. "n1-custom"); "" for predefined types
    vcpus: Fraction
    ram_gib: Fraction
    gpus: tuple[tuple[str, Fraction], ...]  # (catalog GPU model, count) bundled with the type
    local_ssd_gib: int  # local SSD bundled with the type (priced inside `hour`)
    prices: Prices

    @property
    def family(self) -> str:
        """The price family: the export's `type` if set, else the name's first segment."""
        return self.kind or self.name.split("-", 1)[0]


@dataclass(frozen=True, slots=True)
class Export:
    """The parts of the export the catalog is built from."""

    generated: date
    generated_text: str
    url: str
    copyright: str
    regions: tuple[str, ...]
    dual_regions: Mapping[str, tuple[str, ...]]
    multi_regions: tuple[str, ...]
    machines: Mapping[str, ExportMachine]
    disks: Mapping[str, tuple[str, Prices]]  # export disk name -> (disk type, prices)
    network: Mapping[str, Prices]  # "nat/gateway", "ip/vm", ... -> prices
    egress: Mapping[str, Mapping[str, Fraction]]  # tier ("0-1") -> region -> USD per GiB
    buckets: Mapping[str, Mapping[str, Fraction]]  # class ("standard-dual") -> location -> USD
    retrieval: Mapping[str, Mapping[str, Fraction]]
    monitoring: Mapping[str, Mapping[str, Fraction]] = field(
        default_factory=dict[str, Mapping[str, Fraction]]
    )
    """Chargeable metric volume tier ("0-100000" MiB a month) -> region -> USD per MiB."""
    egress_to: Mapping[str, Mapping[str, Mapping[str, Fraction]]] = field(
        default_factory=dict[str, Mapping[str, Mapping[str, Fraction]]]
    )
    """Premium Tier internet egress to "china" or "australia" (the destinations Google prices
    apart from the worldwide rate): destination -> tier ("0-1") -> region -> USD per GiB."""


def _map(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ExportError(f"{path}: expected a mapping, got {type(value).__name__}")
    return cast(Mapping[str, Any], value)


def _dig(doc: Mapping[str, Any], keys: Sequence[str]) -> Any:
    """doc[k1][k2]...; None where a level is missing or not a mapping (the caller says so)."""
    node: Any = doc
    for key in keys:
        node = cast(Mapping[str, Any], node).get(key) if isinstance(node, Mapping) else None
    return node


def _number(value: Any, path: str) -> Fraction:
    # bool is an int subclass; YAML `yes` must not become a price
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ExportError(f"{path}: expected a number, got {value!r}")
    if value < 0:
        raise ExportError(f"{path}: negative price {value!r}")
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def _costs(value: Any, path: str, columns: tuple[str, ...] | None = None) -> Prices:
    """A `cost:` map: region -> column -> number; unknown columns are errors."""
    out: dict[str, dict[str, Fraction]] = {}
    for region, cols in _map(value, path).items():
        row: dict[str, Fraction] = {}
        for col, number in _map(cols, f"{path}.{region}").items():
            if columns is not None and col not in columns:
                raise ExportError(f"{path}.{region}.{col}: unknown price column (know {columns})")
            row[col] = _number(number, f"{path}.{region}.{col}")
        out[str(region)] = row
    return out


def _machine(name: str, raw: Any, path: str) -> ExportMachine:
    spec = _map(raw, path)
    unknown = sorted(set(spec) - _SHAPE_KEYS)
    if unknown:
        raise ExportError(f"{path}: unknown keys {unknown}")
    if "cpu" not in spec or "ram" not in spec:
        raise ExportError(f"{path}: needs 'cpu' and 'ram'")
    gpus = tuple(
        # G4 bundles fractions of an RTX PRO 6000 (g4-standard-6 has 1/8)
        (model, _number(spec[key], f"{path}.{key}"))
        for key, model in EXPORT_GPUS.items()
        if key in spec
    )
    kind = spec.get("type", "")
    if not isinstance(kind, str):
        raise ExportError(f"{path}.type: expected a string, got {kind!r}")
    return ExportMachine(
        name=name,
        kind=kind,
        vcpus=_number(spec["cpu"], f"{path}.cpu"),
        ram_gib=_number(spec["ram"], f"{path}.ram"),
        gpus=gpus,
        local_ssd_gib=int(_number(spec.get("local-ssd", 0), f"{path}.local-ssd")),
        # a few types (m4n-*) carry a shape but no prices yet
        prices=_costs(spec.get("cost", {}), f"{path}.cost", MACHINE_COLUMNS),
    )


def _month(prices: Prices, path: str) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for region, cols in prices.items():
        if "month" not in cols:
            raise ExportError(f"{path}.{region}: needs 'month'")
        out[region] = cols["month"]
    return out


def _generated(about: Mapping[str, Any]) -> tuple[date, str]:
    text = str(about.get("generated", "")).strip()
    try:
        # "Thu Jul 30 06:13:17 2026" (Perl's localtime); the date is what the catalog carries
        return datetime.strptime(text, "%a %b %d %H:%M:%S %Y").date(), text
    except ValueError:
        raise ExportError(
            f"about.generated: {text!r} is not like 'Thu Jul 30 06:13:17 2026'"
        ) from None


def parse_export(data: Any) -> Export:
    """Validate a parsed export document and build typed records (pure)."""
    doc = _map(data, "<document>")
    about = _map(doc.get("about"), "about")
    generated, generated_text = _generated(about)
    compute = _map(doc.get("compute"), "compute")
    instances = _map(compute.get("instance"), "compute.instance")
    machines = {
        str(name): _machine(str(name), raw, f"compute.instance.{name}")
        for name, raw in instances.items()
    }
    disks: dict[str, tuple[str, Prices]] = {}
    for name, raw in _map(compute.get("storage"), "compute.storage").items():
        spec = _map(raw, f"compute.storage.{name}")
        disks[str(name)] = (
            str(spec.get("type", name)),
            _costs(spec.get("cost"), f"compute.storage.{name}.cost"),
        )
    net = _map(compute.get("network"), "compute.network")
    network: dict[str, Prices] = {}
    for group in ("nat", "ip", "vpn"):
        for item, raw in _map(net.get(group), f"compute.network.{group}").items():
            path = f"compute.network.{group}.{item}"
            network[f"{group}/{item}"] = _costs(_map(raw, path).get("cost"), f"{path}.cost")
    tiers_path = "compute.network.traffic.egress.internet.cost"
    egress = {
        str(tier): _month(_costs(raw, f"{tiers_path}.{tier}"), f"{tiers_path}.{tier}")
        for tier, raw in _map(_dig(net, tiers_path.split(".")[2:]), tiers_path).items()
    }
    # `compute.network.traffic.egress.internet.<china|australia>.cost`: optional (the trimmed
    # test export has neither)
    internet = _map(
        _dig(net, ["traffic", "egress", "internet"]), "compute.network.traffic.egress.internet"
    )
    egress_to: dict[str, dict[str, dict[str, Fraction]]] = {}
    for dest in ("china", "australia"):
        raw_dest = internet.get(dest)
        if raw_dest is None:
            continue
        path = f"compute.network.traffic.egress.internet.{dest}.cost"
        egress_to[dest] = {
            str(tier): _month(_costs(raw, f"{path}.{tier}"), f"{path}.{tier}")
            for tier, raw in _map(_map(raw_dest, path[: -len(".cost")]).get("cost"), path).items()
        }
    storage = _map(doc.get("storage"), "storage")
    classes: dict[str, dict[str, dict[str, Fraction]]] = {"bucket": {}, "retrieval": {}}
    for part, out in classes.items():
        for name, raw in _map(storage.get(part), f"storage.{part}").items():
            path = f"storage.{part}.{name}"
            out[str(name)] = _month(_costs(_map(raw, path).get("cost"), f"{path}.cost"), path)
    # top-level `monitoring.data.cost.<tier>`: optional (the trimmed test export has none)
    mon_path = "monitoring.data.cost"
    mon_raw = _dig(doc, mon_path.split("."))
    monitoring = {
        str(tier): _month(_costs(raw, f"{mon_path}.{tier}"), f"{mon_path}.{tier}")
        for tier, raw in (_map(mon_raw, mon_path).items() if mon_raw is not None else ())
    }
    regions = tuple(str(r) for r in _map(doc.get("region"), "region"))
    if not regions:
        raise ExportError("region: the export lists no regions")
    dual = {
        str(name): tuple(str(r) for r in _map(spec, f"dual-region.{name}").get("regions", []))
        for name, spec in _map(doc.get("dual-region", {}), "dual-region").items()
    }
    multi = tuple(str(r) for r in _map(doc.get("multi-region", {}), "multi-region"))
    return Export(
        generated=generated,
        generated_text=generated_text,
        url=str(about.get("url", "")),
        copyright=str(about.get("copyright", "")).strip(),
        regions=regions,
        dual_regions=dual,
        multi_regions=multi,
        machines=machines,
        disks=disks,
        network=network,
        egress=egress,
        buckets=classes["bucket"],
        retrieval=classes["retrieval"],
        monitoring=monitoring,
        egress_to=egress_to,
    )


def read_export(path: str | Path) -> Export:
    """Parse the export file at `path`; `ExportError` names the file on any failure."""
    # libyaml's loader is 10x faster; the pure-Python one still works where libyaml is missing
    loader = cast(Any, getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ExportError(f"cannot read export {path}: {err.strerror}") from None
    try:
        data = yaml.load(text, Loader=loader)  # noqa: S506 (a safe loader, chosen above)
    except yaml.YAMLError as err:
        raise ExportError(f"export {path} is not YAML: {err}") from None
    try:
        return parse_export(data)
    except ExportError as err:
        raise ExportError(f"export {path}: {err}") from None
