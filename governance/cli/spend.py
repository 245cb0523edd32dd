"""`spend`: the command-line glue. Reads the stack, builds the plan, runs the report, prints it.

    python -m governance spend --stack dev [--days 30 | --month 2026-10] [--json | --markdown]

`register(subparsers)` adds the subcommand to the offline CLI; `run(args)` runs it and returns the
exit code; `main(argv)` is the standalone `python -m governance.spend`. Exit codes
(docs/architecture.md#exit-codes): 0 answered (a stale export is reported, and is an error only with
`--require-fresh`); 2 no export, no access or bad input, one line naming the dataset, table,
permission or key, and 2 as well when BigQuery failed on its side or could not be reached (the
message says a retry may help; errors.py). The stack's settings give the export (`billing_account`,
`billing_export.dataset_id` in the stack's `project`) and the project that counts; the plan comes
from the plan builder (`_plan_document`, the one place that imports it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from governance.endpoints import ENDPOINTS_ENV, needs_google
from governance.spend import render, report, window
from governance.spend.errors import SpendError
from governance.spend.runner import BigQueryRunner, endpoint_from_env, make_client
from governance.spend.tables import ExportTables, check_project

if TYPE_CHECKING:
    from governance.settings import Settings


# --------------------------------------------------------------------------- registration
def register(subparsers: Any) -> None:
    """Add the `spend` subcommand to the CLI's subparsers."""
    p = subparsers.add_parser(
        "spend",
        help="where the money went: the stack's billing export by label, service and resource",
        description=(
            "Read the stack's Cloud Billing export in BigQuery: is it current, who spent what "
            "(team, cost-center, workload, env, service, SKU family, GPU/TPU), which spend has "
            "no team label, and how the plan's estimates compare with what was billed. "
            + needs_google(f"{ENDPOINTS_ENV}" + '={"bigquery": URL}')
        ),
    )
    configure(p)


