"""Read Infracost's golden test output (the table `infracost breakdown` prints) into rows.

A golden file lists each resource (`google_compute_disk.ssd_default`) with a tree of cost
components below it: `name  quantity  unit  $cost`, or `name  Monthly cost depends on usage:
$x per unit` for a usage-based part with no usage given, or a bare group heading (a cluster's
`default_pool`) whose own components follow one level deeper. This module only parses; the
peer cases keep what it returns under each resource's `infracost` key (attach.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_RESOURCE = re.compile(r"^ (google_[a-z0-9_]+\.\S+?)\s*$")
_TREE = re.compile(r"^ ([ │├└─]+)(.*)$")
_COST = re.compile(r"\$(-?[0-9,]+\.[0-9]+)\s*\*?\s*$")
_QTY_UNIT = re.compile(r"\s{2,}([0-9][0-9,]*(?:\.[0-9]+)?)\s{2,}(\S(?:.*\S)?)\s{2,}\$")
_USAGE = "Monthly cost depends on usage:"


@dataclass(frozen=True)
class Component:
    """One cost line: its name (under its group, if any), quantity, unit and monthly USD."""

    name: str
    usd: float | None
    """None for a usage-based line Infracost shows as "depends on usage"."""
    quantity: float | None = None
    unit: str = ""
    usage_based: bool = False
    """Marked `*` (a usage cost) or "depends on usage"."""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "usd": self.usd}
        if self.quantity is not None:
            out["quantity"] = self.quantity
            out["unit"] = self.unit
        if self.usage_based:
            out["usage_based"] = True
        return out


@dataclass
class GoldenResource:
    """One resource of a golden file and its components."""

    address: str
    components: list[Component] = field(default_factory=list[Component])

    @property
    def monthly_usd(self) -> float:
        """The resource's monthly cost: the sum of its priced components (rounded to cents)."""
        return round(sum(c.usd or 0.0 for c in self.components), 2)


def parse(text: str) -> list[GoldenResource]:
    """Every resource of a golden file, in file order."""
    rows: list[GoldenResource] = []
    groups: dict[int, str] = {}  # tree depth -> group heading at that depth
    for line in text.splitlines():
        if line.startswith(" OVERALL TOTAL"):
            break
        stripped = line.rstrip()
        if m := _RESOURCE.match(stripped):
            rows.append(GoldenResource(m.group(1)))
            groups.clear()
            continue
        tree = _TREE.match(stripped)
        if not rows or tree is None or not tree.group(2).strip():
            continue
        depth = len(tree.group(1)) // 3
        body = tree.group(2)
        for deeper in [d for d in groups if d >= depth]:
            del groups[deeper]
        prefix = " / ".join(groups[d] for d in sorted(groups))
        if _USAGE in body:
            name = body.split(_USAGE)[0].strip()
            full = f"{prefix} / {name}" if prefix else name
            rows[-1].components.append(Component(full, None, usage_based=True))
            continue
        cost = _COST.search(stripped)
        if cost is None:  # a group heading: its components follow one level deeper
            groups[depth] = body.strip()
            continue
        name = re.split(r"\s{2,}", body.strip())[0]
        full = f"{prefix} / {name}" if prefix else name
        qty = _QTY_UNIT.search(stripped)
        rows[-1].components.append(
            Component(
                full,
                float(cost.group(1).replace(",", "")),
                float(qty.group(1).replace(",", "")) if qty else None,
                qty.group(2) if qty else "",
                usage_based=stripped.endswith("*"),
            )
        )
    return rows
