"""Every machine type of the Billing Catalog export, priced by the estimator, in every column.

    .venv/bin/python -m tests.costs.catalog_build.export_walk [--pricing PATH] [--json] [--show N]

One row per machine type x region x export column (`hour`, `hour_spot`, `month` (on-demand
with Google's sustained-use discount), `month_spot`, `month_1y`, `month_3y`): the estimator
prices a `gcp.compute.Instance` of that type in that region (no disk, no IP) for 1 hour or a
730-hour month, on-demand, spot or under a 1- or 3-year commitment, and the row compares its
monthly amount with the export's own figure. A row is `within` 1%, `off` (priced, further),
or `unpriced` (the estimator names why); a type whose name the shape table cannot read counts as `unparsed`. Export cells of
0 (a column listed without a price) are not prices and are counted as `skipped`.

The full export is $MLGOV_PRICING_YML or ../shared/realdata/google-cloud-pricing/pricing.yml
(catalog_reference.full_export_path); without it the trimmed reference is walked. The test
test_every_catalog_type.py uses the same walk.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Literal

from governance.costs.assumptions import UsageAssumptions
from governance.costs.catalog import Catalog, default_catalog
from governance.costs.catalog_build.export import Export, read_export
from governance.costs.errors import CostError
from governance.costs.estimate import estimate_resources
from governance.costs.machines import machine_shape

REPO = Path(__file__).resolve().parents[3]
REFERENCE = REPO / "tests" / "costs" / "data" / "pricing-reference.yml"
TOLERANCE = 0.01
AS_OF = date(2026, 11, 1)
Commitment = Literal["none", "1y", "3y"]
# export column -> (spot, hours, commitment)
COLUMNS: Mapping[str, tuple[bool, float, Commitment]] = {
    "hour": (False, 1.0, "none"),
    "hour_spot": (True, 1.0, "none"),
    "month": (False, 730.0, "none"),
    "month_spot": (True, 730.0, "none"),
    "month_1y": (False, 730.0, "1y"),
    "month_3y": (False, 730.0, "3y"),
}


@dataclass(frozen=True, slots=True)
class Row:
    """One machine type x region x column: the export's figure and the estimator's."""

    machine: str
    region: str
    column: str
    want: float
    got: float | None  # None: unpriced or unparsed
    status: str  # within | off | unpriced | unparsed | skipped
    why: str = ""

    @property
    def off_by(self) -> float | None:
        """Relative difference (None when the estimator gave no price)."""
        return None if self.got is None else abs(self.got - self.want) / self.want


def _instance(machine: str, region: str, spot: bool) -> dict[str, Any]:
    return {
        "type": "gcp:compute/instance:Instance",
        "name": region,
        "inputs": {
            "zone": f"{region}-a",
            "machineType": machine,
            "scheduling": {"provisioningModel": "SPOT"} if spot else {},
            "bootDisk": {"initializeParams": {"size": 0}},
        },
    }


def walk_machine(
    machine: str, prices: Mapping[str, Mapping[str, float]], catalog: Catalog | None = None
) -> Iterator[Row]:
    """Rows for one machine type: `prices` is region -> export column -> USD."""
    cat = catalog if catalog is not None else default_catalog()
    for region, cols in prices.items():
        for column, usd in cols.items():
            if column in COLUMNS and not usd:
                yield Row(machine, region, column, 0.0, None, "skipped", "0 in the export")
    try:
        machine_shape(machine, cat)
    except CostError as err:
        for region, cols in prices.items():
            for column, usd in cols.items():
                if column in COLUMNS and usd:
                    yield Row(machine, region, column, float(usd), None, "unparsed", str(err))
        return
    for column, (spot, hours, commitment) in COLUMNS.items():
        regions = sorted(r for r, cols in prices.items() if cols.get(column))
        if not regions:
            continue
        usage = UsageAssumptions(as_of=AS_OF, gpu_vm_hours_per_month=hours, commitment=commitment)
        plan = [_instance(machine, region, spot) for region in regions]
        report = estimate_resources(plan, usage, cat)
        for r in report.resources:
            want = float(prices[r.name][column])
            if not r.priced or r.unpriced_parts:
                why = r.unpriced or "; ".join(f"{p}: {w}" for p, w in r.unpriced_parts)
                yield Row(machine, r.name, column, want, None, "unpriced", why)
                continue
            if abs(r.monthly_usd - want) / want <= TOLERANCE:
                yield Row(machine, r.name, column, want, r.monthly_usd, "within")
                continue
            yield Row(machine, r.name, column, want, r.monthly_usd, "off")


def walk(export: Export, catalog: Catalog | None = None) -> list[Row]:
    """Every priced cell of every machine type of the export."""
    rows: list[Row] = []
    for m in export.machines.values():
        prices = {r: {c: float(v) for c, v in cols.items()} for r, cols in m.prices.items()}
        rows += walk_machine(m.name, prices, catalog)
    return rows


def summary(rows: Sequence[Row]) -> dict[str, Any]:
    """Counts by status and by column, and the worst rows per machine type."""
    by_status = Counter(r.status for r in rows)
    by_column: dict[str, Counter[str]] = {}
    for r in rows:
        by_column.setdefault(r.column, Counter())[r.status] += 1
    types: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.status in ("within", "skipped"):
            continue
        t = types.setdefault(r.machine, {"rows": 0, "statuses": Counter(), "worst": None})
        t["rows"] += 1
        t["statuses"][r.status] += 1
        worst = t["worst"]
        if worst is None or (r.off_by or 9e9) > (worst.off_by or 9e9):
            t["worst"] = r
    return {
        "rows": len(rows),
        "types": len({r.machine for r in rows}),
        "by_status": dict(by_status),
        "by_column": {c: dict(v) for c, v in sorted(by_column.items())},
        "not_within": types,
    }


def render(table: Mapping[str, Any], show: int) -> str:
    """The summary as text: totals, per column, then the types with rows not within 1%."""
    s = table["by_status"]
    counts = ", ".join(f"{k} {s.get(k, 0):,}" for k in ("off", "unpriced", "unparsed"))
    lines = [
        f"{table['rows']:,} rows (machine type x region x export column) over "
        f"{table['types']} types: within 1% {s.get('within', 0):,}, {counts}; "
        f"skipped {s.get('skipped', 0):,} (0 in the export: no price)"
    ]
    for column, counts in table["by_column"].items():
        lines.append(f"  {column:11} " + ", ".join(f"{k} {v:,}" for k, v in sorted(counts.items())))
    ranked = sorted(table["not_within"].items(), key=lambda kv: -kv[1]["rows"])
    if ranked:
        lines.append(f"types with rows not within 1% ({len(ranked)}):")
    for name, t in ranked[:show]:
        w: Row = t["worst"]
        detail = f"worst {w.region} {w.column}: {w.got:.6g} vs {w.want:.6g}" if w.got else ""
        detail = "; ".join(x for x in (detail, w.why) if x)
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(t["statuses"].items()))
        lines.append(f"  {name:34} {t['rows']:5} rows ({statuses}); {detail}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from tests.costs.catalog_build.catalog_reference import full_export_path

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--pricing", help="the export (default: the full one, else the trimmed)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--show", type=int, default=40, help="types listed (default 40)")
    args = parser.parse_args(argv)
    path = Path(args.pricing) if args.pricing else (full_export_path() or REFERENCE)
    rows = walk(read_export(path))
    table = summary(rows)
    if args.json:
        out = {**table, "not_within": {
            k: {"rows": v["rows"], "statuses": dict(v["statuses"])}
            for k, v in table["not_within"].items()
        }}  # fmt: skip
        print(json.dumps({"export": str(path), **out}, indent=1))
    else:
        print(f"export: {path}")
        print(render(table, args.show))
    return 0


if __name__ == "__main__":
    sys.exit(main())
