"""Freshness verdicts, exit codes and the errors `spend` gives when it cannot answer.

Against the emulator; where the emulator cannot act like BigQuery (IAM, byte accounting), the
recording proxy answers in BigQuery's documented error shapes (tests/spend/proxy.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from governance.cli.spend import main
from governance.deadlines import budget
from tests.spend.emulator import STALE_BY, Export
from tests.spend.proxy import RecordingProxy, is_query_job, is_table_get

TABLE = "acme-ml-dev.billing_export.gcp_billing_export_v1_01D4EE_079462_DFD6EC"
DATASET = "acme-ml-dev.billing_export"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# --------------------------------------------------------------------------- freshness
@pytest.mark.usefixtures("endpoint")
def test_a_stale_export_is_answered_and_flagged(
    export: Export, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("--stack", "dev", "--no-plan", "--export-dataset", "acme-ml-dev.stale_export")
    code, out, err = run(capsys, *args, "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["export"]["fresh"] is False and doc["export"]["verdict"] == "stale"
    newest = max(r["export_time"] for r in export.stale_rows)
    assert doc["export"]["latest_export_time"] == newest
    assert "export is stale: newest export_time " + newest in err
    assert doc["notes"] and doc["notes"][0].startswith("export is stale")
    code, _, err = run(capsys, *args, "--require-fresh")
    assert code == 2 and "export is stale" in err
    # A threshold wider than the lag makes the same export current.
    hours = str(STALE_BY.total_seconds() / 3600 + 12)
    code, out, _ = run(capsys, *args, "--stale-hours", hours, "--require-fresh", "--json")
    assert code == 0 and json.loads(out)["export"]["verdict"] == "ok"


@pytest.mark.usefixtures("endpoint")
def test_a_stack_project_missing_from_the_export_is_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("--stack", "dev", "--no-plan", "--project", "acme-ml-dev", "--project", "acme-ml-ghost")
    code, out, err = run(capsys, *args, "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["export"]["fresh"] is True
    assert doc["export"]["verdict"] == "projects missing"
    assert doc["export"]["projects_missing"] == ["acme-ml-ghost"]
    assert "has no cost for acme-ml-ghost" in err
    code, _, err = run(capsys, *args, "--require-fresh")
    assert code == 2 and "acme-ml-ghost" in err


@pytest.mark.usefixtures("endpoint")
def test_without_the_detailed_export_estimates_have_no_actuals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys,
        "--stack",
        "dev",
        "--plan",
        "tests/golden/plan.dev.json",
        "--export-dataset",
        "acme-ml-dev.standard_only",
        "--json",
    )
    doc = json.loads(out)
    assert code == 0
    assert doc["net_cost"] > 0 and doc["resources"]
    assert all(r["actual_usd"] is None for r in doc["resources"])
    assert doc["estimate_vs_actual"]["actual_usd"] is None
    assert (
        "no detailed usage cost table acme-ml-dev.standard_only.gcp_billing_export_resource_v1_01D4EE_079462_DFD6EC"
        in err
    )


# --------------------------------------------------------------------------- no export (exit 2)
@pytest.mark.usefixtures("endpoint")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--stack", "prod"),
            "no billing export dataset acme-ml-prod.billing_export: deploy the stack",
        ),
        (
            ("--stack", "dev", "--export-dataset", "acme-ml-dev.no_export"),
            "no billing export table acme-ml-dev.no_export.gcp_billing_export_v1_01D4EE_079462_DFD6EC in dataset acme-ml-dev.no_export: turn on Billing > Billing export",
        ),
        (
            ("--stack", "dev", "--export-dataset", "acme-ml-dev.empty_export"),
            "billing export table acme-ml-dev.empty_export.gcp_billing_export_v1_01D4EE_079462_DFD6EC is empty",
        ),
    ],
)
def test_no_export_exits_2_naming_dataset_or_table(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, *args, "--no-plan")
    assert code == 2 and out == ""
    assert message in err
    assert "Traceback" not in err


# --------------------------------------------------------------------------- no access (exit 2)
@pytest.mark.parametrize(
    ("match", "refusal", "expected"),
    [
        (
            is_table_get,
            f"Access Denied: Table {TABLE.replace('.', ':', 1)}: Permission bigquery.tables.get denied on table {TABLE.replace('.', ':', 1)} (or it may not exist).",
            f"access denied to {TABLE}: needs bigquery.tables.get on dataset {DATASET} (role BigQuery Data Viewer)",
        ),
        (
            is_query_job(),
            "Access Denied: Project acme-ml-dev: User does not have bigquery.jobs.create permission in project acme-ml-dev.",
            "no permission to run queries in project acme-ml-dev: needs bigquery.jobs.create (role BigQuery Job User)",
        ),
        (
            is_query_job(),
            f"Access Denied: Table {TABLE.replace('.', ':', 1)}: User does not have permission to query table {TABLE.replace('.', ':', 1)}, or perhaps it does not exist.",
            f"freshness query: access denied to {TABLE}: needs bigquery.tables.getData on dataset {DATASET}",
        ),
    ],
)
def test_refused_permissions_are_named(
    proxy: RecordingProxy, capsys: pytest.CaptureFixture[str], match, refusal: str, expected: str
) -> None:
    proxy.answer(match, 403, "accessDenied", refusal)
    code, out, err = run(capsys, "--stack", "dev", "--no-plan")
    assert code == 2 and out == ""
    assert expected in err
    assert "Traceback" not in err


def test_a_dry_run_above_the_cap_stops_before_anything_is_billed(
    proxy: RecordingProxy, capsys: pytest.CaptureFixture[str]
) -> None:
    def huge(job: dict) -> dict:  # what BigQuery answers for a dry run over a large export
        job.setdefault("statistics", {})["totalBytesProcessed"] = "250000000000"
        job["statistics"].setdefault("query", {})["totalBytesProcessed"] = "250000000000"
        return job

    proxy.rewrites.append((is_query_job(dry_run=True), huge))
    code, _, err = run(capsys, "--stack", "dev", "--no-plan", "--max-gb", "100")
    assert code == 2
    assert "freshness query would process 250.0 GB, above the 100 GB cap (--max-gb)" in err
    assert [bool(job.get("dryRun")) for job in proxy.query_jobs()] == [True]  # never run for real


def test_bytes_billed_limit_from_bigquery_is_explained(
    proxy: RecordingProxy, capsys: pytest.CaptureFixture[str]
) -> None:
    message = "Query exceeded limit for bytes billed: 5000000000. 10485760000 or higher required."
    proxy.answer(is_query_job(dry_run=False), 400, "bytesBilledLimitExceeded", message)
    code, _, err = run(capsys, "--stack", "dev", "--no-plan", "--max-gb", "5")
    assert code == 2
    assert "freshness query: BigQuery refused to bill more than the --max-gb cap" in err
    assert "raise --max-gb" in err


# --------------------------------------------------------------------------- query hygiene
def test_every_query_is_dry_run_capped_and_partition_filtered(
    proxy: RecordingProxy, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run(
        capsys, "--stack", "dev", "--plan", "tests/golden/plan.dev.json", "--max-gb", "5", "--json"
    )
    assert code == 0
    jobs = proxy.query_jobs()
    assert len(jobs) == 6  # freshness, attribution, resources: each a dry run, then the run
    for dry, real in zip(jobs[::2], jobs[1::2], strict=True):
        assert dry["dryRun"] is True and not real.get("dryRun")
        assert dry["query"]["query"] == real["query"]["query"]
        assert real["query"]["maximumBytesBilled"] == "5000000000"
        assert real["labels"]["mlgov-query"] in {"freshness", "attribution", "resources"}
        sql = real["query"]["query"]
        assert (
            "_PARTITIONTIME >= @partition_start" in sql and "_PARTITIONTIME < @partition_end" in sql
        )
        params = {p["name"]: p for p in real["query"]["queryParameters"]}
        for bound in ("partition_start", "partition_end"):
            assert params[bound]["parameterType"]["type"] == "TIMESTAMP"
        assert real["query"]["useLegacySql"] is False
    assert [j["labels"]["mlgov-query"] for j in jobs[1::2]] == [
        "freshness",
        "attribution",
        "resources",
    ]


# --------------------------------------------------------------------------- bad input (exit 2)
@pytest.mark.usefixtures("endpoint")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--stack", "dev", "--days", "0"), "--days: 0 is out of range; use 1 to 400"),
        (
            ("--stack", "dev", "--month", "2026-13"),
            "--month: '2026-13' is not a month like 2026-10",
        ),
        (
            ("--stack", "dev", "--project", "Not_A_Project"),
            "--project: 'Not_A_Project' is not a Google Cloud project id",
        ),
        (
            ("--stack", "dev", "--export-dataset", "billing_export"),
            "--export-dataset: 'billing_export' is not PROJECT.DATASET",
        ),
        (
            ("--stack", "dev", "--export-dataset", "acme-ml-dev.bad`name"),
            "export dataset: 'bad`name' is not a BigQuery dataset id",
        ),
        (("--stack", "dev", "--max-gb", "0"), "--max-gb: 0 must be above 0"),
        (("--stack", "dev", "--stale-hours", "-1"), "--stale-hours: -1 must be above 0"),
        (("--stack", "nope"), "--stack: no stack file stacks/Pulumi.nope.yaml"),
        (
            ("--stack", "dev", "--plan", "/nonexistent/plan.json"),
            "/nonexistent/plan.json: cannot read",
        ),
    ],
)
def test_bad_input_exits_2_with_the_key_named(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_bad_stack_settings_name_the_key_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = yaml.safe_load(Path("stacks/Pulumi.dev.yaml").read_text())
    config["config"]["mlgov:settings"]["billing_account"] = "not-an-account"
    path = tmp_path / "Pulumi.broken.yaml"
    path.write_text(yaml.safe_dump(config))
    code, _, err = run(capsys, "--config", str(path), "--no-plan")
    assert code == 2
    assert "mlgov:settings.billing_account" in err


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ("{not json", "MLGOV_API_ENDPOINTS: not valid JSON"),
        ('["x"]', 'MLGOV_API_ENDPOINTS: must be an object like {"bigquery": URL}'),
        (
            '{"bigquery": "127.0.0.1:9"}',
            "MLGOV_API_ENDPOINTS.bigquery: '127.0.0.1:9' must be a URL starting with http:// or https://",
        ),
    ],
)
def test_endpoint_problems_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: str, message: str
) -> None:
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", env)
    code, _, err = run(capsys, "--stack", "dev", "--no-plan")
    assert code == 2 and message in err and "Traceback" not in err


def test_an_unreachable_endpoint_exits_4_within_the_timeout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], closed_url: str
) -> None:
    """--timeout shorter than the first call's own budget (tests/test_deadlines.py) wins."""
    url = closed_url
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"bigquery": url}))
    code, _, err = run(capsys, "--stack", "dev", "--no-plan", "--timeout", "1")
    assert code == 2  # docs/architecture.md#exit-codes: spend answers (0) or not (2)
    said = re.search(
        rf"BigQuery at {url} did not answer \(connection refused; gave up after ([\d.]+) s\)", err
    )
    assert said is not None, err
    # --timeout 1 bounded the wait, not the first call's own budget (reach_s, 4 s by
    # default, then a last attempt): a bound between the two, not a stopwatch on this machine.
    assert float(said.group(1)) < budget().reach_s
    assert "Traceback" not in err
