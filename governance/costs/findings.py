"""Findings from the estimate itself: what cannot exist, and what could not be priced.

Two rules over a `CostReport`, in the plan document's violation shape (like budget_fit.py):
`mlgov-cost-region-not-offered` (mandatory) for a machine type, GPU or TPU a source says is not
sold in the resource's region, as the create call would fail; `mlgov-cost-unpriced` (advisory)
for a resource the estimate has no price for, so the total leaves it out. Prices taken from the
nearest priced location are not findings: the row, the explanation and `cost.notes` say so.
"""

from __future__ import annotations

from typing import Any

from governance.costs.estimate import CostReport

NOT_OFFERED = "mlgov-cost-region-not-offered"
UNPRICED = "mlgov-cost-unpriced"


def cost_findings(report: CostReport) -> list[dict[str, Any]]:
    """Violation dicts (policy, resource, type, enforcement, message, why, remediation)."""
    found: list[dict[str, Any]] = []
    for r in report.unpriced:
        if r.not_offered:
            found.append(
                {
                    "policy": NOT_OFFERED,
                    "resource": r.name,
                    "type": r.type,
                    "enforcement": "mandatory",
                    "message": f"{r.name} ({r.type}): {r.unpriced}",
                    "why": "Google does not sell it there, so creating the resource would fail "
                    "and the estimate cannot price it",
                    "remediation": "move the resource to a region (zone) that offers it, or "
                    "choose a machine type / accelerator sold in this region",
                }
            )
        else:
            found.append(
                {
                    "policy": UNPRICED,
                    "resource": r.name,
                    "type": r.type,
                    "enforcement": "advisory",
                    "message": f"{r.name} ({r.type}) has no price: {r.unpriced}",
                    "why": "the monthly total and the budget check leave this resource out",
                    "remediation": "add a cost model or a catalog price for it "
                    "(docs/reference/costs.md), or fix the input the message names",
                }
            )
    return found
