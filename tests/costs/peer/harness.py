"""Price Infracost's Google test cases with mlgov and compare each resource with Infracost's cost.

Each case in data/ is a plan document (docs/architecture.md#plan-document): Infracost's Terraform case written
as pulumi-gcp inputs, each compared resource carrying Infracost's monthly cost and components
(attach.py). `compare()` prices a case the way `mlgov check --usage-file` does (the document's usage
assumptions, the case's Infracost usage translated into an mlgov usage file by usage.py, the
default catalog, component resources left out, then `estimate_resources`) and
returns one `Row` per resource Infracost prices (a monthly cost above $0). The table of
explained differences is in differences.py; the summary table in summary.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from governance.costs.catalog import Catalog, default_catalog
from governance.costs.estimate import ResourceCost, estimate_resources
from governance.inputs.document import assumptions_of, parse_document
from mlgov_policies.vocabulary import is_component
from tests.costs.peer.usage import usage_file_for

DATA = Path(__file__).parent / "data"
ONE_PERCENT = 0.01
TEN_PERCENT = 0.10
CENT_ROUNDING = 0.005
"""Infracost prints each component rounded to the cent: allow half a cent per component."""


@dataclass(frozen=True)
class Row:
    """One resource Infracost prices, with mlgov's estimate beside it."""

    case: str
    name: str
    type: str
    address: str
    infracost_usd: float
    mlgov_usd: float
    components: tuple[Mapping[str, Any], ...]
    unpriced: str = ""
    """mlgov's reason it has no price ("" when it has one)."""

    @property
    def key(self) -> str:
        return f"{self.case}/{self.name}"

    @property
    def tolerance(self) -> float:
        """1% of Infracost's cost, plus Infracost's rounding to cents per component."""
        return ONE_PERCENT * self.infracost_usd + CENT_ROUNDING * len(self.components)

    def within(self, expected: float, fraction: float = ONE_PERCENT) -> bool:
        """mlgov's cost is within `fraction` of `expected` (plus the rounding allowance)."""
        slack = fraction * abs(expected) + CENT_ROUNDING * len(self.components)
        return abs(self.mlgov_usd - expected) <= slack

    @property
    def band(self) -> str:
        """ "1%", "10%" or "beyond": how close mlgov lands to Infracost."""
        if self.within(self.infracost_usd, ONE_PERCENT):
            return "1%"
        if self.within(self.infracost_usd, TEN_PERCENT):
            return "10%"
        return "beyond"


@dataclass(frozen=True)
class Case:
    """One translated Infracost case: its name and plan document."""

    name: str
    doc: Mapping[str, Any]

    def resources(self) -> list[dict[str, Any]]:
        """What `mlgov check` prices: the document's resources minus component resources."""
        return [r for r in self.doc["resources"] if not is_component(r["type"])]


@cache
def load_cases() -> tuple[Case, ...]:
    """Every case under data/, read and shape-checked as `mlgov check` reads a document."""
    cases: list[Case] = []
    for path in sorted(DATA.glob("*.json")):
        doc = parse_document(path.read_text(), str(path))
        cases.append(Case(path.stem, doc))
    return tuple(cases)


def estimate_case(
    case: Case, catalog: Catalog | None = None
) -> dict[tuple[str, str], ResourceCost]:
    """mlgov's cost of each resource of a case, keyed by (type, name)."""
    report = estimate_resources(
        case.resources(),
        assumptions_of(case.doc, case.name),
        catalog if catalog is not None else default_catalog(),
        usage_file_for(case),
    )
    return {(rc.type, rc.name): rc for rc in report.resources}


def compare(case: Case, catalog: Catalog | None = None) -> Iterator[Row]:
    """A row for each resource of the case that Infracost prices above $0."""
    costs = estimate_case(case, catalog)
    for res in case.resources():
        peer = res.get("infracost")
        if not peer or not peer.get("monthly_usd"):
            continue
        rc = costs[(res["type"], res["name"])]
        yield Row(
            case=case.name,
            name=res["name"],
            type=res["type"],
            address=peer["address"],
            infracost_usd=float(peer["monthly_usd"]),
            mlgov_usd=rc.monthly_usd,
            components=tuple(peer.get("components", ())),
            unpriced=rc.unpriced,
        )


@cache
def all_rows() -> tuple[Row, ...]:
    """Every compared row of every case."""
    catalog = default_catalog()
    return tuple(row for case in load_cases() for row in compare(case, catalog))


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())
