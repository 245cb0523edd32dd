"""A newcomer reads every amount from the output alone: what `*`, `unpriced`, `depends on usage`
and the prices' dates mean, and which usage assumption a quantity came from.

Runs the CLI's `main` in-process (the console entry point's function) on small plan documents.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import main
from governance.text.docs_links import DEFAULT_DOCS_URL

PLAN: dict[str, Any] = {
    "stack": "team",
    "assumptions": {"storage_gb": {"raw": 250}, "nat_vm_count": 4},
    "resources": [
        {"type": "gcp:storage/bucket:Bucket", "name": "raw",
         "inputs": {"name": "acme-raw", "location": "US-CENTRAL1"}},
        {"type": "gcp:compute/disk:Disk", "name": "scratch",
         "inputs": {"zone": "us-central1-a", "size": 100, "type": "pd-balanced"}},
        {"type": "aws:s3/bucket:Bucket", "name": "elsewhere", "inputs": {}},
    ],
}  # fmt: skip


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN))
    return path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_explain_before_the_file_explains_the_file(plan_file, capsys):
    """`check --explain FILE` is every resource of FILE, as `check FILE --explain` is."""
    code, before, err = run(["check", "--explain", str(plan_file)], capsys)
    assert code in (0, 1)  # 1: mlgov's stack rules (labels, a budget) find violations
    assert err == ""
    _, after, _ = run(["check", str(plan_file), "--explain"], capsys)
    assert before == after
    assert "raw (storage/Bucket, US-CENTRAL1): $" in before
    # `--explain=NAME FILE` still names one resource
    _, one, _ = run(["check", "--explain=scratch", str(plan_file)], capsys)
    assert "scratch (compute/Disk, us-central1-a): $10.00/month" in one
    assert "raw (storage/Bucket" not in one


@pytest.mark.parametrize("args", [["check"], ["check", "--explain"], ["check", "--json"]])
def test_check_without_a_file_names_what_it_needs(args, capsys):
    code, out, err = run(args, capsys)
    assert (code, out) == (2, "")
    assert err == (
        "mlgov: error: check: no plan file given: `mlgov check PATH` (PATH: an mlgov plan "
        "document, `pulumi preview --json` output or a `pulumi stack export`; - for stdin)\n"
    )


def test_explain_lists_the_assumptions_behind_the_quantities(plan_file, capsys):
    _, out, _ = run(["check", str(plan_file), "--explain"], capsys)
    # the bucket's 250 GiB come from the document's storage_gb, and the text says where from
    assert "    storage: 250 GiB-months x $0.02/GiB-month = $5.00" in out
    tail = out[out.index("usage assumptions (mlgov:settings.usage; every key: "
                         f"{DEFAULT_DOCS_URL}reference/costs.html#usage-assumptions):"):]  # fmt: skip
    set_by_stack = " ".join(tail.split("mlgov's defaults:")[0].split())
    assert "set by the stack: storage_gb {raw: 250}, nat_vm_count 4" in set_by_stack
    defaults = " ".join(tail.split("mlgov's defaults:")[1].split("usage file:")[0].split())
    assert "storage_gb_per_bucket 10" in defaults
    assert "nat_vm_count" not in defaults  # given, so not a default
    assert "as_of" not in tail  # no value: changes no quantity
    assert out.rstrip().splitlines()[-1] == (
        "usage file: none: each `depends on usage` part (egress, operations, queries) is left "
        "out of the total; `--usage-file PATH` prices them"
    )


def test_explain_names_the_usage_file_it_used(plan_file, tmp_path, capsys):
    usage = tmp_path / "usage.yml"
    usage.write_text("version: 0.1\nresource_usage:\n  raw:\n    monthly_egress_gb: 100\n")
    code, out, err = run(["check", str(plan_file), "--explain", "--usage-file", str(usage)], capsys)
    assert code in (0, 1), err
    assert out.rstrip().splitlines()[-1].startswith(f"usage file: {usage}")


def test_the_plan_table_says_what_the_total_leaves_out_and_how_old_its_prices_are(
    plan_file, capsys
):
    _, raw, _ = run(["check", str(plan_file), "--json"], capsys)
    doc = json.loads(raw)
    waiting = sum(1 for r in doc["resources"] for x in r.get("cost_lines", [])
                  if x["kind"] == "usage")  # fmt: skip
    assert waiting == doc["cost"]["depends_on_usage"] == 7  # the bucket's 7 usage-based parts
    dates = sorted({s["date"] for s in doc["price_catalog"]["sources"].values()})
    assert doc["price_catalog"]["price_dates"] == {"first": dates[0], "last": dates[-1]}
    assert dates[0] != dates[-1]  # Cloud Storage's list prices and its operations' differ

    _, text, _ = run(["check", str(plan_file)], capsys)
    flat = " ".join(text.split())
    # the total carries the `*` of its notes: one resource could not be priced
    assert "estimated $15.00/month* " in flat
    assert "* the total leaves out 1 resource(s) that could not be priced: elsewhere" in flat
    assert (
        f"prices: catalog of 2026-07-30; the prices used are dated {dates[0]} to {dates[-1]} "
        "(`--explain` shows each one's date; `mlgov prices refresh` updates them)"
    ) in flat
    assert (
        "not in the total: 7 part(s) that depend on usage nobody declared (egress, operations, "
        "queries): `--explain` lists each with its unit price; a `--usage-file` prices them"
    ) in flat
    assert "`--explain [NAME]` shows how each amount is reached" in flat


def test_a_total_without_notes_has_no_star(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({**PLAN, "resources": PLAN["resources"][1:2]}))
    _, text, _ = run(["check", str(plan)], capsys)
    assert "estimated $10.00/month (ungoverned" in text
    assert "not in the total" not in text  # a disk has no usage-based part
    _, raw, _ = run(["check", str(plan), "--json"], capsys)
    assert "depends_on_usage" not in json.loads(raw)["cost"]


@pytest.mark.parametrize(
    ("inputs", "settings"),
    [
        ({"type": "pd-ssd", "size": 200}, "pd-ssd, 200 GB"),
        ({}, "pd-standard, 500 GB (Google's default)"),
        ({"type": "pd-balanced"}, "pd-balanced, 100 GB (Google's default)"),
        ({"image": "debian-cloud/debian-12"}, "pd-standard, size of its source"),
        ({"type": "hyperdisk-extreme", "size": 1024, "provisionedIops": 5000},
         "hyperdisk-extreme, 1024 GB, 5000 IOPS"),
    ],
)  # fmt: skip
def test_a_disk_row_shows_the_type_and_size_it_is_priced_by(inputs, settings, tmp_path, capsys):
    plan = tmp_path / "plan.json"
    disk = {
        "type": "gcp:compute/disk:Disk",
        "name": "d",
        "inputs": {"zone": "us-central1-a", **inputs},
    }
    plan.write_text(json.dumps({"stack": "team", "resources": [disk]}))
    _, raw, _ = run(["check", str(plan), "--markdown"], capsys)
    row = next(line for line in raw.splitlines() if line.startswith("| `d` |"))
    assert f"| {settings} |" in row


def test_the_plan_table_names_the_usage_file_its_total_rests_on(
    plan_file, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "1000")  # a long temporary path is not cut by the wrap
    usage = tmp_path / "usage.yml"
    usage.write_text("version: 0.1\nresource_usage:\n  raw:\n    monthly_egress_gb: 100\n")
    _, text, _ = run(["check", str(plan_file), "--usage-file", str(usage)], capsys)
    flat = " ".join(text.split())
    # one of the bucket's 7 usage-based parts is declared now; 6 still wait
    assert f"usage file: {usage}; not in the total: 6 part(s) that depend on usage" in flat
    _, text, _ = run(["check", str(plan_file)], capsys)
    assert "usage file:" not in text


def test_the_pr_comment_says_how_to_read_a_line_and_which_defaults_it_used(capsys):
    from governance.review.comment import StackPlans, render_comment
    from governance.review.plan import evaluate_document

    head = evaluate_document(json.loads(json.dumps(PLAN)))
    body = render_comment([StackPlans("team", head)])
    assert (
        "Each line: quantity x unit price = amount a month (USD list prices, 730-hour month), "
        "then [catalog key, location, pricing model, the price's date]. A quantity the inputs "
        "do not give comes from the usage above or mlgov's usage defaults "
        f"([reference/costs]({DEFAULT_DOCS_URL}reference/costs.html#usage-assumptions))."
    ) in body
    folded = body.split("<details><summary>mlgov's usage defaults in this estimate</summary>")[1]
    defaults = folded.split("</details>")[0]
    assert "storage\\_gb\\_per\\_bucket 10" in defaults  # escaped like all plan text
    assert "nat\\_vm\\_count" not in defaults  # the document set it: not a default
    # and the document's own settings are said beside their defaults
    assert (
        "Stack usage settings: storage\\_gb \\{raw\\: 250\\} \\(default \\{\\}\\), nat\\_vm\\_count 4 \\(default 2\\)."
        in body
    )


def test_a_total_at_committed_use_prices_says_so_and_gives_the_list_total(tmp_path, capsys):
    """Issue 32: a footer agrees with what the total holds (here: committed-use prices)."""
    vm = {"type": "gcp:compute/instance:Instance", "name": "vm",
          "inputs": {"zone": "us-central1-a", "machineType": "n1-standard-8"}}  # fmt: skip
    committed = tmp_path / "committed.json"
    committed.write_text(json.dumps({"stack": "t", "assumptions": {"commitment": "1y"},
                                     "resources": [vm]}))  # fmt: skip
    _, out, _ = run(["check", str(committed), "--json"], capsys)
    listed = json.loads(out)["cost"]["list_monthly_usd"]
    for args in (["check", str(committed)], ["check", str(committed), "--markdown"]):
        _, text, _ = run(args, capsys)
        assert (
            "commitment 1y: on-demand machines at 1y committed-use prices for every hour of the "
            f"month; at list prices ${listed:,.2f}/month"
        ) in " ".join(text.split())
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"stack": "t", "resources": [vm]}))
    _, text, _ = run(["check", str(plain)], capsys)
    assert "commitment" not in text
    _, md, _ = run(["diff", str(plain), str(committed), "--markdown"], capsys)
    assert (
        "Totals: before: list prices (sustained-use discounts where Google applies them); after: "
        "committed-use prices (1y) where they apply, list prices else, from the mlgov price catalog"
    ) in md