def configure(p: argparse.ArgumentParser) -> None:
    """The `spend` arguments, on any parser (the CLI's subparser or the standalone one)."""
    from governance.cli.flags import quiet_flag, stack_flags

    stack_flags(p)
    p.add_argument(
        "--project",
        action="append",
        default=[],
        metavar="ID",
        help="count only this project (repeatable; default: the stack's project)",
    )
    period = p.add_mutually_exclusive_group()
    period.add_argument("--days", type=int, default=30, help="the last N whole days (default 30)")
    period.add_argument("--month", help="a calendar month, YYYY-MM (the monthly review)")
    plan = p.add_mutually_exclusive_group()
    plan.add_argument("--plan", help="compare with this plan document (plan --json output)")
    plan.add_argument(
        "--no-plan", action="store_true", help="skip estimate vs actual (no plan is built)"
    )
    p.add_argument(
        "--export-dataset",
        metavar="PROJECT.DATASET",
        help="where the export writes (default: the stack's project and billing_export dataset)",
    )
    p.add_argument(
        "--job-project", metavar="ID", help="run (and bill) queries here (default: export's)"
    )
    p.add_argument(
        "--max-gb",
        type=float,
        default=100.0,
        help="refuse queries that would process more than this many GB (default 100)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        help="give up on a BigQuery call after this many seconds, retries included (default 300)",
    )
    p.add_argument(
        "--stale-hours",
        type=float,
        default=36.0,
        help="the export is stale when its newest row is older than this (default 36)",
    )
    p.add_argument(
        "--require-fresh",
        action="store_true",
        help="exit 2 unless the export is current and has the stack's projects",
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the report as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print a markdown summary")
    quiet_flag(p)
    p.set_defaults(func=run)


# --------------------------------------------------------------------------- input
def _stack(args: argparse.Namespace) -> tuple[str, Settings]:
    """The stack's name and validated settings (CliError naming the file or key)."""
    from governance.inputs.project import read_stack_config, settings_of, stack_file_of

    name, path = stack_file_of(args.stack, args.config)
    return name, settings_of(read_stack_config(path), path)


def _plan_document(args: argparse.Namespace) -> dict[str, Any] | None:
    """The plan to compare with: built from the stack, read from --plan, or none."""
    from governance.inputs.document import read_document
    from governance.review.plan import plan_stack  # the plan builder: one import

    if args.no_plan:
        return None
    if args.plan:
        return dict(read_document(args.plan))
    return dict(plan_stack(stack=args.stack, config=args.config))


def _tables(args: argparse.Namespace, settings: Settings) -> ExportTables:
    project, dataset = settings.project, settings.billing_export.dataset_id
    if args.export_dataset:
        parts = str(args.export_dataset).split(".")
        if len(parts) != 2:
            raise SpendError(f"--export-dataset: {args.export_dataset!r} is not PROJECT.DATASET")
        project, dataset = parts
    return ExportTables(project, dataset, settings.billing_account)


def _window(args: argparse.Namespace, now: datetime) -> window.Window:
    if args.month:
        return window.month(args.month)
    return window.last_days(args.days, now.date())


def _positive(value: float, flag: str, most: float) -> float:
    if not 0 < value <= most:
        raise SpendError(f"{flag}: {value:g} must be above 0 (and at most {most:g})")
    return value


def _max_bytes(gb: float) -> int:
    return int(_positive(gb, "--max-gb", 1_000_000) * 1e9)


def _stale_after(hours: float) -> timedelta:
    return timedelta(hours=_positive(hours, "--stale-hours", 24 * 60))


def build(args: argparse.Namespace, now: datetime) -> dict[str, Any]:
    """The report for parsed arguments (SpendError or CliError on bad input)."""
    from governance.text import progress

    stack, settings = _stack(args)
    tables = _tables(args, settings)
    projects = report.projects_or_default(
        [check_project(p, "--project") for p in args.project], settings.project
    )
    period = _window(args, now)
    stale_after = _stale_after(args.stale_hours)
    job_project = check_project(args.job_project, "--job-project") if args.job_project else None
    endpoint = endpoint_from_env()
    runner = BigQueryRunner(
        make_client(job_project or tables.project, endpoint),
        max_bytes=_max_bytes(args.max_gb),
        timeout_s=_positive(args.timeout, "--timeout", 3600),
        endpoint=endpoint,
    )
    # Everything above fails fast on bad input, and so does a BigQuery that does not answer
    # (the runner keeps this answer for the report): building the plan takes seconds.
    progress.detail(f"reading {tables.standard}")
    runner.describe(tables.standard)
    progress.detail("planning the stack for its estimates")
    request = report.SpendRequest(
        stack=stack,
        tables=tables,
        projects=projects,
        window=period,
        plan=_plan_document(args),
        stale_after=stale_after,
    )
    progress.detail("querying the billing export")
    return report.build_report(runner, request, now)


# --------------------------------------------------------------------------- run
def run(args: argparse.Namespace) -> int:
    """Run `spend`; returns the exit code. Problems raise CliError (one line each, no traceback)."""
    from governance.errors import CliError, Exit
    from governance.text import progress

    try:
        with progress.shown(f"spend for {args.stack or args.config}", quiet=args.quiet):
            result = build(args, datetime.now(UTC))
    except SpendError as err:
        raise CliError(str(err), Exit(err.code)) from None
    if args.json:
        print(json.dumps(result, indent=2, default=str))
    elif args.markdown:
        print(render.markdown(result))
    else:
        print(render.text(result))  # the text view shows the notes itself
    if args.json or args.markdown:
        for note in result["notes"]:
            print(f"mlgov: warning: {note}", file=sys.stderr)
    code = report.exit_code(result, require_fresh=args.require_fresh)
    if code:
        raise CliError(f"--require-fresh: {result['export']['message']}", Exit(code))
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m governance.spend`: the same as `mlgov spend`."""
    from governance.cli.main import main as cli_main

    return cli_main(["spend", *(sys.argv[1:] if argv is None else argv)])
