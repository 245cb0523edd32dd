"""Print how mlgov compares with Infracost on Infracost's Google test cases.

    .venv/bin/python -m tests.costs.peer.summary [--json]

One line per resource type: resources compared (those Infracost prices above $0), how many land
within 1% and within 10% of Infracost, how many beyond, and how many of the others carry an
explained reason (differences.yaml) versus an mlgov gap; then the total, and the gap causes
with their row counts (the work list).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from tests.costs.peer.differences import GAP, judge, load_entries
from tests.costs.peer.harness import Row, all_rows


def summarize(rows: Sequence[Row]) -> dict[str, Any]:
    """Counts per type and in total, plus rows per gap cause."""
    entries = load_entries()
    by_type: dict[str, Counter[str]] = {}
    total: Counter[str] = Counter()
    gaps: Counter[str] = Counter()
    for row in rows:
        verdict = judge(row, entries)
        counts = by_type.setdefault(row.type, Counter())
        keys = ["compared", row.band]
        if row.band != "1%":
            row_gaps = [e.cause for e in verdict.entries if e.category == GAP]
            keys.append("gap" if row_gaps else "explained")
            gaps.update(row_gaps)
        for key in keys:
            counts[key] += 1
            total[key] += 1
    blank = {"compared": 0, "1%": 0, "10%": 0, "beyond": 0, "explained": 0, "gap": 0}
    return {
        "by_type": {t: {**blank, **c} for t, c in sorted(by_type.items())},
        "total": {**blank, **total},
        "gaps": dict(gaps.most_common()),
    }


def render(table: dict[str, Any]) -> str:
    """The summary as a plain-text table."""
    head = f"{'resource type':66} {'compared':>8} {'<=1%':>5} {'<=10%':>6} {'beyond':>6} {'explained':>9} {'gap':>4}"
    lines = [head, "-" * len(head)]

    def line(name: str, c: dict[str, int]) -> str:
        return (
            f"{name:66} {c['compared']:8} {c['1%']:5} {c['10%']:6} {c['beyond']:6} "
            f"{c['explained']:9} {c['gap']:4}"
        )

    lines += [line(t, c) for t, c in table["by_type"].items()]
    lines.append("-" * len(head))
    t = table["total"]
    lines.append(line("total", t))
    share = 100.0 * t["1%"] / t["compared"] if t["compared"] else 0.0
    lines.append(f"\nwithin 1% of Infracost: {t['1%']}/{t['compared']} ({share:.1f}%)")
    lines.append("mlgov gaps (rows per cause):")
    lines += [f"  {cause:44} {n:4}" for cause, n in table["gaps"].items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args(argv)
    table = summarize(all_rows())
    print(json.dumps(table, indent=2) if args.json else render(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
