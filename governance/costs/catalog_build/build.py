"""Assemble the regional price catalog document from the export and the documented figures.

Pure: `build_document(export, documented)` returns the JSON-ready document; `render_document`
turns it into text with one price series per line, so a refresh reviews as a readable diff.
Every series carries key, usage, unit, source id, date and how it was obtained; its values are
aligned with the document's region list (null where the region has no price). What the keys
mean for a resource is the estimator's business; governance/costs/catalog.py reads the
document back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

from governance.costs.catalog_build.documented import USAGES, Documented, DocumentedEntry, Scale
from governance.costs.catalog_build.export import Export, ExportMachine
from governance.costs.catalog_build.fit import Fit, NotIdentifiable, least_squares

SCHEMA = "mlgov-regional-price-catalog"
VERSION = 2
EXPORT_SOURCE = "billing-export"
HOURS_PER_MONTH = (
    730  # the export's month (its generator's --hours default, as Google's calculator)
)
# rates reproduce every type's price to this relative error or they are not shipped
EXACT = Fraction(1, 10**9)
ATTRIBUTION = (
    "Compute Engine, disk, network and Cloud Storage prices are derived from the Google Cloud "
    "pricing export generated from Google's Cloud Billing Catalog API by "
    "google-cloud-pricing-cost-calculator (https://github.com/Cyclenerd/"
    "google-cloud-pricing-cost-calculator), Copyright 2022-2025 Nils Knieling, licensed under "
    "the Apache License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0; a copy is "
    "governance/costs/catalog_build/LICENSE-google-cloud-pricing-cost-calculator). mlgov "
    "derives per-family vCPU/RAM rates and per-unit prices from it; other figures name their "
    "own source. Prices are list prices in USD; spot prices change up to once a day."
)
# usage -> (export column, divisor to an hourly price)
USAGE_COLUMNS = {
    "ondemand": ("hour", 1),
    "spot": ("hour_spot", 1),
    "1y": ("month_1y", HOURS_PER_MONTH),
    "3y": ("month_3y", HOURS_PER_MONTH),
}
# the bundled local SSD of a type is priced in its hour; this column of the disk prices it
LOCAL_SSD_COLUMN = {"ondemand": "month", "spot": "month_spot", "1y": "month_1y", "3y": "month_3y"}
LOCAL_SSD_DISK = {"c4": "local-c4", "c4a": "local-c4a", "c4d": "local-c4d"}  # else "local"
# types the export prices with SKUs of their own, so they are not evidence for the family's
# rates (the export's builder maps m4-ultramem-224 separately: Cyclenerd issue #440)
FIT_EXCLUDED = frozenset({"m4-ultramem-224"})
# shared-core types are priced by the estimator under these keys (machines.py `fixed_key`)
SHARED_CORE_KEYS = {"f1-micro": "gce.shared.f1-micro", "g1-small": "gce.shared.g1-small"}
# export family -> the family name machines.py uses, where they differ
FAMILY_ALIASES = {"f1": "shared", "g1": "shared"}
DISK_KEYS = {
    "hdd": "disk.pd-standard",
    "balanced": "disk.pd-balanced",
    "ssd": "disk.pd-ssd",
    "extreme": "disk.pd-extreme",
    "hyperdisk-extreme": "disk.hyperdisk-extreme",
    "hdd-replicated": "disk.regional.pd-standard",
    "balanced-replicated": "disk.regional.pd-balanced",
    "ssd-replicated": "disk.regional.pd-ssd",
    "snapshot": "disk.snapshot",
    "local": "disk.local-ssd",
    "local-c4": "disk.local-ssd.c4",
    "local-c4a": "disk.local-ssd.c4a",
    "local-c4d": "disk.local-ssd.c4d",
}
# export multi-region names -> the lower-cased location names GCS and BigQuery use
MULTI_REGIONS = {"us-multi": "us", "europe-multi": "eu", "asia-multi": "asia"}
BUCKET_CLASSES = {
    "standard": "standard",
    "nearline": "nearline",
    "coldline": "coldline",
    "archiv": "archive",
    "dra": "dra",
}
EGRESS_TIERS = {"0-1": "tier1", "1-10": "tier2", "10n": "tier3"}
MONITORING_TIERS = {"0-100000": "tier1", "100000-250000": "tier2", "250000n": "tier3"}


@dataclass(slots=True)
class Series:
    """One price series: `values[region]` USD per `unit` for `key` under `usage`."""

    key: str
    usage: str
    unit: str
    source: str
    date: str
    how: str
    values: dict[str, float] = field(default_factory=dict[str, float])


@dataclass(slots=True)
class FamilyReport:
    """What the fit found for one machine family."""

    types: int
    status: str = "exact"
    note: str = ""
    regions: dict[str, int] = field(default_factory=dict[str, int])
    max_rel_residual: dict[str, float] = field(default_factory=dict[str, float])

    def as_dict(self) -> dict[str, Any]:
        """The document's `fits.<family>` entry."""
        out: dict[str, Any] = {"types": self.types, "status": self.status}
        if self.note:
            out["note"] = self.note
        if self.regions:
            out["regions"] = self.regions
            out["max_rel_residual"] = self.max_rel_residual
        return out


