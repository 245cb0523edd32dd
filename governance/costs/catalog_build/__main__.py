"""`python -m governance.costs.catalog_build --pricing pricing.yml [--out PATH]`.

Rebuilds the regional catalog from the Billing Catalog export and documented.json, writes it
(default: governance/costs/prices_regional.json) and prints what it holds and how exactly the
family rates reproduce the export. Exit 2 with a one-line reason on bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from governance.costs.catalog import DEFAULT_PATH
from governance.costs.catalog_build.build import build_document, count_prices, render_document
from governance.costs.catalog_build.documented import (
    DEFAULT_PATH as DOCUMENTED_PATH,
)
from governance.costs.catalog_build.documented import (
    DocumentedError,
    read_documented,
)
from governance.costs.catalog_build.export import ExportError, read_export


def summary(doc: dict[str, Any]) -> str:
    """Human summary: sizes, date and the per-family fit results."""
    lines = [
        f"catalog of {doc['generated']}: {count_prices(doc['series'])} prices in "
        f"{len(doc['series'])} series over {len(doc['regions'])} locations",
        "family fits (max relative residual of the rates against every type's price):",
    ]
    for family, fit in doc["fits"].items():
        residuals = ", ".join(f"{u} {r:.2g}" for u, r in fit.get("max_rel_residual", {}).items())
        note = f" - {fit['note']}" if fit.get("note") else ""
        lines.append(f"  {family:10} {fit['types']:3} types  {fit['status']}  {residuals}{note}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m governance.costs.catalog_build")
    parser.add_argument("--pricing", required=True, help="the export's pricing.yml")
    parser.add_argument("--documented", default=str(DOCUMENTED_PATH), help="documented.json")
    parser.add_argument("--out", default=str(DEFAULT_PATH), help="catalog JSON to write")
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")
    args = parser.parse_args(argv)
    try:
        doc = build_document(read_export(args.pricing), read_documented(args.documented))
    except (ExportError, DocumentedError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    Path(args.out).write_text(render_document(doc), encoding="utf-8")
    if not args.quiet:
        print(summary(doc))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
