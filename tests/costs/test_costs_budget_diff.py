"""Budget fit rules and the pull-request cost diff."""

from __future__ import annotations

import copy

import pytest
from cost_plans import node_pool, notebook

from governance.costs.assumptions import UsageAssumptions
from governance.costs.budget_fit import budget_violations
from governance.costs.errors import CostError
from governance.costs.estimate import CostReport, ResourceCost, estimate_resources
from governance.errors import CliError
from governance.inputs.document import parse_document
from governance.review.diff import diff_plans, plan_cost


def budget(units: str, currency: str = "USD", name: str = "budget"):
    amount = {"specifiedAmount": {"currencyCode": currency, "units": units}}
    return {"type": "gcp:billing/budget:Budget", "name": name, "inputs": {"amount": amount}}


def report(usd: float, baseline: float = 0.0) -> CostReport:
    return CostReport([ResourceCost("x", "gcp:workbench/instance:Instance", usd, baseline)])


def test_no_budget_no_cost_violation():
    assert budget_violations([notebook()], report(10**6)) == []


def test_budget_exceeded_is_mandatory_stack_violation():
    found = budget_violations([budget("1000")], report(950, 4000), stack="dev")
    assert [v["policy"] for v in found] == ["mlgov-cost-budget-exceeded"]
    v = found[0]
    assert v["enforcement"] == "mandatory"
    assert (v["resource"], v["type"]) == ("dev", "pulumi:pulumi:Stack")
    assert "$950.00" in v["message"]
    assert "$900.00" in v["message"]  # 1000 x (1 - 0.1 headroom)
    assert v["why"]
    assert "$4,000.00" in v["remediation"]


def test_budget_near_is_advisory_and_ratios_are_configurable():
    near = budget_violations([budget("1000")], report(850))
    assert [(v["policy"], v["enforcement"]) for v in near] == [
        ("mlgov-cost-budget-near", "advisory")
    ]
    assert budget_violations([budget("1000")], report(799)) == []
    assert budget_violations([budget("1000")], report(850), warn_ratio=0.9) == []
    strict = budget_violations([budget("1000")], report(850), headroom=0.2)
    assert strict[0]["policy"] == "mlgov-cost-budget-exceeded"


def test_budget_amount_problems_are_clear_errors():
    with pytest.raises(CostError, match="EUR"):
        budget_violations([budget("1000", "EUR")], report(1))
    with pytest.raises(CostError, match="specifiedAmount"):
        budget_violations(
            [{"type": "gcp:billing/budget:Budget", "name": "b", "inputs": {}}], report(1)
        )
    with pytest.raises(CostError, match="not a number"):
        budget_violations([budget("lots")], report(1))
    with pytest.raises(ValueError, match="headroom"):
        budget_violations([], report(1), headroom=1.5)


def document(resources, usage: UsageAssumptions | None = None, carry: bool = True):
    usage = usage or UsageAssumptions()
    doc = {"stack": "dev", "resources": copy.deepcopy(resources),
           "assumptions": usage.model_dump(mode="json")}  # fmt: skip
    if carry:
        rep = estimate_resources(resources, usage)
        for res in doc["resources"]:
            res["monthly_usd"] = rep.get(res["name"], res["type"]).monthly_usd
        doc["cost"] = rep.as_dict()
    return doc


def test_diff_of_identical_plans_is_empty():
    plan = [notebook(), node_pool()]
    for carry in (True, False):
        result = diff_plans(document(plan, carry=carry), document(plan, carry=carry))
        assert result.empty
        assert result.changes == []
        assert result.render_text().startswith("no cost change")
        assert "No cost change" in result.render_markdown()
        assert result.as_dict()["empty"] is True


def test_diff_reports_added_removed_changed_and_totals():
    base = [notebook("nb-a"), notebook("nb-b"), node_pool()]
    head = [notebook("nb-a", machineType="n1-standard-8"), notebook("nb-c"), node_pool()]
    result = diff_plans(document(base), document(head))
    status = {(c.name, c.status) for c in result.changes}
    assert status == {("nb-a", "changed"), ("nb-b", "removed"), ("nb-c", "added")}
    a = next(c for c in result.changes if c.name == "nb-a")
    assert a.after > a.before
    assert result.delta == pytest.approx(sum(c.delta for c in result.changes), abs=0.01)
    text = result.render_text()
    assert "+ added" in text
    assert "- removed" in text
    assert "governance saves" in text
    md = result.render_markdown()
    assert "| added | `nb-c` |" in md
    assert "**Total**" in md
    assert result.as_dict()["delta_usd"] == round(result.delta, 2)


def test_diff_reestimates_documents_without_costs_using_their_assumptions():
    plan = [node_pool()]
    quiet = document(plan, UsageAssumptions(training_pool_average_nodes=0.5), carry=False)
    busy = document(plan, UsageAssumptions(training_pool_average_nodes=2.0), carry=False)
    assert plan_cost(quiet).reestimated
    result = diff_plans(quiet, busy)
    assert [c.status for c in result.changes] == ["changed"]
    assert result.delta > 0
    # carried numbers are used as they are when complete
    carried = document(plan)
    carried["resources"][0]["monthly_usd"] = 123.0
    carried["cost"]["monthly_usd"] = 123.0
    assert plan_cost(carried).monthly_usd == 123.0


def test_diff_input_errors_name_the_problem():
    with pytest.raises(CliError, match="not valid JSON"):
        parse_document("{", "base.json")
    with pytest.raises(CliError, match="resources: required, must be a list"):
        parse_document('{"resources": 3}', "base.json")
    with pytest.raises(CliError, match=r"resources\[0\]\.type: required, must be a non-empty"):
        parse_document('{"resources": [{"name": "x"}]}', "base.json")
    bad = document([notebook()], carry=False)
    bad["assumptions"] = {"notebook_active_hours_per_month": -1}
    with pytest.raises(CliError, match=r"head: assumptions\.notebook_active_hours_per_month"):
        plan_cost(bad, origin="head")
    unknown = {"resources": [{"type": "gcp:spanner/instance:Instance", "name": "s"}]}
    cost = plan_cost(unknown, origin="head")  # unpriced, not an error
    assert cost.unpriced == {("gcp:spanner/instance:Instance", "s")}
    assert cost.monthly_usd == 0


def test_carried_costs_may_skip_component_resources():
    doc = document([notebook()])
    doc["resources"].append({"type": "mlgov:index:NotebookFleet", "name": "fleet", "inputs": {}})
    cost = plan_cost(doc)
    assert not cost.reestimated
    assert ("mlgov:index:NotebookFleet", "fleet") not in cost.per_resource
