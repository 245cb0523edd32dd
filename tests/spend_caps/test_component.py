"""SpendCaps under Pulumi mocks, alone and in the whole program: what the plan document carries.

The dynamic resource's type token under mocks is `pulumi-python:dynamic/mlgov:SpendCapBudget`;
its inputs are the Budget API v1 `Budget` body (checked against the discovery document) plus
`parent`, never the pickled provider; each cap has an alerts-only budget on the same project and
service that publishes to the budget topic, and the budget function's policy and role know them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from governance.components.spend_caps import SpendCap, SpendCaps, SpendCapsArgs
from governance.review.comment import StackPlans, render_comment
from governance.review.plan import plan_config
from governance.review.render import markdown, text
from governance.spend_caps import changes
from governance.text import escape
from mlgov_policies.compat.spend_caps import problems
from mlgov_policies.vocabulary import BUDGET, SPEND_CAP_BUDGET
from tests.conftest import REPO, stack_config
from tests.spend_caps.discovery import BUDGETS, check

TOPIC = "projects/acme-ml-prod/topics/acme-prod-budget-alerts"
VERTEX, GEMINI = "services/C7E2-9256-1C43", "services/AEFD-7695-64FA"


def build() -> SpendCaps:
    return SpendCaps(
        "spend-caps",
        SpendCapsArgs(
            prefix="acme-prod",
            project_number="345678901234",
            billing_account="01D4EE-079462-DFD6EC",
            caps={
                "vertex_ai": SpendCap(service=VERTEX, amount=2000),
                "gemini_api": SpendCap(service=GEMINI, amount=300.5),
            },
            topic_id=TOPIC,
        ),
    )


def test_each_cap_is_a_dynamic_resource_with_the_budget_body_beside_its_alerts_only_pair(
    under_mocks,
):
    resources = under_mocks(build)
    types = sorted((r.type, r.name) for r in resources)
    assert types == [
        (BUDGET, "spend-caps-gemini-api-alerts"),
        (BUDGET, "spend-caps-vertex-ai-alerts"),
        ("mlgov:index:SpendCaps", "spend-caps"),
        (SPEND_CAP_BUDGET, "spend-caps-gemini-api"),
        (SPEND_CAP_BUDGET, "spend-caps-vertex-ai"),
    ]
    assert SPEND_CAP_BUDGET == "pulumi-python:dynamic/mlgov:SpendCapBudget"
    by_name = {r.name: r.inputs for r in resources}
    cap = by_name["spend-caps-gemini-api"]
    assert "__provider" not in cap
    assert cap["parent"] == "billingAccounts/01D4EE-079462-DFD6EC"
    body = changes.declared(cap)  # what the provider sends: the engine's floats made int32 again
    assert set(cap) == {"parent", *body}
    check(BUDGETS, body, {"$ref": "GoogleCloudBillingBudgetsV1Budget"}, "inputs", sent=True)
    assert list(problems(body)) == []
    assert body["spendCap"] == {"inputState": "CONFIGURED"}
    assert body["amount"] == {"specifiedAmount": {"units": "300", "nanos": 500000000}}
    assert body["displayName"] == "acme-prod-cap-gemini-api"
    assert cap["amount"] == {"specifiedAmount": {"units": "300", "nanos": 500000000.0}}  # engine
    pair = by_name["spend-caps-gemini-api-alerts"]
    assert pair["budgetFilter"] == body["budgetFilter"]  # same project, service, measure
    assert pair["allUpdatesRule"] == {"pubsubTopic": TOPIC, "schemaVersion": "1.0"}
    assert [r["thresholdPercent"] for r in pair["thresholdRules"]] == [0.5, 0.8, 1.0]
    assert pair["amount"]["specifiedAmount"] == {"units": "300", "nanos": 500000000}


def capped_config(caps: dict) -> dict:
    config = copy.deepcopy(stack_config("prod"))
    config["mlgov:settings"]["spend_caps"] = caps
    return config


@pytest.fixture(scope="module")
def capped_plan() -> dict:
    config = capped_config({"vertex_ai": 2000, "gemini_api": 300})
    doc = plan_config(config, "prod", REPO / "__main__.py", REPO / "stacks" / "Pulumi.prod.yaml")
    return dict(doc)


def _resource(doc: dict, name: str) -> dict:
    return next(r for r in doc["resources"] if r["name"] == name)


def test_the_plan_shows_each_cap_with_its_ceiling_and_plans_ok(capped_plan):
    doc = capped_plan
    assert doc["violations"] == []
    cap = _resource(doc, "spend-caps-vertex-ai")
    assert cap["type"] == SPEND_CAP_BUDGET
    assert cap["monthly_usd"] == 0.0 and cap["worst_case_monthly_usd"] == 2000.0
    assert cap["inputs"]["budgetFilter"]["projects"] == ["projects/345678901234"]
    assert _resource(doc, "spend-caps-gemini-api")["worst_case_monthly_usd"] == 300.0


def test_the_budget_functions_policy_and_role_know_the_caps(capped_plan):
    fn = _resource(capped_plan, "governance-on-budget-alert")
    policy = json.loads(fn["inputs"]["serviceConfig"]["environmentVariables"]["MLGOV_POLICY"])
    pairs = policy["spend_caps"]
    assert set(pairs) == {"mock-spend-caps-vertex-ai-alerts", "mock-spend-caps-gemini-api-alerts"}
    vertex = pairs["mock-spend-caps-vertex-ai-alerts"]
    assert vertex == {
        "project": "acme-ml-prod",
        "service_key": "vertex_ai",
        "service": VERTEX,
        "cap": "billingAccounts/01D4EE-079462-DFD6EC/budgets/mock-spend-caps-vertex-ai",
        "amount": 2000.0,
    }
    role = _resource(capped_plan, "governance-on-budget-alert-role")
    assert {"billing.resourcebudgets.read", "resourcemanager.projects.get"} <= set(
        role["inputs"]["permissions"]
    )
    other = _resource(capped_plan, "governance-reap-expired-role")
    assert "billing.resourcebudgets.read" not in other["inputs"]["permissions"]


def test_without_caps_nothing_of_it_is_planned():
    doc = json.loads((REPO / "tests" / "golden" / "plan.dev.json").read_text())
    assert not [r for r in doc["resources"] if r["type"] == SPEND_CAP_BUDGET]
    fn = _resource(doc, "governance-on-budget-alert")
    assert "spend_caps" not in fn["inputs"]["serviceConfig"]["environmentVariables"]["MLGOV_POLICY"]
    role = _resource(doc, "governance-on-budget-alert-role")
    assert "billing.resourcebudgets.read" not in role["inputs"]["permissions"]


def test_text_markdown_and_the_pr_comment_show_the_ceiling_beside_the_estimate(capped_plan):
    human = text(capped_plan, 250)
    assert "spend caps (Preview): the month's worst case for each capped service:" in human
    assert (
        "Google enforces on lagging cost estimates, and running work and storage still bill"
        in human
    )
    assert "Vertex AI in projects/345678901234: at most $2,000.00/month + enforcement lag" in human
    assert "Gemini API in projects/345678901234: at most $300.00/month + enforcement lag" in human
    assert human.index("estimated $") < human.index("spend caps (")
    md = markdown(capped_plan)
    assert "- Vertex AI in projects/345678901234: at most $2,000.00/month + enforcement lag" in md
    comment = render_comment([StackPlans("prod", capped_plan)])
    line = "Vertex AI in projects/345678901234: at most $2,000.00/month + enforcement lag (spend-caps-vertex-ai)"
    assert f"- {escape.text(line)}" in comment  # escaped for GitHub's Markdown
    assert "**Spend caps (Preview): the month's worst case for each capped service**" in comment


def test_a_cap_on_cloud_run_functions_is_pointed_out_beside_the_governance_functions():
    config = capped_config({"cloud_run_functions": 50})
    doc = plan_config(config, "prod", REPO / "__main__.py", REPO / "stacks" / "Pulumi.prod.yaml")
    [finding] = doc.get("violations", [])
    assert finding["policy"] == "mlgov-billing-spend-cap-blocks-automation"
    assert finding["enforcement"] == "advisory"


def test_the_cli_plans_a_capped_stack_file(tmp_path, capsys, monkeypatch):
    from governance.cli.main import main

    monkeypatch.chdir(REPO)
    data = yaml.safe_load((REPO / "stacks" / "Pulumi.prod.yaml").read_text())
    data["config"]["mlgov:settings"]["spend_caps"] = {"gemini_api": 300}
    path = Path(tmp_path) / "Pulumi.prod.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["plan", "--config", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in doc["resources"] if r["type"] == SPEND_CAP_BUDGET] == [
        "spend-caps-gemini-api"
    ]
