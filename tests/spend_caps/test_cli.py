"""`mlgov cap status` and `mlgov cap lift` for spend caps, against the fake Budget API.

The caps are created by the real dynamic provider (as `pulumi up` would), Google then enforces
one (the fake's `spend`), and the operator sees and lifts it through the CLI's `main`. Every
request and answer is checked against the discovery documents (conftest).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from governance.cli.main import main
from governance.fakecloud.billingbudgets import ACCOUNT
from governance.fakecloud.container import FakeContainer
from governance.fakecloud.logging import FakeLogging
from governance.fakecloud.vertex import FakeVertex
from governance.naming import spend_cap_name
from governance.spend_caps.body import cap_body
from governance.spend_caps.provider import SpendCapBudgetProvider
from tests.conftest import REPO
from tests.spend_caps.conftest import NUMBER, PROJECT, VERTEX

GEMINI = "services/AEFD-7695-64FA"


def stack_file(tmp_path: Path, caps: dict, gke: bool = False) -> str:
    data = yaml.safe_load((REPO / "stacks" / "Pulumi.prod.yaml").read_text())
    settings = data["config"]["mlgov:settings"]
    settings["spend_caps"] = caps
    if not gke:
        settings.pop("gke", None)
        settings.pop("training_pools", None)
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def deploy(budgets, key: str, service: str, amount: float) -> str:
    body = cap_body(
        display_name=spend_cap_name("acme-prod", key),
        project_number=NUMBER,
        service=service,
        amount=amount,
    )
    return SpendCapBudgetProvider().create({"parent": f"billingAccounts/{ACCOUNT}", **body}).id


@pytest.fixture
def deployed(budgets):
    # `cap status` reads GKE and Vertex AI too (nothing capped there), and the prod stack's
    # fan-out runs from Cloud Logging (none): the same fake answers.
    FakeContainer().install(budgets.server)
    FakeVertex().install(budgets.server)
    FakeLogging().install(budgets.server)
    vertex = deploy(budgets, "vertex_ai", VERTEX, 2000)
    gemini = deploy(budgets, "gemini_api", GEMINI, 300)
    budgets.api.spend(vertex, 2150.0)  # Google enforces the Vertex AI cap
    budgets.server.requests.clear()
    return vertex, gemini


def run(capsys, *argv: str, endpoint: str | None = None) -> tuple[int, str, str]:
    code = main([*argv, *(["--endpoint", endpoint] if endpoint else [])])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_status_lists_each_caps_output_state_and_reconciling(budgets, deployed, tmp_path, capsys):
    vertex, gemini = deployed
    budgets.api.budgets[gemini]["spendCap"]["reconciling"] = True
    path = stack_file(tmp_path, {"vertex_ai": 2000, "gemini_api": 300})
    code, out, err = run(
        capsys, "cap", "status", "--config", path, "--json", endpoint=budgets.server.url
    )
    assert (code, err) == (0, "")
    caps = json.loads(out)["spend_caps"]["caps"]
    assert [(c["service"], c["output_state"], c["reconciling"], c["budget"]) for c in caps] == [
        ("vertex_ai", "ENFORCED", False, vertex),
        ("gemini_api", "CONFIGURED", True, gemini),
    ]
    assert caps[0]["amount"] == 2000.0 and caps[0]["currency"] == "USD"
    [listing] = budgets.server.calls("GET", "/budgets")
    assert listing.query == {"scope": [f"projects/{NUMBER}"]}
    assert budgets.server.calls("PATCH") == []  # status changes nothing


def test_status_text_says_how_to_lift_an_enforced_cap(budgets, deployed, tmp_path, capsys):
    path = stack_file(tmp_path, {"vertex_ai": 2000, "gemini_api": 300})
    code, out, _ = run(capsys, "cap", "status", "--config", path, endpoint=budgets.server.url)
    assert code == 0
    lines = out.splitlines()
    assert f"spend caps on billingAccounts/{ACCOUNT}, project {PROJECT} (Preview)" in lines
    assert lines[0].startswith("stack prod: governed acme-ml-prod")  # the GKE/Vertex part first
    assert any(
        line.split()[:4] == ["vertex_ai", PROJECT, "2,000.00", "USD"] and "ENFORCED" in line
        for line in lines
    )
    assert "mlgov cap lift --stack prod --service vertex_ai --reason '...'" in out


def test_status_names_caps_not_deployed_and_caps_the_stack_does_not_declare(
    budgets, deployed, tmp_path, capsys
):
    path = stack_file(tmp_path, {"vertex_ai": 2000, "cloud_run": 50})
    code, out, _ = run(
        capsys, "cap", "status", "--config", path, "--json", endpoint=budgets.server.url
    )
    assert code == 0
    caps = {(c["service"], c["declared"]): c for c in json.loads(out)["spend_caps"]["caps"]}
    assert caps[("cloud_run", 50.0)]["output_state"] == "NOT DEPLOYED"
    assert caps[("cloud_run", 50.0)]["found"] is False
    assert (
        caps[("gemini_api", None)]["output_state"] == "CONFIGURED"
    )  # on the project, not declared


def test_status_reads_every_page(budgets, deployed, tmp_path, capsys):
    budgets.api.page_size = 1
    path = stack_file(tmp_path, {"vertex_ai": 2000, "gemini_api": 300})
    code, out, _ = run(
        capsys, "cap", "status", "--config", path, "--json", endpoint=budgets.server.url
    )
    assert code == 0
    assert [c["found"] for c in json.loads(out)["spend_caps"]["caps"]] == [True, True]
    assert [r.query.get("pageToken") for r in budgets.server.calls("GET", "/budgets")] == [
        None,
        ["1"],
    ]


def test_lift_lifts_an_enforced_cap_with_the_input_state_only_and_logs_it(
    budgets, deployed, tmp_path, capsys
):
    vertex, _ = deployed
    path = stack_file(tmp_path, {"vertex_ai": 2000, "gemini_api": 300})
    code, out, err = run(
        capsys, "cap", "lift", "--config", path, "--service", "vertex_ai", "--reason", "launch day"
    )
    assert code == 0
    [patch] = budgets.server.calls("PATCH")
    assert patch.path == f"/v1/{vertex}"
    assert patch.query == {"updateMask": ["spendCap.inputState"]}
    assert patch.body == {
        "spendCap": {"inputState": "AWAITING_NEXT_PERIOD"},
        "etag": budgets.server.exchanges[-2][1].body["etag"],
    }
    assert budgets.api.budgets[vertex]["spendCap"]["outputState"] == "AWAITING_NEXT_PERIOD"
    assert out.startswith(
        f"vertex_ai in {PROJECT}: spend cap lifted (ENFORCED -> AWAITING_NEXT_PERIOD)"
    )
    [log] = [line for line in err.splitlines() if line.startswith("mlgov: log: ")]
    record = json.loads(log.removeprefix("mlgov: log: "))
    assert record["event"] == "spend_cap_lift" and record["reason"] == "launch day"
    assert record["operator"].startswith("local user ")
    assert (record["before"], record["after"], record["outcome"]) == (
        "ENFORCED",
        "AWAITING_NEXT_PERIOD",
        "lifted",
    )
    assert record["at"].endswith("Z") and record["budget"] == vertex


def test_lift_dry_run_sends_nothing(budgets, deployed, tmp_path, capsys):
    path = stack_file(tmp_path, {"vertex_ai": 2000})
    code, out, _ = run(
        capsys,
        "cap",
        "lift",
        "--config",
        path,
        "--service",
        "vertex_ai",
        "--reason",
        "check",
        "--dry-run",
        "--json",
    )
    assert code == 0 and budgets.server.calls("PATCH") == []
    assert json.loads(out)["outcome"] == "would lift"


def test_lifting_a_cap_that_is_not_enforced_does_nothing(budgets, deployed, tmp_path, capsys):
    path = stack_file(tmp_path, {"vertex_ai": 2000, "gemini_api": 300})
    code, out, _ = run(
        capsys, "cap", "lift", "--config", path, "--service", "gemini_api", "--reason", "x"
    )
    assert code == 0
    assert "it is CONFIGURED, not ENFORCED: usage of gemini_api is not blocked" in out
    assert budgets.server.calls("PATCH") == []


def test_lifting_twice_says_it_is_already_lifted(budgets, deployed, tmp_path, capsys):
    path = stack_file(tmp_path, {"vertex_ai": 2000})
    assert (
        run(capsys, "cap", "lift", "--config", path, "--service", "vertex_ai", "--reason", "x")[0]
        == 0
    )
    code, out, _ = run(
        capsys, "cap", "lift", "--config", path, "--service", "vertex_ai", "--reason", "x"
    )
    assert code == 0 and "already lifted (AWAITING_NEXT_PERIOD)" in out
    assert len(budgets.server.calls("PATCH")) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--service", "bigquery", "--reason", "x"], "declares no spend cap on 'bigquery'"),
        (
            ["--service", "vertex_ai", "--reason", "x", "--project", "acme-ml-dev"],
            "project 'acme-ml-dev' is not governed by stack prod",
        ),
        (["--service", "vertex_ai"], "--reason is required"),
        (["--service", "vertex_ai", "--reason", "  "], "--reason is required"),
        (["--reason", "x"], "--service is required"),
    ],
)
def test_lift_refuses_what_the_stack_cannot_mean_with_exit_2(
    budgets, deployed, tmp_path, capsys, argv, message
):
    path = stack_file(tmp_path, {"vertex_ai": 2000})
    code, _, err = run(capsys, "cap", "lift", "--config", path, *argv)
    assert code == 2 and message in err and "Traceback" not in err
    assert budgets.server.calls("PATCH") == []


def test_lift_of_a_cap_that_was_never_deployed_exits_4(budgets, tmp_path, capsys):
    path = stack_file(tmp_path, {"vertex_ai": 2000})
    code, _, err = run(
        capsys, "cap", "lift", "--config", path, "--service", "vertex_ai", "--reason", "x"
    )
    assert code == 4 and "no spend cap on vertex_ai in project acme-ml-prod" in err


def test_a_refused_lift_exits_4_with_googles_answer(budgets, deployed, tmp_path, capsys):
    budgets.server.inject(
        "/budgets/",
        403,
        method="PATCH",
        body={"error": {"code": 403, "message": "denied", "status": "PERMISSION_DENIED"}},
    )
    path = stack_file(tmp_path, {"vertex_ai": 2000})
    code, _, err = run(
        capsys, "cap", "lift", "--config", path, "--service", "vertex_ai", "--reason", "x"
    )
    assert code == 4
    assert "HTTP 403 PERMISSION_DENIED: denied" in err and "billing.resourcebudgets.write" in err


def test_status_with_gke_and_caps_shows_both(budgets, deployed, tmp_path, capsys):
    path = stack_file(tmp_path, {"vertex_ai": 2000}, gke=True)
    code, out, _ = run(
        capsys, "cap", "status", "--config", path, "--json", endpoint=budgets.server.url
    )
    doc = json.loads(out)
    assert code == 0
    assert doc["items"] == [] and doc["projects"] == {PROJECT: ["europe-west4-a", "europe-west4-b"]}
    assert doc["spend_caps"]["caps"][0]["output_state"] == "ENFORCED"


def test_status_reports_an_unreachable_budget_api_and_still_shows_the_rest(
    budgets, deployed, tmp_path, capsys
):
    budgets.server.inject(
        "/budgets",
        403,
        method="GET",
        body={"error": {"code": 403, "message": "denied", "status": "PERMISSION_DENIED"}},
    )
    path = stack_file(tmp_path, {"vertex_ai": 2000})
    code, out, err = run(capsys, "cap", "status", "--config", path, endpoint=budgets.server.url)
    assert code == 4
    assert out.startswith("stack prod: governed")
    assert "billingbudgets: list billingAccounts/" in err and "HTTP 403 PERMISSION_DENIED" in err
