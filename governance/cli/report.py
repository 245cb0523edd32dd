"""`mlgov report`: plan the stacks, read their billing exports if they answer, write the page.

    mlgov report [--stack NAME ...] [--plan FILE ...] [--days 30] [--no-spend] [-o report.html]

Plans come from the project's stacks (all of them unless `--stack` or `--plan` names some) or
from saved plan documents. For each stack with a stack file, the billing export is read the way
`mlgov spend` reads it (MLGOV_API_ENDPOINTS={"bigquery": URL} for an emulator); a stack whose
export cannot answer (no credentials, no dataset, no network) gets a note on the page and on
stderr instead of its spend charts, and the page is written all the same. Exit codes: 0 the
page was written; 2 invalid input (unknown stack, unreadable plan, bad --days, unwritable
output), one line naming it.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from governance.errors import CliError, Exit, warn

DEFAULT_OUTPUT = "mlgov-report.html"


def register(subparsers: Any) -> None:
    """Add the `report` subcommand to the CLI's subparsers."""
    from governance.cli.flags import quiet_flag

    p = subparsers.add_parser(
        "report",
        help="one HTML page of where the money goes: estimates per stack and type, and spend "
        "per day and estimate against billed when the billing export answers",
        description="Write one self-contained HTML page (opens with no network) with charts of "
        "the stacks' estimated monthly cost and, where a stack's billing export answers, its "
        "spend per day by team and by service and its estimates against billed cost.",
        epilog="examples:\n  mlgov report\n  mlgov report --stack prod --days 14 -o prod.html\n"
        "  mlgov report --plan plan.dev.json --no-spend",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "-s",
        "--stack",
        action="append",
        default=[],
        metavar="NAME",
        help="plan this stack (repeatable; default: every stack, unless --plan is given)",
    )
    p.add_argument(
        "--plan",
        action="append",
        default=[],
        metavar="FILE",
        help="use this saved plan document (`plan --json`; repeatable)",
    )
    p.add_argument("--days", type=int, default=30, help="spend: the last N whole days (30)")
    p.add_argument(
        "--export-dataset",
        metavar="PROJECT.DATASET",
        help="spend: where the billing export writes, for every stack (default: each stack's "
        "project and billing_export dataset)",
    )
    p.add_argument(
        "--no-spend", action="store_true", help="estimates only: do not read the billing export"
    )
    p.add_argument(
        "-o", "--output", default=DEFAULT_OUTPUT, help=f"the page to write ({DEFAULT_OUTPUT})"
    )
    quiet_flag(p)
    p.set_defaults(func=run)


def _plans(args: argparse.Namespace) -> list[Mapping[str, Any]]:
    from governance.inputs.document import read_document
    from governance.inputs.project import find_project
    from governance.review.plan import plan_stack
    from governance.text import progress

    plans: list[Mapping[str, Any]] = [read_document(path) for path in args.plan]
    names: list[str] = list(args.stack) or ([] if args.plan else find_project().stacks())
    for name in dict.fromkeys(names):
        progress.step(f"planning {name}")
        plans.append(plan_stack(stack=name))
    if not plans:
        raise CliError("report: no stacks: the project has no stack files; name --plan FILEs")
    return plans


def _export(settings: Any, given: str | None) -> Any:
    from governance.spend.errors import SpendError
    from governance.spend.tables import ExportTables

    project, dataset = settings.project, settings.billing_export.dataset_id
    if given:
        parts = given.split(".")
        if len(parts) != 2:
            raise SpendError(f"--export-dataset: {given!r} is not PROJECT.DATASET")
        project, dataset = parts
    return ExportTables(project, dataset, settings.billing_account)


def _spend(
    plans: Sequence[Mapping[str, Any]], args: argparse.Namespace, now: datetime
) -> tuple[list[Any], dict[str, str]]:
    """Each stack's spend view, or why there is none (stack -> reason)."""
    from governance.inputs.project import find_project, read_stack_config, settings_of
    from governance.report.spend_view import stack_spend
    from governance.spend.errors import SpendError
    from governance.spend.report import SpendRequest
    from governance.spend.runner import BigQueryRunner, endpoint_from_env, make_client
    from governance.spend.window import last_days
    from governance.text import progress

    views: list[Any] = []
    missing: dict[str, str] = {}
    window = last_days(args.days, now.date())
    stacks = [str(plan.get("stack") or "?") for plan in plans]
    for plan, stack in zip(plans, stacks, strict=True):
        progress.step(f"reading spend for {stack}")
        try:
            path = find_project().stack_file(stack)
            settings = settings_of(read_stack_config(path), path)
            tables = _export(settings, args.export_dataset)
            endpoint = endpoint_from_env()
            runner = BigQueryRunner(make_client(tables.project, endpoint), endpoint=endpoint)
            request = SpendRequest(stack, tables, (settings.project,), window, plan)
            views.append(stack_spend(runner, request, now))
        except (SpendError, CliError) as err:
            missing[stack] = str(err)
            if str(err).startswith("no Google credentials"):
                # The same for every stack: not asked again, and each stack still says why.
                for later in stacks[stacks.index(stack) + 1 :]:
                    missing.setdefault(later, f"not read: no Google credentials (as for {stack})")
                break
    return views, missing


def run(args: argparse.Namespace) -> int:
    """Run `report`; returns the exit code (problems are raised as CliError)."""
    from governance.report.model import ReportData, stack_cost
    from governance.report.page import charts_of, render_page
    from governance.text import progress

    now = datetime.now(UTC)
    if not 1 <= args.days <= 400:
        raise CliError(f"--days: {args.days} is out of range; use 1 to 400")
    if args.export_dataset is not None and len(str(args.export_dataset).split(".")) != 2:
        raise CliError(f"--export-dataset: {args.export_dataset!r} is not PROJECT.DATASET")
    with progress.shown("report", quiet=args.quiet):
        plans = _plans(args)
        names = [str(p.get("stack") or "?") for p in plans]
        views, missing = (
            ([], dict.fromkeys(names, "not read (--no-spend)"))
            if args.no_spend
            else _spend(plans, args, now)
        )
    notes = [f"spend for {stack} not shown: {why}" for stack, why in missing.items()]
    data = ReportData(
        generated=now.strftime("%Y-%m-%d %H:%M UTC"),
        stacks=[stack_cost(p) for p in plans],
        spend=views,
        notes=notes,
        spend_missing=missing,
    )
    output = Path(args.output)
    try:
        output.write_text(render_page(data), encoding="utf-8")
    except OSError as err:
        raise CliError(f"--output: cannot write {output}: {err.strerror}") from None
    # On stderr once per cause: stacks that share the first one's missing credentials are on the
    # page (each row says why), not repeated here.
    warn(n for n in notes if not args.no_spend and "(as for " not in n)
    charts = charts_of(data)
    print(f"wrote {output}: {len(charts)} charts ({', '.join(charts)}); opens with no network")
    return Exit.OK
