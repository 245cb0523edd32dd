"""`spend` end to end: the real google-cloud-bigquery client against the emulator.

Expected numbers come from the generated rows (summed here in Python, not by our SQL) and, for
a few, from hand arithmetic on the fixture's daily costs (governance/fakecloud/export_rows.py).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from governance.cli.spend import main
from governance.fakecloud import export_rows as ex
from tests.spend.emulator import EUR_PER_USD, Export

pytestmark = pytest.mark.usefixtures("endpoint")

DEV_PLAN = "tests/golden/plan.dev.json"
PROD_PLAN = "tests/golden/plan.prod.json"
GPU_SKUS = {"039F-D0DA-4055", "0ACF-C2AC-2F58", "9F8E-7D6C-5B4A"}  # the fixture's GPU SKUs
TPU_SKUS = {"C1D2-E3F4-A5B6", "A1B2-C3D4-E5F6"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def dev_json(export: Export) -> str:
    """`spend --stack dev --plan DEV_PLAN --json`'s output, run once for the four tests that read
    it (the emulator's rows do not change); each test parses its own copy."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"bigquery": export.url}))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--stack", "dev", "--plan", DEV_PLAN, "--json"])
    assert code == 0, err.getvalue()
    return out.getvalue()


def window_rows(
    rows: Iterable[Mapping[str, Any]], doc: dict[str, Any], projects: set[str]
) -> list[Mapping[str, Any]]:
    start, end = doc["window"]["start"], doc["window"]["end"]
    return [
        r
        for r in rows
        if r["project"]["id"] in projects and start <= r["usage_start_time"][:10] < end
    ]


def totals(rows: Iterable[Mapping[str, Any]], key: Any) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for r in rows:
        out[key(r)] += ex.net(r)
    return {k: round(v, 2) for k, v in out.items()}


# --------------------------------------------------------------------------- attribution
def test_dev_report_has_the_design_shape_and_the_exported_sums(
    export: Export, dev_json: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(dev_json)
    # docs/architecture.md#spend-report: these keys may not be renamed.
    assert {
        "stack",
        "window",
        "currency",
        "export",
        "net_cost",
        "by_label",
        "by_service",
        "resources",
    } <= set(doc)
    assert doc["stack"] == "dev" and doc["currency"] == "USD" and doc["days"] == 30
    assert (
        doc["export"]["table"]
        == "acme-ml-dev.billing_export.gcp_billing_export_v1_01D4EE_079462_DFD6EC"
    )
    assert doc["export"]["fresh"] is True and doc["export"]["verdict"] == "ok"
    assert set(doc["by_label"]) == {"team", "cost-center", "workload", "env"}
    today = datetime.now(UTC).date().isoformat()
    assert doc["window"]["end"] == today and len(doc["window"]["start"]) == 10

    rows = window_rows(export.rows, doc, {"acme-ml-dev"})
    assert doc["net_cost"] == pytest.approx(round(sum(ex.net(r) for r in rows), 2), abs=0.011)
    assert doc["cost"] == pytest.approx(round(sum(r["cost"] for r in rows), 2), abs=0.011)
    assert doc["by_service"] == pytest.approx(
        totals(rows, lambda r: r["service"]["description"]), abs=0.011
    )
    for key in ("team", "cost-center", "workload", "env"):
        expected = {k: v for k, v in totals(rows, lambda r, key=key: ex.label(r, key)).items()}
        assert doc["by_label"][key] == pytest.approx(expected, abs=0.011), key
    # Hand arithmetic on the fixture's daily costs, 30 days: GPUs are alice's T4 (0.90/day) and
    # the t4-spot pool's (0.35/day); nothing without a team label but the GKE node VMs
    # (1.2 + 0.6 + 0.4 + 0.35 + 0.7 per day), network egress (0.25) and BigQuery analysis
    # (fully covered by a promotion credit).
    assert doc["accelerators"] == {"gpu": 37.5, "tpu": 0.0}
    assert doc["by_label"]["team"][""] == 105.0
    assert doc["unlabelled"]["net_cost"] == 105.0
    assert doc["unlabelled"]["share"] == pytest.approx(105.0 / doc["net_cost"], abs=1e-4)
    assert doc["unlabelled"]["by_project_service"] == [
        {"project": "acme-ml-dev", "service": "Compute Engine", "net_cost": 97.5},
        {"project": "acme-ml-dev", "service": "Networking", "net_cost": 7.5},
    ]
    # Credits are applied: sustained use on alice's N1 core/RAM (20%), free tier on the cluster
    # fee (50%), promotion on BigQuery analysis (100%).
    assert doc["credits"] == pytest.approx(-((0.8 + 0.3) * 0.2 + 2.4 * 0.5 + 0.6) * 30, abs=0.011)
    families = {(f["service"], f["family"]): f["net_cost"] for f in doc["by_sku_family"]}
    assert families[("Compute Engine", "Nvidia Tesla T4 GPU")] == 37.5  # on-demand + spot
    assert families[("Compute Engine", "N1 Predefined Instance Core")] == pytest.approx(
        (0.8 * 0.8 + 0.4 + 0.7) * 30
    )


def test_only_the_stacks_projects_count_unless_projects_are_named(
    export: Export, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = report(capsys, "--stack", "dev", "--no-plan")
    both = report(
        capsys,
        "--stack",
        "dev",
        "--no-plan",
        "--project",
        "acme-ml-dev",
        "--project",
        "acme-data-lake",
    )
    lake = round(50.0 * dev["days"], 2)  # the data lake's BigQuery analysis, 50/day
    assert "acme-data-lake" not in dev["by_project"]
    assert both["by_project"]["acme-data-lake"] == lake
    assert both["net_cost"] == pytest.approx(dev["net_cost"] + lake, abs=0.011)
    assert both["by_label"]["team"]["data"] == lake
    assert both["projects"] == ["acme-ml-dev", "acme-data-lake"]


def test_prod_tpu_spend_and_estimate_vs_actual(
    export: Export, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = report(
        capsys,
        "--stack",
        "prod",
        "--plan",
        PROD_PLAN,
        "--export-dataset",
        "acme-ml-dev.billing_export",
    )
    rows = window_rows(export.rows, doc, {"acme-ml-prod"})
    tpu = round(sum(ex.net(r) for r in rows if r["sku"]["id"] in TPU_SKUS), 2)
    assert doc["accelerators"] == {"gpu": 0.0, "tpu": tpu} and tpu == (30.0 + 25.0) * 30
    by_name = {r["name"]: r for r in doc["resources"]}
    assert by_name["training-research-v5e"]["actual_usd"] == 900.0  # TPU VM by resource.name
    assert by_name["training-tpu-v5e"]["actual_usd"] == 750.0  # GKE pool by goog-k8s labels
    assert by_name["metadata-instance"]["actual_usd"] == 225.0  # Cloud SQL by instance
    assert by_name["training-l4-spot"]["actual_usd"] is None  # no billed rows: null, not 0


def test_dev_estimate_vs_actual_per_resource_and_stack(
    export: Export, dev_json: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(dev_json)
    plan = json.loads(Path(DEV_PLAN).read_text())
    monthly = {r["name"]: r.get("monthly_usd") for r in plan["resources"]}
    by_name = {r["name"]: r for r in doc["resources"]}
    alice = by_name["notebooks-alice"]
    # Core and RAM less 20% sustained use, the T4, and the data disk ("<name>-..." is attached).
    assert alice["actual_usd"] == pytest.approx((0.8 * 0.8 + 0.3 * 0.8 + 0.9 + 0.15) * 30)
    assert alice["estimate_usd"] == pytest.approx(
        monthly["notebooks-alice"] * 30 * 24 / 730, abs=0.006
    )
    assert alice["ratio"] == pytest.approx(alice["actual_usd"] / alice["estimate_usd"], abs=1e-3)
    assert alice["billed_name"] == "acme-dev-nb-alice"
    assert by_name["gke-system"]["actual_usd"] == 54.0  # node VM core + RAM, by GKE labels
    assert by_name["training-t4-spot"]["actual_usd"] == 22.5
    assert by_name["gke-cluster"]["actual_usd"] == 36.0  # the fee, after the free-tier credit
    assert by_name["metadata-instance"]["actual_usd"] == 25.5
    assert by_name["network-nat"]["actual_usd"] is None
    assert "gke-nodes-sa" not in by_name  # free and unbilled: left out
    stack = doc["estimate_vs_actual"]
    detailed = window_rows(export.detailed_rows, doc, {"acme-ml-dev"})
    matched = sum(r["actual_usd"] for r in doc["resources"] if r["actual_usd"] is not None)
    assert stack["actual_usd"] == pytest.approx(matched, abs=0.011)
    assert stack["actual_usd"] + stack["unmatched_usd"] == pytest.approx(
        sum(ex.net(r) for r in detailed), abs=0.011
    )
    assert stack["estimate_usd"] == pytest.approx(
        sum(r["estimate_usd"] for r in doc["resources"]), abs=0.011
    )
    # The node-auto-provisioned pool is not in the plan: it shows up, with egress, as unmatched.
    assert stack["unmatched"][:2] == [
        {
            "resource": "gke node pool acme-dev-ml/nap-n1-4-x1",
            "service": "Compute Engine",
            "actual_usd": 21.0,
        },
        {"resource": "(no resource)", "service": "Networking", "actual_usd": 7.5},
    ]


def test_a_euro_account_reports_euros_and_compares_estimates_in_dollars(
    export: Export, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = report(
        capsys, "--stack", "dev", "--plan", DEV_PLAN, "--export-dataset", "acme-ml-dev.eur_export"
    )
    assert doc["currency"] == "EUR"
    assert doc["net_cost"] == 241.2  # the same numbers, in the account's currency
    alice = next(r for r in doc["resources"] if r["name"] == "notebooks-alice")
    assert alice["actual_usd"] == pytest.approx(57.9 / EUR_PER_USD, abs=0.006)  # cost / rate


def test_month_window_covers_the_calendar_month(
    export: Export, capsys: pytest.CaptureFixture[str]
) -> None:
    # The emulator puts every row in today's partition, so only a month whose partition range
    # reaches today can be read back here: the current one (tests/spend/test_spend_units.py
    # checks the partition bounds of past months).
    month = datetime.now(UTC).strftime("%Y-%m")
    doc = report(capsys, "--stack", "dev", "--no-plan", "--month", month)
    assert doc["window"]["start"] == f"{month}-01" and doc["resources"] == []
    rows = window_rows(export.rows, doc, {"acme-ml-dev"})
    assert doc["net_cost"] == pytest.approx(round(sum(ex.net(r) for r in rows), 2), abs=0.011)
    assert doc["estimate_vs_actual"] is None


def test_the_stack_plan_is_built_when_no_plan_is_given(
    export: Export, dev_json: str, capsys: pytest.CaptureFixture[str]
) -> None:
    built = report(capsys, "--stack", "dev")
    saved = json.loads(dev_json)
    assert built["resources"] == saved["resources"]


# --------------------------------------------------------------------------- human views
def test_text_and_markdown_show_the_answers(
    export: Export, dev_json: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(dev_json)
    code, text, _ = run(capsys, "--stack", "dev", "--plan", DEV_PLAN)
    assert code == 0
    assert f"net cost        {doc['net_cost']:,.2f} USD" in text
    assert "no team label   105.00 USD" in text
    assert "ok: export is current" in text
    assert "gke node pool acme-dev-ml/nap-n1-4-x1 (Compute Engine) 21.00" in text
    code, md, _ = run(capsys, "--stack", "dev", "--plan", DEV_PLAN, "--markdown")
    assert code == 0
    assert md.startswith("### Spend: `dev`")
    assert "| (none) | 105.00 |" in md
    assert "| notebooks-alice | workbench/instance | 72.78 | 57.90 | 0.80 |" in md
