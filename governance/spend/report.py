"""Build the `spend` report: check the export, run the queries, fold the rows. No Pulumi.

`build_report` is the library entry point (the CLI, a function or a notebook call it): give it
a `QueryRunner` (runner.BigQueryRunner over a google-cloud-bigquery client), the export tables,
the projects that count, the window and optionally a plan document. It raises SpendError when
the export cannot answer (no dataset, no table, an empty table, no access, over the byte cap);
otherwise it returns the `--json` document of docs/architecture.md#spend-report, plus extra keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from governance.spend import attribution, freshness, join, queries
from governance.spend.errors import SpendError
from governance.spend.runner import QueryRunner, TableInfo
from governance.spend.tables import ExportTables, TableId
from governance.spend.window import Window


@dataclass(frozen=True)
class SpendRequest:
    """What to report on."""

    stack: str
    tables: ExportTables
    projects: tuple[str, ...]
    window: Window
    plan: Mapping[str, Any] | None = None
    stale_after: timedelta = freshness.STALE_AFTER


def _require_standard(info: TableInfo, tables: ExportTables) -> None:
    table = info.table
    if not info.dataset_exists:
        raise SpendError(
            f"no billing export dataset {table.dataset_id}: deploy the stack (it creates the "
            "dataset), or point --export-dataset at the dataset the export writes to"
        )
    if not info.exists:
        raise SpendError(
            f"no billing export table {table} in dataset {table.dataset_id}: turn on Billing > "
            f"Billing export > BigQuery export > Standard usage cost for billing account "
            f"{tables.billing_account} into that dataset (docs/guides/platform-engineer.md: "
            "Turn on the billing export); "
            "the first export can take a few hours"
        )
    if info.num_rows == 0:
        raise SpendError(
            f"billing export table {table} is empty: the export was turned on but has not "
            "written yet (the first export can take up to a day)"
        )


def _resources(
    runner: QueryRunner, request: SpendRequest, notes: list[str]
) -> tuple[list[dict[str, Any]], dict[str, Any] | None, TableId]:
    detailed = request.tables.detailed
    if request.plan is None:
        return [], None, detailed
    info = runner.describe(detailed)
    rows: list[dict[str, Any]] | None = None
    if info.exists:
        rows = runner.run(queries.resources_cost(detailed, request.window, request.projects))
    else:
        notes.append(
            f"no detailed usage cost table {detailed}: turn on Billing export > Detailed usage "
            "cost to compare estimates with billed cost per resource"
        )
    resources, totals = join.estimate_vs_actual(request.plan, rows, request.window.days)
    return resources, totals, detailed


def build_report(runner: QueryRunner, request: SpendRequest, now: datetime) -> dict[str, Any]:
    """The spend report (docs/architecture.md#spend-report shape, plus extra keys)."""
    standard = request.tables.standard
    _require_standard(runner.describe(standard), request.tables)
    since, until = freshness.lookback(now)
    fresh = freshness.assess(
        str(standard),
        runner.run(queries.freshness(standard, since, until)),
        request.projects,
        now,
        request.stale_after,
    )
    window = request.window
    spent = attribution.summarize(
        runner.run(queries.attribution(standard, window, request.projects))
    )
    notes: list[str] = [] if fresh.verdict == "ok" else [fresh.message()]
    resources, totals, detailed = _resources(runner, request, notes)
    return {
        "stack": request.stack,
        "window": window.as_dict(),
        "days": window.days,
        "currency": spent.pop("currency"),
        "projects": list(request.projects),
        "export": {
            "table": str(standard),
            **fresh.as_dict(),
            "detailed_table": str(detailed) if totals is not None else None,
        },
        **spent,
        "resources": resources,
        "estimate_vs_actual": totals,
        "queries": [s.as_dict() for s in runner.stats],
        "notes": notes,
    }


def exit_code(report: Mapping[str, Any], require_fresh: bool) -> int:
    """0 when answered; 2 when `require_fresh` and the export is stale or misses projects."""
    verdict = report["export"]["verdict"]
    return 2 if require_fresh and verdict != "ok" else 0


def projects_or_default(given: Sequence[str], default: str) -> tuple[str, ...]:
    """The projects that count: those given (deduplicated, in order), else the stack's."""
    return tuple(dict.fromkeys(given)) if given else (default,)
