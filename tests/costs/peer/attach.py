"""Fill each peer case's `infracost` expectations from Infracost's golden files.

    .venv/bin/python -m tests.costs.peer.attach PATH/TO/infracost/internal/providers/terraform/google/testdata

The translations in data/<case>.json are written by hand; each translated resource names the
Infracost resource it stands for (`infracost.address`). This tool reads the case's golden file
and writes that resource's monthly cost and cost components beside the address, so the numbers
in the data are Infracost's own, never typed in. It refuses a golden resource with a price that
no translation covers, so every resource Infracost prices is compared; a translation whose
address the golden file leaves out (Infracost counts it free or unsupported) is marked
`listed: false` and not compared. Run it again after moving to a newer Infracost commit
(and update SOURCES.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tests.costs.peer.golden import parse

DATA = Path(__file__).parent / "data"


def attach(case_file: Path, testdata: Path) -> list[str]:
    """Update one case file in place; the problems found (nothing is written if any)."""
    doc: dict[str, Any] = json.loads(case_file.read_text())
    case = str(doc["infracost_case"])
    golden = {g.address: g for g in parse((testdata / case / f"{case}.golden").read_text())}
    problems: list[str] = []
    seen: set[str] = set()
    for res in doc["resources"]:
        peer = res.get("infracost")
        if peer is None:
            continue
        address = str(peer["address"])
        if address in seen:
            problems.append(f"{case}: {address} is translated twice")
        seen.add(address)
        g = golden.get(address)
        if g is None:  # Infracost lists it as free or not supported: nothing to compare
            res["infracost"] = {"address": address, "monthly_usd": None, "listed": False}
            continue
        res["infracost"] = {
            "address": address,
            "monthly_usd": g.monthly_usd,
            "components": [c.as_dict() for c in g.components],
        }
    problems += [
        f"{case}: {a} (${g.monthly_usd}) has no translation"
        for a, g in golden.items()
        if a not in seen and g.monthly_usd > 0
    ]
    if not problems:
        case_file.write_text(json.dumps(doc, indent=1) + "\n")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("testdata", type=Path, help="Infracost's google testdata folder")
    args = parser.parse_args(argv)
    problems: list[str] = []
    for case_file in sorted(DATA.glob("*.json")):
        problems += attach(case_file, args.testdata)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
