"""Findings from the estimate itself: what cannot exist, and what could not be priced.

Four rules over a `CostReport`, in the plan document's violation shape (like budget_fit.py):
`mlgov-cost-region-not-offered` (mandatory) for a machine type, GPU or TPU a source says is not
sold in the resource's region, as the create call would fail; `mlgov-cost-input-refused`
(mandatory) for an input value Google documents it refuses (a disk's negative or out-of-range
provisioned IOPS), as the create call would fail too; `mlgov-cost-unpriced` (advisory)
for a resource the estimate has no price for, so the total leaves it out;
`mlgov-cost-partially-priced` (advisory) for a resource priced except for parts it names (a
retired GPU on an otherwise priced VM, a disk whose size nobody can know). Prices taken from the
nearest priced location are not findings: the row, the explanation and `cost.notes` say so.
Parts whose price depends on undeclared usage are not findings either: their lines say so.
"""

from __future__ import annotations

from typing import Any

from governance.costs.estimate import CostReport

NOT_OFFERED = "mlgov-cost-region-not-offered"
REFUSED = "mlgov-cost-input-refused"
UNPRICED = "mlgov-cost-unpriced"
PARTIAL = "mlgov-cost-partially-priced"


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
        elif r.refused:
            found.append(
                {
                    "policy": REFUSED,
                    "resource": r.name,
                    "type": r.type,
                    "enforcement": "mandatory",
                    "message": f"{r.name} ({r.type}): {r.unpriced}",
                    "why": "Google refuses this value, so creating the resource would fail and "
                    "the estimate cannot price it",
                    "remediation": "set the input within the limits the message names (or leave "
                    "it out to take Google's default)",
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
    for r in report.resources:
        if r.unpriced or not r.unpriced_parts:
            continue
        parts = "; ".join(f"{part}: {why}" for part, why in r.unpriced_parts)
        found.append(
            {
                "policy": PARTIAL,
                "resource": r.name,
                "type": r.type,
                "enforcement": "advisory",
                "message": f"{r.name} ({r.type}) is priced without {parts}",
                "why": "the monthly total and the budget check leave these parts out; the rest of "
                "the resource is priced",
                "remediation": "give the input the reason names (a size, provisioned IOPS, a "
                "GPU Google sells), or add its price to the catalog (docs/reference/costs.md)",
            }
        )
    return found
