"""`mlgov report` as a command: the page it writes, its exit codes, and spend that cannot answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from governance.cli.main import main
from tests.conftest import REPO
from tests.report.conftest import plan
from tests.short_deadlines import use_short_budget


def run(capsys, monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, str, str]:
    monkeypatch.chdir(REPO)
    capsys.readouterr()
    code = main(["report", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_page_is_self_contained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    saved = tmp_path / "plan.dev.json"
    saved.write_text(json.dumps(plan("dev")))
    output = tmp_path / "out.html"
    code, out, err = run(capsys, monkeypatch, "--plan", str(saved), "--no-spend", "-o", str(output))
    assert code == 0, err
    assert (
        out == f"wrote {output}: 2 charts (cost-per-stack, cost-per-type); opens with no network\n"
    )
    page = output.read_text()
    assert page.startswith("<!doctype html>")
    # One script, inline (plotly.js and the figures' calls); nothing loaded from elsewhere.
    assert len(re.findall(r"<script[^>]*\bsrc=", page)) == 0
    assert not re.search(r"""<(link|img|iframe)[^>]+(href|src)=["']?https?:""", page)
    assert "@import" not in page.split("</style>")[0]
    assert 'id="cost-per-stack"' in page and 'id="cost-per-type"' in page
    assert "$446.99" in page  # the dev estimate, as text too


def test_names_from_plans_are_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    doc = plan("dev")
    doc["stack"] = "<script>alert(1)</script>"
    saved = tmp_path / "plan.json"
    saved.write_text(json.dumps(doc))
    output = tmp_path / "out.html"
    assert run(capsys, monkeypatch, "--plan", str(saved), "--no-spend", "-o", str(output))[0] == 0
    page = output.read_text()
    assert "<script>alert(1)</script>" not in page.split("<body>", 1)[1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--stack", "qa"], "--stack: no stack file stacks/Pulumi.qa.yaml"),
        (["--plan", "nope.json"], "nope.json"),
        (["--days", "0"], "--days: 0 is out of range"),
        (
            ["--export-dataset", "just-a-name"],
            "--export-dataset: 'just-a-name' is not PROJECT.DATASET",
        ),
        (
            ["--stack", "dev", "--no-spend", "-o", "/nonexistent/dir/r.html"],
            "--output: cannot write",
        ),
    ],
)
def test_bad_input_exits_2_naming_it(
    argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    code, _out, err = run(capsys, monkeypatch, *argv)
    assert code == 2
    assert message in err and "Traceback" not in err


@pytest.fixture
def unanswering_bigquery(closed_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """BigQuery's URL, on a port that refuses connections, for the rest of the test."""
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"bigquery": closed_url}))
    use_short_budget(monkeypatch)  # a refused connection is retried: briefly, not for seconds
    return closed_url


def test_an_export_that_does_not_answer_is_a_note_and_the_page_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, unanswering_bigquery: str
) -> None:
    url = unanswering_bigquery
    output = tmp_path / "out.html"
    code, out, err = run(capsys, monkeypatch, "--stack", "dev", "-o", str(output))
    assert code == 0, err
    assert "2 charts" in out
    assert f"mlgov: warning: spend for dev not shown: BigQuery at {url} did not answer" in err
    assert f"spend for dev not shown: BigQuery at {url} did not answer" in output.read_text()


def stack_rows(page: str) -> dict[str, list[str]]:
    """The estimates table's cells per stack (tags stripped)."""
    table = page.split('<section id="estimates">', 1)[1].split("</table>", 1)[0]
    rows: dict[str, list[str]] = {}
    for row in re.findall(r"<tr><td>(.*?)</tr>", table):
        cells = [re.sub(r"<[^>]+>", "", c) for c in re.split(r"</td><td[^>]*>", row)]
        rows[cells[0]] = [c.removesuffix("</td>") for c in cells]
    return rows


def test_each_stack_shows_its_budget_baseline_savings_and_why_spend_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, unanswering_bigquery: str
) -> None:
    """Issue 32: no budget line, no baseline or savings, and staging and prod silently left out."""
    url = unanswering_bigquery
    output = tmp_path / "out.html"
    argv = ["--stack", "dev", "--stack", "staging", "--stack", "prod", "-o", str(output)]
    code, _out, err = run(capsys, monkeypatch, *argv)
    assert code == 0, err
    page = output.read_text()
    header = page.split('<section id="estimates">', 1)[1].split("</thead>", 1)[0]
    for column in ("budget $/month", "ungoverned baseline $/month", "governance saves", "spend"):
        assert f">{column}</th>" in header
    rows = stack_rows(page)
    assert set(rows) == {"dev", "staging", "prod"}
    for stack, row in rows.items():
        doc = plan(stack)
        cost = doc["cost"]
        budget = next(
            float(r["inputs"]["amount"]["specifiedAmount"]["units"])
            for r in doc["resources"]
            if r["type"] == "gcp:billing/budget:Budget"
            and not (r["inputs"].get("budgetFilter") or {}).get("services")
        )
        saved = cost["baseline_monthly_usd"] - cost["monthly_usd"]
        share = saved / cost["baseline_monthly_usd"]
        assert row[1:5] == [
            f"${cost['monthly_usd']:,.2f}",
            f"${budget:,.2f}",
            f"${cost['baseline_monthly_usd']:,.2f}",
            f"${saved:,.2f} ({share:.0%})",
        ], stack
        assert row[-1].startswith(f"not shown: BigQuery at {url} did not answer"), stack
    assert rows["dev"][2] == "$2,000.00"  # stacks/Pulumi.dev.yaml's budget.amount_usd


def test_no_spend_says_so_for_every_stack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    output = tmp_path / "out.html"
    code, _out, err = run(
        capsys, monkeypatch, "--stack", "dev", "--stack", "prod", "--no-spend", "-o", str(output)
    )
    assert code == 0, err
    assert err == ""
    rows = stack_rows(output.read_text())
    assert {stack: row[-1] for stack, row in rows.items()} == {
        "dev": "not shown: not read (--no-spend)",
        "prod": "not shown: not read (--no-spend)",
    }
