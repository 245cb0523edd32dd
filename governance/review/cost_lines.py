"""The plan document's per-resource arithmetic: `cost_lines` and the keys beside them.

`cost_line_keys(row, cost)` writes, onto one resource row of a plan document
(docs/architecture.md#plan-document allows extra keys), what `mlgov plan --explain`, `--json`
readers and the PR comment need to see why the resource costs what it does:

- `cost_lines`: the governed bill, one object per line (`kind` charge, adjustment, note, usage or
  unpriced; a charge has `quantity`, `unit`, `unit_usd`, `usd`, `key`, `region`, `pricing`,
  `price_date`; see governance/costs/bill.py `CostLine`);
- `baseline_cost_lines`: the same for the ungoverned baseline;
- `unpriced_parts`: `[{"part", "reason"}]` for parts left out of a price that covers the rest;
- `declared_usage`: what the usage file declared for the resource.

Rendering those lines is explain.py's (terminal) and cost_comment.py's (PR comment).
"""

from __future__ import annotations

from typing import Any

from governance.costs.estimate import ResourceCost

COST_LINE_KEYS = ("cost_lines", "baseline_cost_lines", "unpriced_parts", "declared_usage")


def cost_line_keys(row: dict[str, Any], cost: ResourceCost) -> None:
    """Write the resource's cost lines (and unpriced parts, declared usage) onto its row."""
    # a price's source is listed once per document (`price_catalog.sources`), not per line
    row["cost_lines"] = [x.as_dict(False) for x in cost.cost_lines if x.bill == "governed"]
    baseline = [x.as_dict(False) for x in cost.cost_lines if x.bill == "baseline"]
    if baseline:
        row["baseline_cost_lines"] = baseline
    if cost.unpriced_parts:
        row["unpriced_parts"] = [{"part": p, "reason": r} for p, r in cost.unpriced_parts]
    if cost.declared:
        row["declared_usage"] = dict(cost.declared)
