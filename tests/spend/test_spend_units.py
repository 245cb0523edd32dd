"""The pure parts of `spend`: window, table names, SQL texts, folds, join rules, verdicts, errors."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta

import pytest
from google.api_core import exceptions as gexc

from governance.spend import attribution, freshness, join, queries
from governance.spend.errors import SpendError
from governance.spend.runner import endpoint_from_env, explain, over_cap
from governance.spend.tables import ExportTables, TableId
from governance.spend.window import Window, last_days, month
from mlgov_policies import vocabulary as v

TABLES = ExportTables("acme-ml-dev", "billing_export", "01D4EE-079462-DFD6EC")


# --------------------------------------------------------------------------- window
def test_last_days_ends_at_today_midnight_and_reads_late_partitions() -> None:
    w = last_days(30, date(2026, 11, 23))
    assert (w.start, w.end, w.days) == (date(2026, 10, 24), date(2026, 11, 23), 30)
    assert w.as_dict() == {"start": "2026-10-24", "end": "2026-11-23"}
    assert w.partition_start == datetime(2026, 10, 23, tzinfo=UTC)
    assert w.partition_end == datetime(2026, 11, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("2026-10", date(2026, 10, 1), date(2026, 11, 1)),
        ("2026-12", date(2026, 12, 1), date(2027, 1, 1)),
        ("2024-02", date(2024, 2, 1), date(2024, 3, 1)),
    ],
)
def test_month_is_the_calendar_month(text: str, start: date, end: date) -> None:
    w = month(text)
    assert (w.start, w.end) == (start, end)
    assert w.partition_end == datetime.combine(end, datetime.min.time(), UTC) + timedelta(days=7)


@pytest.mark.parametrize("days", [0, -1, 401])
def test_days_out_of_range(days: int) -> None:
    with pytest.raises(SpendError, match="--days"):
        last_days(days, date(2026, 11, 23))


def test_window_end_must_follow_start() -> None:
    with pytest.raises(SpendError, match="must be after start"):
        Window(date(2026, 11, 2), date(2026, 11, 1))


# --------------------------------------------------------------------------- tables
def test_export_table_names_follow_the_billing_account() -> None:
    assert (
        str(TABLES.standard)
        == "acme-ml-dev.billing_export.gcp_billing_export_v1_01D4EE_079462_DFD6EC"
    )
    assert (
        TABLES.detailed.sql
        == "`acme-ml-dev.billing_export.gcp_billing_export_resource_v1_01D4EE_079462_DFD6EC`"
    )


@pytest.mark.parametrize(
    ("project", "dataset", "account", "message"),
    [
        ("acme-ml-dev", "billing_export", "01d4ee-079462-dfd6ec", "billing account"),
        ("acme-ml-dev", "x`; DROP TABLE t; --", "01D4EE-079462-DFD6EC", "export dataset"),
        ("acme`ml", "billing_export", "01D4EE-079462-DFD6EC", "export project"),
        ("acme-ml-dev", "billing-export", "01D4EE-079462-DFD6EC", "export dataset"),
    ],
)
def test_identifiers_are_validated_before_they_reach_sql(
    project: str, dataset: str, account: str, message: str
) -> None:
    with pytest.raises(SpendError, match=message):
        ExportTables(project, dataset, account)


def test_legacy_domain_scoped_project_ids_are_accepted() -> None:
    assert (
        str(TableId("example.com:acme-billing", "billing", "t"))
        == "example.com:acme-billing.billing.t"
    )


# --------------------------------------------------------------------------- SQL
WINDOW = last_days(30, date(2026, 11, 23))


@pytest.mark.parametrize(
    "query",
    [
        queries.freshness(
            TABLES.standard, *freshness.lookback(datetime(2026, 11, 23, 10, tzinfo=UTC))
        ),
        queries.attribution(TABLES.standard, WINDOW, ("acme-ml-dev",)),
        queries.resources_cost(TABLES.detailed, WINDOW, ("acme-ml-dev",)),
    ],
    ids=lambda q: q.name,
)
def test_every_query_is_parameterized_and_partition_filtered(query: queries.Query) -> None:
    sql = query.sql
    assert "_PARTITIONTIME >= @partition_start" in sql and "_PARTITIONTIME < @partition_end" in sql
    assert sql.count(query.table.sql) == 1 and "{table}" not in sql
    assert "--" not in sql  # comments stay in the .sql file
    used = set(re.findall(r"@(\w+)", sql))
    assert used == {p.name for p in query.params}
    # No value is spliced: the only string literal is '' (a missing label).
    assert set(re.findall(r"'[^']*'", sql)) <= {"''"}


@pytest.mark.parametrize("name", ["freshness", "attribution", "resources"])
def test_the_sql_files_document_their_parameters(name: queries.QueryName) -> None:
    lines = queries.template(name).splitlines()
    first_code = next(i for i, line in enumerate(lines) if not line.startswith("--"))
    header, body = "\n".join(lines[:first_code]), "\n".join(lines[first_code:])
    assert first_code > 3 and "--" not in body
    for param in set(re.findall(r"@(\w+)", body)):
        assert param in header, (name, param)


def test_attribution_labels_are_governance_labels() -> None:
    assert set(queries.ATTRIBUTION_LABELS) <= set(v.REQUIRED_LABELS)


def test_freshness_reads_the_last_seven_days() -> None:
    since, until = freshness.lookback(datetime(2026, 11, 23, 10, 30, tzinfo=UTC))
    assert (since, until) == (
        datetime(2026, 11, 16, tzinfo=UTC),
        datetime(2026, 11, 24, tzinfo=UTC),
    )


# --------------------------------------------------------------------------- attribution
@pytest.mark.parametrize(
    ("service", "sku", "kind", "family"),
    [
        (
            "Compute Engine",
            "Nvidia Tesla T4 GPU attached to Spot Preemptible VMs running in Americas",
            "gpu",
            "Nvidia Tesla T4 GPU",
        ),
        ("Compute Engine", "RTX 6000 96GB running in Americas", "gpu", "RTX 6000 96GB"),
        (
            "Compute Engine",
            "Commitment v1: Nvidia Tesla A100 GPU running in Americas for 3 Year",
            "gpu",
            "Commitment v1: Nvidia Tesla A100 GPU for 3 Year",
        ),
        (
            "Compute Engine",
            "TPU v5 Lite PodSlice chip attached to Spot Preemptible VMs running in Netherlands",
            "tpu",
            "TPU v5 Lite PodSlice chip",
        ),
        ("Cloud TPU", "Tpu-v4 Pod running in Iowa", "tpu", "Tpu-v4 Pod"),
        (
            "Compute Engine",
            "Spot Preemptible N1 Predefined Instance Core running in Americas",
            None,
            "N1 Predefined Instance Core",
        ),
        ("Compute Engine", "Storage PD Capacity in Virginia", None, "Storage PD Capacity"),
        (
            "Cloud SQL",
            "Cloud SQL for PostgreSQL: Zonal - vCPU in Americas",
            None,
            "Cloud SQL for PostgreSQL: Zonal - vCPU",
        ),
        ("Kubernetes Engine", "Regional Kubernetes Clusters", None, "Regional Kubernetes Clusters"),
    ],
)
def test_sku_family_and_accelerator(service: str, sku: str, kind: str | None, family: str) -> None:
    assert attribution.accelerator(service, sku) == kind
    assert attribution.sku_family(sku) == family


def _row(
    project: str, service: str, sku: str, cost: float, credits: float = 0.0, **labels: str
) -> dict[str, object]:
    return {
        "project_id": project,
        "service": service,
        "sku": sku,
        "currency": "USD",
        "cost": cost,
        "credits": credits,
        "team": labels.get("team", ""),
        "cost_center": labels.get("cost_center", ""),
        "workload": labels.get("workload", ""),
        "env": labels.get("env", ""),
    }


def test_summarize_folds_rows_into_every_view() -> None:
    rows = [
        _row(
            "p1",
            "Compute Engine",
            "Nvidia L4 GPU running in Americas",
            100.0,
            -10.0,
            team="vision",
            env="prod",
        ),
        _row(
            "p1",
            "Compute Engine",
            "G2 Instance Core running in Americas",
            50.0,
            team="vision",
            env="prod",
        ),
        _row("p2", "BigQuery", "Analysis", 40.0, -40.0),
        _row("p2", "Cloud Storage", "Standard Storage", 20.0),
    ]
    got = attribution.summarize(rows)
    assert (got["net_cost"], got["cost"], got["credits"]) == (160.0, 210.0, -50.0)
    assert got["by_label"]["team"] == {"vision": 140.0, "": 20.0}
    assert got["by_label"]["env"] == {"prod": 140.0, "": 20.0}
    assert got["by_service"] == {"Compute Engine": 140.0, "Cloud Storage": 20.0, "BigQuery": 0.0}
    assert got["accelerators"] == {"gpu": 90.0, "tpu": 0.0}
    assert got["unlabelled"] == {
        "label": "team",
        "net_cost": 20.0,
        "share": 0.125,
        "by_project_service": [{"project": "p2", "service": "Cloud Storage", "net_cost": 20.0}],
    }


def test_summarize_of_nothing_is_zero_with_no_share() -> None:
    got = attribution.summarize([])
    assert (
        got["net_cost"] == 0.0 and got["unlabelled"]["share"] is None and got["currency"] == "USD"
    )


# --------------------------------------------------------------------------- join
def _plan(*resources: dict[str, object]) -> dict[str, object]:
    return {"project": "p1", "resources": list(resources)}


def _res(type_: str, logical: str, monthly: float, **inputs: object) -> dict[str, object]:
    return {"type": type_, "name": logical, "inputs": inputs, "monthly_usd": monthly}


def _billed(
    name: str = "",
    usd: float = 0.0,
    *,
    project: str = "p1",
    global_name: str = "",
    cluster: str = "",
    pool: str = "",
    service: str = "Compute Engine",
) -> dict[str, object]:
    return {
        "project_id": project,
        "service": service,
        "resource_name": name,
        "resource_global_name": global_name,
        "k8s_cluster": cluster,
        "k8s_node_pool": pool,
        "net_cost_usd": usd,
    }


def test_join_rules_names_prefixes_labels_and_projects() -> None:
    plan = _plan(
        _res(v.WORKBENCH_INSTANCE, "nb-a", 73.0, name="acme-nb-a"),
        _res(v.WORKBENCH_INSTANCE, "nb-a-2", 73.0, name="acme-nb-a-2"),
        _res(v.SQL_INSTANCE, "db", 0.0, name="acme-db"),
        _res(v.GKE_NODE_POOL, "pool", 146.0, name="gpu", cluster="acme-ml"),
        _res(v.SERVICE_ACCOUNT, "sa", 0.0, accountId="x"),
        _res("mlgov:index:NotebookFleet", "notebooks", 0.0),
    )
    rows = [
        _billed("acme-nb-a", 10.0),
        _billed("acme-nb-a-boot", 1.0),  # attached disk of nb-a
        _billed("acme-nb-a-2", 5.0),  # exact name beats the nb-a prefix
        _billed("acme-nb-a-2-data", 2.0),  # longest prefix wins
        _billed("acme-nb-a", 100.0, project="p9"),  # same name, other project: not ours
        _billed(
            "",
            7.0,
            global_name="//cloudsql.googleapis.com/projects/p1/instances/acme-db",
            service="Cloud SQL",
        ),
        _billed("gke-acme-ml-gpu-123-abcd", 20.0, cluster="acme-ml", pool="gpu"),
        _billed("gke-acme-ml-nap-1-abcd", 3.0, cluster="acme-ml", pool="nap-1"),
        _billed("", 0.004),  # less than a cent: not listed as unmatched
    ]
    resources, totals = join.estimate_vs_actual(plan, rows, days=73)  # 73 days = 2.4 months
    by_name = {r["name"]: r for r in resources}
    assert set(by_name) == {
        "nb-a",
        "nb-a-2",
        "db",
        "pool",
    }  # free, unbilled SA and the component left out
    assert by_name["nb-a"] == {
        "name": "nb-a",
        "type": v.WORKBENCH_INSTANCE,
        "billed_name": "acme-nb-a",
        "estimate_usd": 175.2,
        "actual_usd": 11.0,
        "ratio": 0.063,
    }
    assert by_name["nb-a-2"]["actual_usd"] == 7.0
    assert by_name["db"] == {
        "name": "db",
        "type": v.SQL_INSTANCE,
        "billed_name": "acme-db",
        "estimate_usd": 0.0,
        "actual_usd": 7.0,
        "ratio": None,
    }
    assert by_name["pool"]["actual_usd"] == 20.0 and by_name["pool"]["estimate_usd"] == 350.4
    assert totals["actual_usd"] == 45.0 and totals["unmatched_usd"] == 103.0
    assert totals["unmatched"] == [
        {"resource": "acme-nb-a", "service": "Compute Engine", "actual_usd": 100.0},
        {"resource": "gke node pool acme-ml/nap-1", "service": "Compute Engine", "actual_usd": 3.0},
    ]
    assert [r["name"] for r in resources] == [
        "pool",
        "nb-a",
        "nb-a-2",
        "db",
    ]  # biggest actual first


def test_join_reads_vm_names_as_the_detailed_export_writes_them() -> None:
    # Google's detailed-usage page shows VM rows as resource.name
    # `projects/<PROJECT_NUMBER>/instances/<NAME>`, with resource.global_name ending in the
    # numeric instance ID; disks keep their bare name (tests/spend/data/SOURCES.md).
    plan = _plan(
        _res(v.COMPUTE_INSTANCE, "vm", 73.0, name="acme-vm"),
        _res(v.COMPUTE_INSTANCE, "vm-2", 73.0, name="acme-vm-2"),
    )
    vm_id = (
        "//compute.googleapis.com/projects/123/zones/us-central1-a/instances/8812345678901234567"
    )
    rows = [
        _billed("projects/123/instances/acme-vm", 10.0, global_name=vm_id),
        _billed("acme-vm-boot", 1.0),  # its disk
        _billed("projects/123/instances/acme-vm-2", 5.0),  # exact name, not acme-vm's prefix
        _billed("projects/123/instances/hand-made", 2.0, global_name=vm_id.replace("88", "77")),
    ]
    resources, totals = join.estimate_vs_actual(plan, rows, days=73)
    by_name = {r["name"]: r["actual_usd"] for r in resources}
    assert by_name == {"vm": 11.0, "vm-2": 5.0}
    assert totals["unmatched"] == [
        {"resource": "hand-made", "service": "Compute Engine", "actual_usd": 2.0}
    ]


def test_join_without_detailed_rows_has_estimates_only() -> None:
    resources, totals = join.estimate_vs_actual(
        _plan(_res(v.TPU_VM, "tpu", 730.0, name="acme-tpu")), None, days=1
    )
    assert resources == [
        {
            "name": "tpu",
            "type": v.TPU_VM,
            "billed_name": "acme-tpu",
            "estimate_usd": 24.0,
            "actual_usd": None,
            "ratio": None,
        }
    ]
    assert (
        totals["actual_usd"] is None and totals["unmatched_usd"] is None and totals["ratio"] is None
    )


# --------------------------------------------------------------------------- freshness
NOW = datetime(2026, 11, 23, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("age", "verdict"),
    [
        (timedelta(hours=36), "ok"),
        (timedelta(hours=36, seconds=1), "stale"),
        (timedelta(days=3), "stale"),
    ],
)
def test_stale_after_36_hours(age: timedelta, verdict: str) -> None:
    got = freshness.assess(
        "t", [{"project_id": "p1", "latest_export_time": NOW - age}], ["p1"], NOW
    )
    assert got.verdict == verdict and got.fresh is (verdict == "ok")


def test_no_recent_rows_is_stale_and_missing_projects_are_named() -> None:
    empty = freshness.assess("t", [], ["p1"], NOW)
    assert empty.verdict == "stale" and empty.as_dict()["latest_export_time"] is None
    assert "no rows exported to t in the last 7 days" in empty.message()
    rows = [
        {"project_id": "p1", "latest_export_time": NOW - timedelta(hours=2)},
        {"project_id": None, "latest_export_time": NOW - timedelta(hours=1)},
    ]
    got = freshness.assess("t", rows, ["p1", "p2"], NOW)
    assert got.latest_export_time == NOW - timedelta(
        hours=1
    )  # account-level rows count for the export
    assert got.verdict == "projects missing" and got.projects_missing == ("p2",)


# --------------------------------------------------------------------------- runner pieces
def test_endpoint_from_env() -> None:
    assert endpoint_from_env({}) is None
    assert endpoint_from_env({"MLGOV_API_ENDPOINTS": '{"compute": "http://x"}'}) is None
    assert (
        endpoint_from_env({"MLGOV_API_ENDPOINTS": '{"bigquery": "http://127.0.0.1:9050/"}'})
        == "http://127.0.0.1:9050"
    )


def test_over_cap() -> None:
    assert over_cap("q", None, 10) is None and over_cap("q", 10, 10) is None
    err = over_cap("attribution", 12_300_000_000, 10_000_000_000)
    assert (
        err is not None
        and str(err)
        == "attribution query would process 12.3 GB, above the 10 GB cap (--max-gb); shorten --days or raise --max-gb"
    )


def test_server_errors_exit_4_and_bad_requests_exit_2() -> None:
    query = queries.attribution(TABLES.standard, WINDOW, ("p",))
    assert explain(gexc.InternalServerError("backend error"), query, TABLES.standard, "p").code == 2
    assert explain(gexc.BadRequest("Syntax error"), query, TABLES.standard, "p").code == 2


def test_the_package_imports_without_pulumi_or_the_bigquery_client() -> None:
    code = "import sys; import governance.cli.spend, governance.spend.report; print(sorted(m for m in sys.modules if m.startswith(('pulumi', 'google.cloud.bigquery', 'pydantic'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