def _num(value: Fraction | float) -> float:
    """A float with 12 significant digits: exact for nano-dollar prices, readable otherwise."""
    return float(f"{float(value):.12g}")


class _Builder:
    def __init__(self, export: Export, documented: Documented) -> None:
        self.export = export
        self.documented = documented
        self.date = export.generated.isoformat()
        self.series: dict[tuple[str, str], Series] = {}
        self.fits: dict[str, FamilyReport] = {}

    def add(
        self,
        key: str,
        usage: str,
        unit: str,
        how: str,
        values: Mapping[str, Any],
        source: str = EXPORT_SOURCE,
        date: str = "",
    ) -> None:
        if not values:
            return
        if (key, usage) in self.series:
            raise ValueError(f"two series for {key} {usage}: a documented figure duplicates one")
        self.series[key, usage] = Series(
            key,
            usage,
            unit,
            source,
            date or self.date,
            how,
            {region: _num(v) for region, v in sorted(values.items())},
        )

    # -- machines ----------------------------------------------------------------------------
    def _hourly(self, m: ExportMachine, region: str, usage: str) -> Fraction | None:
        """The type's hourly price in `region` under `usage`, or None if the export has none."""
        column, divisor = USAGE_COLUMNS[usage]
        cols = m.prices.get(region, {})
        if not cols.get(column):
            # absent, or 0 where the export lists a commitment column without any price
            # (f1-micro in asia-southeast3): no price, never a free VM
            return None
        if usage in ("1y", "3y") and cols[column] == cols.get("month"):
            # no commitment SKU (f1-micro, g1-small): the export repeats the SUD month
            return None
        return cols[column] / divisor

    def _ssd_hourly(self, m: ExportMachine, region: str, usage: str) -> Fraction | None:
        if not m.local_ssd_gib:
            return Fraction(0)
        disk = LOCAL_SSD_DISK.get(m.family, "local")
        month = (
            self.export.disks.get(disk, ("", {}))[1].get(region, {}).get(LOCAL_SSD_COLUMN[usage])
        )
        return None if month is None else month * m.local_ssd_gib / HOURS_PER_MONTH

    def machine_types(self) -> None:
        for m in self.export.machines.values():
            for usage in USAGES:
                values = {r: p for r in m.prices if (p := self._hourly(m, r, usage)) is not None}
                column, divisor = USAGE_COLUMNS[usage]
                how = f"export {column}" + (f" / {divisor} h" if divisor != 1 else "")
                if m.local_ssd_gib:
                    how += f" (incl. {m.local_ssd_gib} GiB bundled local SSD)"
                self.add(f"gce.type.{m.name}", usage, "hour", how, values)
                if m.name in SHARED_CORE_KEYS and usage in ("ondemand", "spot"):
                    self.add(SHARED_CORE_KEYS[m.name], usage, "hour", how, values)

    def machine_facts(self) -> dict[str, Any]:
        """What each machine type is made of, as the export lists it (`machine_types`).

        The estimator reads it for a type whose name does not tell its shape (a3-megagpu-8g,
        z3-highmem-192-highlssd-metal) or how much memory a c4 type has.
        """
        out: dict[str, Any] = {}
        for m in sorted(self.export.machines.values(), key=lambda m: m.name):
            facts: dict[str, Any] = {"vcpus": _num(m.vcpus), "memory_gib": _num(m.ram_gib)}
            if m.gpus:
                facts["gpus"] = {model: _num(count) for model, count in m.gpus}
            if m.local_ssd_gib:
                facts["local_ssd_gib"] = m.local_ssd_gib
            out[m.name] = facts
        return out

    def families(self) -> None:
        for family, members in sorted(self._families().items()):
            evidence = [m for m in members if m.name not in FIT_EXCLUDED]
            self.fits[family] = self._fit_family(family, evidence)

    def _fit_family(self, family: str, members: Sequence[ExportMachine]) -> FamilyReport:
        report = FamilyReport(types=len(members))
        gpu_models = sorted({model for m in members for model, _ in m.gpus})
        ratios = {m.ram_gib / m.vcpus for m in members}
        # one RAM-per-vCPU ratio for every type: vCPU and RAM rates cannot be told apart, but a
        # bundled GPU's rate still can (G2: per-vCPU-with-4-GiB rate + per-L4 rate)
        folded = len(ratios) == 1
        if folded:
            report.status = "vCPU and RAM not separable"
            report.note = f"every type has {float(next(iter(ratios))):g} GiB per vCPU"
            if not gpu_models:
                return report  # nothing to learn beyond the per-type prices
        for usage in USAGES:
            rates: dict[str, dict[str, Fraction]] = {}
            worst = Fraction(0)
            for region in self.export.regions:
                rows: list[tuple[Fraction, ...]] = []
                targets: list[Fraction] = []
                for m in members:
                    price = self._hourly(m, region, usage)
                    ssd = self._ssd_hourly(m, region, usage)
                    if price is None or ssd is None:
                        continue
                    gpus = dict(m.gpus)
                    shape = (m.vcpus,) if folded else (m.vcpus, m.ram_gib)
                    rows.append(shape + tuple(gpus.get(g, Fraction(0)) for g in gpu_models))
                    targets.append(price - ssd)
                fit = self._solve(rows, targets)
                if fit is None:
                    continue
                worst = max(worst, fit.max_rel_residual)
                if fit.max_rel_residual > EXACT:
                    continue
                if any(rate <= 0 for rate in fit.rates):
                    # a component the export leaves unpriced; a free vCPU or GPU is no price
                    report.note = f"non-positive rate in {region} ({usage}) not shipped"
                    continue
                names = (["vcpu+ram"] if folded else ["vcpu", "ram"]) + gpu_models
                for name, rate in zip(names, fit.rates, strict=True):
                    rates.setdefault(name, {})[region] = rate
            if not rates:
                continue
            report.regions[usage] = len(next(iter(rates.values())))
            report.max_rel_residual[usage] = float(worst)
            if worst > EXACT:
                report.status = "not exact"
                report.note = f"max relative residual {float(worst):.3g}; no rates shipped"
                continue
            self._add_rates(family, usage, rates, len(members))
        if not report.regions:
            report.status = "not identifiable"
            report.note = (f"{report.note}; " if report.note else "") + (
                "too few independent types to tell the rates apart"
            )
        return report

    @staticmethod
    def _solve(rows: list[tuple[Fraction, ...]], targets: list[Fraction]) -> Fit | None:
        """The fit, or None where the region has too few independent types to tell."""
        if not rows or len(rows) <= len(rows[0]):
            # as many unknowns as prices: any rates "fit", so the residual would prove nothing
            return None
        try:
            return least_squares(rows, targets)
        except NotIdentifiable:
            return None

    def _add_rates(
        self, family: str, usage: str, rates: Mapping[str, Mapping[str, Fraction]], types: int
    ) -> None:
        how = f"exact least-squares fit over the {family} family's {types} types"
        for name, values in rates.items():
            if name == "vcpu":
                self.add(f"gce.{family}.vcpu", usage, "hour", how, values)
            elif name == "ram":
                self.add(f"gce.{family}.ram", usage, "GiB-hour", how, values)
            elif name != "vcpu+ram":
                self.add(f"gpu.{name}", usage, "hour", f"{how} (GPU bundled with {family})", values)

    def sustained_use(self) -> None:
        """Which families the export discounts for a full month, and the documented tiers."""
        tables = self.documented.sud_tables
        for family, members in sorted(self._families().items()):
            factors: set[Fraction] = set()
            for m in members:
                for region, cols in m.prices.items():
                    ssd = self._ssd_hourly(m, region, "ondemand")
                    if "hour" in cols and "month" in cols and ssd is not None and cols["hour"] > 0:
                        base = (cols["hour"] - ssd) * HOURS_PER_MONTH
                        factors.add((cols["month"] - ssd * HOURS_PER_MONTH) / base)
            if not factors:
                continue
            spread = max(factors) - min(factors)
            if spread > EXACT:
                self.fits.setdefault(
                    family, FamilyReport(types=len(members))
                ).note += f" full-month factor varies by {float(spread):.3g}; no SUD entry"
                continue
            factor = min(factors)
            how = "export month / (hour x 730) for every type and region"
            for name in (family, FAMILY_ALIASES.get(family)):
                if name is None or (f"sud.{name}.full_month", "ondemand") in self.series:
                    continue
                self.add(f"sud.{name}.full_month", "ondemand", "factor", how, {"global": factor})
                for table_name, quarters in tables.items():
                    if abs(Fraction(sum(quarters)) / 4 - factor) <= EXACT and factor < 1:
                        for q, share in enumerate(quarters, start=1):
                            self.add(
                                f"sud.{name}.q{q}",
                                "ondemand",
                                "factor",
                                f"documented {table_name.upper()} tier table; the export's "
                                f"full-month factor {float(factor):g} matches it",
                                {"global": share},
                                source=self.documented.sud_source,
                                date=self.documented.sud_date,
                            )

    def _families(self) -> dict[str, list[ExportMachine]]:
        """Priced machine types by family (types listed without prices are left out)."""
        out: dict[str, list[ExportMachine]] = {}
        for m in self.export.machines.values():
            if m.prices:
                out.setdefault(m.family, []).append(m)
        return out

    # -- disks, network, storage ------------------------------------------------------------
    def disks(self) -> None:
        for name, (_, prices) in self.export.disks.items():
            key = DISK_KEYS.get(name)
            if key is None:
                continue
            for usage, column in LOCAL_SSD_COLUMN.items():
                values = {
                    MULTI_REGIONS.get(region, region): cols[column]
                    for region, cols in prices.items()
                    if column in cols
                }
                self.add(key, usage, "GiB-month", f"export compute.storage.{name} {column}", values)

    def network(self) -> None:
        net = self.export.network

        def per_region(item: str, column: str) -> dict[str, Fraction]:
            return {r: c[column] for r, c in net.get(item, {}).items() if column in c}

        gateway = {r: v / 32 for r, v in per_region("nat/gateway", "hour").items()}
        data = per_region("nat/data", "month")
        # the export repeats one global SKU per region; a "global" entry keeps region-free
        # lookups working where every region agrees
        for key, unit, values, how in (
            (
                "nat.gateway_vm",
                "VM-hour",
                gateway,
                "export nat.gateway hour / 32 (the export prices the 32-VM cap)",
            ),
            ("nat.data", "GiB", data, "export nat.data"),
        ):
            uniform = set(values.values())
            extra = {"global": next(iter(uniform))} if len(uniform) == 1 else {}
            self.add(key, "ondemand", unit, how, {**values, **extra})
        self.add("network.ip.vm", "ondemand", "hour", "export ip.vm", per_region("ip/vm", "hour"))
        self.add(
            "network.ip.unused",
            "ondemand",
            "hour",
            "export ip.unused",
            per_region("ip/unused", "hour"),
        )
        self.add(
            "network.vpn.tunnel",
            "ondemand",
            "hour",
            "export vpn.tunnel",
            per_region("vpn/tunnel", "hour"),
        )
        for tier, name in EGRESS_TIERS.items():
            if tier in self.export.egress:
                self.add(
                    f"network.egress.internet.{name}",
                    "ondemand",
                    "GiB",
                    f"export premium-tier internet egress, {tier} TiB a month, worldwide "
                    "(not China/Australia)",
                    self.export.egress[tier],
                )

        # China (excluding Hong Kong) and Australia are Premium Tier's two destinations with
        # their own rates; the worldwide series above excludes them.
        for dest, tiers in self.export.egress_to.items():
            for tier, name in EGRESS_TIERS.items():
                if tier in tiers:
                    self.add(
                        f"network.egress.internet.{dest}.{name}",
                        "ondemand",
                        "GiB",
                        f"export premium-tier internet egress to {dest}, {tier} TiB a month",
                        tiers[tier],
                    )

    def monitoring(self) -> None:
        # chargeable metric volume, per MiB, by monthly volume tier (the export's tiers in MiB)
        for tier, values in self.export.monitoring.items():
            name = MONITORING_TIERS.get(tier)
            if name is None:
                raise ValueError(f"export monitoring.data.cost.{tier}: unknown volume tier")
            uniform = set(values.values())
            extra = {"global": next(iter(uniform))} if len(uniform) == 1 else {}
            self.add(
                f"monitoring.data.{name}",
                "ondemand",
                "MiB",
                f"export monitoring.data {tier} MiB a month",
                {**values, **extra},
            )

    def storage(self) -> None:
        for part, prefix, unit in (
            ("bucket", "storage", "GiB-month"),
            ("retrieval", "storage.retrieval", "GiB"),
        ):
            classes = self.export.buckets if part == "bucket" else self.export.retrieval
            merged: dict[str, dict[str, Fraction]] = {}
            for name, values in classes.items():
                base = name.split("-", 1)[0]
                if base not in BUCKET_CLASSES:
                    continue
                for location, usd in values.items():
                    merged.setdefault(BUCKET_CLASSES[base], {})[
                        MULTI_REGIONS.get(location, location)
                    ] = usd
            for cls, values in merged.items():
                self.add(f"{prefix}.{cls}", "ondemand", unit, f"export storage.{part}", values)

    # -- documented --------------------------------------------------------------------------
    def documented_entries(self) -> None:
        for entry in self.documented.entries:
            how = entry.note or "documented figure"
            if entry.scale is not None:
                self._scaled(entry, how)
                continue
            for usage, values in entry.values.items():
                self.add(entry.key, usage, entry.unit, how, values, entry.source, entry.date)

    def _scaled(self, entry: DocumentedEntry, how: str) -> None:
        """A figure documented for one region, carried to every region by a related series."""
        scale = cast(Scale, entry.scale)
        related = self.series.get((scale.of, "ondemand"))
        base = related.values.get(scale.anchor) if related is not None else None
        if not base:
            raise ValueError(
                f"documented {entry.key}: no {scale.of} on-demand price in {scale.anchor} to "
                "scale it by"
            )
        factor = Fraction(repr(entry.values["ondemand"][scale.anchor])) / Fraction(repr(base))
        for usage in scale.usages:
            of = self.series.get((scale.of, usage))
            values = {r: Fraction(repr(v)) * factor for r, v in (of.values if of else {}).items()}
            note = (
                f"{how}; every region and usage: {float(factor):.6g} x {scale.of} ({usage}), the "
                f"ratio of the documented {scale.anchor} on-demand figure to {scale.of} there"
            )
            self.add(entry.key, usage, entry.unit, note, values, entry.source, entry.date)

    def regions(self) -> list[str]:
        known = list(self.export.regions)
        extra = {r for s in self.series.values() for r in s.values} - set(known)
        return known + sorted(extra)

    def availability(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, a in sorted(self.documented.availability.items()):
            out[key] = {"regions": list(a.regions), "source": a.source}
            if a.note:
                out[key]["note"] = a.note
        return out


def _sources(export: Export, documented: Documented) -> dict[str, Any]:
    return {
        EXPORT_SOURCE: {
            "title": "Google Cloud pricing export generated from the Cloud Billing Catalog API by "
            "google-cloud-pricing-cost-calculator",
            "url": export.url
            or "https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator",
            "license": "Apache-2.0",
            "generated": export.generated_text,
        },
        **{sid: dict(spec) for sid, spec in sorted(documented.sources.items())},
    }


def build_document(export: Export, documented: Documented) -> dict[str, Any]:
    """The catalog document (JSON-ready) for an export and the documented figures."""
    b = _Builder(export, documented)
    b.machine_types()
    b.families()
    b.sustained_use()
    b.disks()
    b.network()
    b.monitoring()
    b.storage()
    b.documented_entries()
    regions = b.regions()
    order = {u: i for i, u in enumerate(USAGES)}
    series = [
        {
            "key": s.key,
            "usage": s.usage,
            "unit": s.unit,
            "source": s.source,
            "date": s.date,
            "how": s.how,
            "values": [s.values.get(r) for r in regions],
        }
        for s in sorted(b.series.values(), key=lambda s: (s.key, order[s.usage]))
    ]
    return {
        "format": SCHEMA,
        "version": VERSION,
        "currency": "USD",
        "generated": b.date,
        "attribution": ATTRIBUTION,
        "usages": list(USAGES),
        "regions": regions,
        "sources": _sources(export, documented),
        "fits": {family: r.as_dict() for family, r in sorted(b.fits.items())},
        "availability": b.availability(),
        "machine_types": b.machine_facts(),
        "series": series,
    }


def render_document(doc: Mapping[str, Any]) -> str:
    """JSON text with one series per line (reviewable diffs), loadable by `json.loads`."""
    head = {k: v for k, v in doc.items() if k not in ("series", "machine_types")}
    lines = ["{"]
    lines += [f" {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}," for k, v in head.items()]
    if "machine_types" in doc:  # one type per line, like the series
        types = ",\n".join(
            f"  {json.dumps(name)}: {json.dumps(facts, separators=(',', ':'))}"
            for name, facts in doc["machine_types"].items()
        )
        lines.append(f' "machine_types": {{\n{types}\n }},')
    body = ",\n".join("  " + json.dumps(s, separators=(",", ":")) for s in doc["series"])
    lines.append(f' "series": [\n{body}\n ]')
    lines.append("}")
    return "\n".join(lines) + "\n"


def count_prices(series: Iterable[Mapping[str, Any]]) -> int:
    """Priced (key, region, usage) cells in a document's series."""
    return sum(1 for s in series for v in s["values"] if v is not None)
