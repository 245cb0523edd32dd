"""A spend cap costs $0 and shows the cap amount as the month's worst case for its service."""

from __future__ import annotations

from governance.costs.estimate import estimate_resources
from tests.costs.cost_plans import USAGE, one


def cap(units: str | None, nanos: int | None = None, service: str = "services/C7E2-9256-1C43"):
    money = {k: v for k, v in (("units", units), ("nanos", nanos)) if v is not None}
    return {
        "type": "pulumi-python:dynamic/mlgov:SpendCapBudget",
        "name": "spend-caps-vertex-ai",
        "inputs": {
            "parent": "billingAccounts/01D4EE-079462-DFD6EC",
            "budgetFilter": {"projects": ["projects/345678901234"], "services": [service]},
            "amount": {"specifiedAmount": money},
        },
    }


def test_the_cap_is_the_worst_case_and_never_in_the_total():
    cost = one(cap("2000", 500_000_000))
    assert (cost.monthly_usd, cost.baseline_monthly_usd) == (0.0, 0.0)
    assert cost.worst_case_usd == 2000.5
    [line] = cost.lines
    assert "Vertex AI in projects/345678901234 is capped at $2,000.50/month" in line
    assert "before Google enforces it" in line  # the lag is said, not hidden
    report = estimate_resources([cap("2000"), cap("300", service="services/AEFD-7695-64FA")], USAGE)
    assert report.monthly_usd == 0.0
    assert [r.worst_case_usd for r in report.resources] == [2000.0, 300.0]


def test_an_unreadable_amount_has_no_ceiling_but_is_still_free():
    cost = one(cap("lots"))
    assert cost.monthly_usd == 0.0 and cost.worst_case_usd is None
