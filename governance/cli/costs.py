"""`mlgov diff`, `mlgov comment` and `mlgov prices refresh` (wired into the CLI by `register`).

`diff` and `comment` read plans through document.py in every format it reads (mlgov's own plan
document, `pulumi preview --json`, `pulumi stack export`); a preview alone is its own change.
Both take `--usage-file` (the usage both sides are priced with) and `--policy-config` (the
levels and settings Pulumi files are checked with, policy_scope.py; for `diff`, the environment
of a Pulumi file for the governance review).

Handlers take the parsed argparse namespace and return an exit code (0 done, 1 a blocking
finding: a mandatory policy finding or an unacknowledged prod weakening); problems are raised as
`CliError` (exit 2: missing file, bad JSON, unknown resource type, missing price, no credentials;
exit 4: the Catalog API refused, failed or did not answer), printed by the CLI in its one format.
The cost models themselves are governance/costs/.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from governance.endpoints import needs_google
from governance.errors import CliError, Exit

if TYPE_CHECKING:
    from governance.costs.usage_file import UsageFile
    from governance.inputs.document import PlanDocument
    from governance.inputs.plan_input import PlanInput
    from governance.review.comment import StackPlans
    from governance.review.judge.approvals import CodeReview
    from mlgov_policies.pack_config import PackConfig

NO_BASE = "none"  # `comment`'s BASE when the PR base could not be planned


def run_diff(args: argparse.Namespace) -> int:
    """`diff BASE HEAD`, or `diff PREVIEW`: cost and governance changes.

    Exit 1 when a prod stack loses governance without an acknowledgement, or when the monthly
    estimate rises past the stack's cost guardrail (review/guardrail.py).
    """
    from governance.cli.flags import usage_file_arg
    from governance.review import guardrail
    from governance.review.diff import diff_plans
    from governance.review.govdiff import render as govrender
    from governance.review.govdiff import review
    from governance.review.policy_config import policy_config_arg

    usage = usage_file_arg(args)
    pack = policy_config_arg(args)
    if args.head is None:
        base, head = _own_change(args.base, args.partial)
    else:
        base = _read(args.base, args.partial, base=True).plan
        head = _read(args.head, args.partial).plan
    if pack is not None:
        _stack_environment(base, pack)
        _stack_environment(head, pack)
    result = diff_plans(base, head, usage_file=usage)
    governance = review(base, head)
    guarded = guardrail.judged(result, base, head)
    if args.json:
        print(
            json.dumps(
                {**result.as_dict(), "governance": governance.as_dict(), "guardrail": guarded},
                indent=2,
            )
        )
    elif args.markdown:
        # The heading first: the governance sections follow the cost they are part of.
        blocks = [
            *guardrail.markdown_lines(guarded),
            *govrender.weakened_markdown(governance),
            *govrender.stale_markdown(governance),
            *govrender.other_markdown(governance),
        ]
        print("\n".join([result.render_markdown(), *(["", *blocks] if blocks else [])]))
    else:
        lines = [result.render_text(), *guardrail.text_lines(guarded)]
        print("\n".join([*lines, *govrender.text_lines(governance)]))
    return Exit.FAILED if governance.blocking or guarded else Exit.OK


def _warn(read: PlanInput) -> None:
    """Print a Pulumi file's warnings on stderr.

    (A plan document's own warnings are about its stack's settings, which `plan` printed.)
    """
    from governance.errors import warn

    if read.converted:
        warnings: list[dict[str, str]] = read.plan.get("warnings") or []
        warn(f"{w['key']}: {w['message']}" for w in warnings)


def _read(path: str, partial: bool = False, base: bool = False) -> PlanInput:
    """A plan in any format document.py reads; refused when it cannot be judged."""
    from governance.inputs.document import read_judged

    read = read_judged(path, partial, base)
    _warn(read)
    return read


def _own_change(path: str, partial: bool = False) -> tuple[PlanDocument, PlanDocument]:
    """(before, after) of a file that carries its own change: a `pulumi preview --json`."""
    from governance.inputs.document import read_judged

    read = read_judged(path, partial)
    if read.before is None:
        raise CliError(
            f"{path}: diff of one file needs a `pulumi preview --json` (it holds its own before "
            f"and after); this is a {read.format}: give two, `mlgov diff BASE HEAD`"
        )
    _warn(read)
    return read.before, read.plan


def _stack_environment(doc: PlanDocument, pack: PackConfig) -> None:
    """Record in a Pulumi file's plan the environment `pack` gives it (for the review)."""
    from governance.review.policy_scope import OTHER, record, scope_of

    scope = scope_of(doc, pack)
    if scope.program == OTHER:
        record(doc, scope)


def _evaluated(
    read: PlanInput,
    usage: UsageFile | None = None,
    pack: PackConfig | None = None,
    force: bool = False,
) -> PlanDocument:
    """The plan to show: a Pulumi file's is evaluated here.

    mlgov's own plans carry their costs and findings; they are evaluated again only when a
    `--usage-file` or `--policy-config` asks for other usage or other policies, or when `force`
    (`--untrusted-head`): findings and costs a PR's own code wrote are never read, only its
    resources, settings and assumptions.
    """
    from governance.review.plan import evaluate_document

    if force or read.converted or usage is not None or pack is not None:
        return evaluate_document(read.plan, usage, policy_config=pack)
    return read.plan


def run_comment(args: argparse.Namespace) -> int:
    """`comment --stack NAME BASE HEAD ...`: the pull-request comment (Markdown) on stdout.

    Exit 1 when a stack blocks the PR (a mandatory finding, a prod weakening nobody acknowledged,
    a plan that failed), after printing the whole comment. `--post github` also creates or
    updates the PR's mlgov comment (cli/post.py); `--body-file` posts one rendered earlier.
    """
    from governance.cli import post as posting
    from governance.cli.flags import usage_file_arg
    from governance.inputs.project import read_source
    from governance.review.comment import BASE_FAILED, REFUSED, StackPlans, build_comment
    from governance.review.plan import evaluate_document
    from governance.review.policy_config import policy_config_arg

    if (rendered := posting.body_file(args)) is not None:
        posting.post(args, rendered)  # a comment rendered earlier (the judge workflow's)
        return Exit.OK
    usage = usage_file_arg(args)
    pack = policy_config_arg(args)
    partial: bool = args.partial
    untrusted: bool = args.untrusted_head
    triples: list[list[str]] = args.stack or []
    failed: list[list[str]] = args.failed or []
    base_failed: list[list[str]] = args.base_failed or []
    previews: list[list[str]] = args.preview or []
    if not (triples or failed or base_failed or previews):
        raise CliError(
            "comment needs at least one --stack NAME BASE HEAD, --preview NAME FILE, "
            "--failed NAME FILE or --base-failed NAME FILE"
        )
    plans: list[StackPlans] = []
    refused = False
    for stack, base, head in triples:
        # A stack whose plan cannot be judged is refused on its own (named, blocking); the
        # others are still shown, and the exit code is 2.
        try:
            head_doc = _evaluated(_read(head, partial), usage, pack, force=untrusted)
            base_doc = (
                None if base == NO_BASE else _evaluated(_read(base, partial, True), usage, pack)
            )
            plans.append(StackPlans(stack, head_doc, base_doc))
        except CliError as err:
            refused = True
            plans.append(_refused(stack, err))
    for stack, path in previews:
        try:
            before, after = _own_change(path, partial)
            plans.append(
                StackPlans(
                    stack,
                    evaluate_document(after, usage, policy_config=pack),
                    evaluate_document(before, usage, policy_config=pack),
                )
            )
        except CliError as err:
            refused = True
            plans.append(_refused(stack, err))
    for stack, path in failed:
        message, _ = read_source(path)
        plans.append(StackPlans(stack, {"stack": stack, "resources": []}, error=message))
    for stack, path in base_failed:
        message, _ = read_source(path)
        plans.append(
            StackPlans(stack, {"stack": stack, "resources": []}, error=message, failed=BASE_FAILED)
        )
    comment = build_comment(plans, args.report_url, code=_code_review(args))
    if args.full_report:
        try:
            Path(args.full_report).write_text(comment.full, encoding="utf-8")
        except OSError as err:
            raise CliError(f"cannot write {args.full_report}: {err.strerror}") from None
    print(comment.text, end="")
    if args.post:
        posting.post(args, comment.text)
    if refused:
        # Each refusal on stderr too, one line each, as every other command reports exit 2.
        from governance.errors import report

        report([line for p in plans if p.failed == REFUSED for line in p.error.splitlines()])
        return Exit.INVALID
    return Exit.FAILED if comment.blocking else Exit.OK


def _refused(stack: str, err: CliError) -> StackPlans:
    from governance.review.comment import REFUSED, StackPlans

    message = "\n".join(err.problems)
    return StackPlans(stack, {"stack": stack, "resources": []}, error=message, failed=REFUSED)


def _code_review(args: argparse.Namespace) -> CodeReview | None:
    """The judge's review of the changed files that decide governance (`--changed-files`)."""
    if not args.changed_files:
        return None
    from governance.cli.judge import code_review

    return code_review(args.changed_files, args.approvals)


def run_prices_refresh(args: argparse.Namespace) -> int:
    """`prices refresh`: fill what the export lacks, in every region, from the Catalog API."""
    from google.api_core.exceptions import GoogleAPICallError
    from google.auth.exceptions import DefaultCredentialsError, RefreshError

    from governance.costs.catalog import DEFAULT_PATH, Catalog
    from governance.costs.catalog_build.build import render_document
    from governance.costs.catalog_build.jsonfile import read_json_object
    from governance.costs.errors import CatalogError
    from governance.costs.refresh import fetch_skus, refresh_document
    from governance.deadlines import (
        Endpoint,
        credentials_refused,
        no_answer,
        unreachable,
        waiting,
    )

    source = Path(args.catalog) if args.catalog else DEFAULT_PATH
    shipped = read_json_object(source, CatalogError, "price catalog")
    Catalog(shipped, origin=str(source))  # a bad input file is exit 2 before any API call
    where = Endpoint("cloudbilling", args.endpoint, "--endpoint", from_env=False)
    # Reading every SKU takes a while on the real API: progress on stderr every few seconds.
    with waiting(f"{where.where}: reading SKUs") as wait:
        try:
            result = refresh_document(shipped, fetch_skus(args.endpoint, wait.saw))
        except no_answer() as err:
            raise CliError(unreachable(where, err, wait.elapsed), Exit.CLOUD) from None
        except DefaultCredentialsError:  # no credentials: the caller's input, exit 2
            raise CliError(
                "no Google credentials for the Cloud Billing Catalog API: run `gcloud auth "
                "application-default login` (or set GOOGLE_APPLICATION_CREDENTIALS, or pass "
                "--endpoint for a local server)"
            ) from None
        except RefreshError as err:  # the token endpoint refused them (an expired login)
            raise CliError(credentials_refused(err), Exit.CLOUD) from None
        except GoogleAPICallError as err:  # the API refused or failed: exit 4
            raise CliError(
                f"Cloud Billing Catalog API: {str(err).splitlines()[0]}", Exit.CLOUD
            ) from None
    output = Path(args.output) if args.output else source
    try:
        output.write_text(render_document(result.document), encoding="utf-8")
    except OSError as err:
        raise CliError(f"cannot write {output}: {err.strerror}") from None
    print(
        f"wrote {output}: {len(result.refreshed)} price series from {result.skus_seen} SKUs "
        f"(refreshed {result.document['refreshed']}); the export's prices keep their date "
        f"{result.document['generated']}"
    )
    if result.kept:
        print(
            f"{len(result.kept)} series the API did not answer keep their shipped figure: "
            + ", ".join(f"{key} ({usage})" for key, usage in result.kept)
        )
    return Exit.OK


def register(subparsers: Any) -> None:
    """Add `diff`, `comment` and `prices refresh` to an argparse subparsers object."""
    from governance.cli.flags import partial_flag, usage_file_flag
    from governance.cli.post import add_flags as add_post_flags
    from governance.review.policy_config import policy_config_flag
    from governance.text.docs_links import DEFAULT_DOCS_URL, DOCS_URL_ENV

    diff = subparsers.add_parser(
        "diff",
        help="cost and governance changes between two plans, or of one pulumi preview (PRs)",
        description="Compare two plans: monthly cost resource by resource, and every change\n"
        "to what governs the stack (policy, budgets, limits, labels, schedules, IAM, project\n"
        "and account), weakening ones first. A plan is an mlgov plan document, `pulumi\n"
        "preview --json` output or a `pulumi stack export`; one preview alone is its own\n"
        "before and after. Exit 1 when a prod stack weakens governance without an\n"
        "acknowledgement.",
        epilog="examples:\n  mlgov diff base.json head.json --markdown\n"
        "  pulumi preview --json > preview.json && mlgov diff preview.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    diff.add_argument("base", help="plan before the change, or one preview (JSON; - = stdin)")
    diff.add_argument("head", nargs="?", help="plan after the change (JSON)")
    fmt = diff.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="print a PR comment")
    fmt.add_argument("--json", action="store_true", help="print JSON")
    usage_file_flag(diff)
    partial_flag(diff)
    policy_config_flag(diff)
    diff.set_defaults(func=run_diff)

    comment = subparsers.add_parser(
        "comment",
        help="the pull-request comment: governance changes, findings and cost diffs of stacks",
        description="Render the Markdown comment the PR job posts (and updates in place): for "
        "each stack whose governance, cost or findings change, or that blocks the PR, the "
        "weakened governance, the findings, the other governance changes, the cost diff, the "
        "resources (free ones folded) and the catalog date. It fits GitHub's 65,536 characters "
        "by folding details. Exit 1 when a stack blocks the PR (mandatory finding, unacknowledged "
        "prod weakening, failed plan).",
        epilog="example: mlgov comment --stack dev base-dev.json head-dev.json "
        "--stack prod none head-prod.json",
    )
    comment.add_argument(
        "-s",
        "--stack",
        nargs=3,
        action="append",
        metavar=("NAME", "BASE", "HEAD"),
        help=f"a stack and its plan documents at the PR base and head ({NO_BASE!r}: no base)",
    )
    comment.add_argument(
        "--failed",
        nargs=2,
        action="append",
        metavar=("NAME", "FILE"),
        help="a stack whose plan failed at the head, and the file holding its error output",
    )
    comment.add_argument(
        "--base-failed",
        nargs=2,
        action="append",
        metavar=("NAME", "FILE"),
        help="a stack whose plan failed at the PR base, and its error output (it blocks)",
    )
    comment.add_argument(
        "--untrusted-head",
        action="store_true",
        help="evaluate every head plan again (findings and costs) rather than read what it "
        "carries: for plans the PR's own code produced",
    )
    comment.add_argument(
        "--changed-files",
        metavar="FILE",
        help="the files the PR changes (`git diff --name-only -z`): each one that decides "
        "governance is listed, and in prod blocks until an owner approves it",
    )
    comment.add_argument(
        "--approvals",
        metavar="FILE",
        help="the PR's review state (`mlgov approvals`), for --changed-files",
    )
    comment.add_argument(
        "--preview",
        nargs=2,
        action="append",
        metavar=("NAME", "FILE"),
        help="a stack and its `pulumi preview --json` output (its own base and head)",
    )
    comment.add_argument(
        "--full-report",
        metavar="FILE",
        help="also write the unfolded report (every resource, finding and change) to FILE",
    )
    comment.add_argument(
        "--docs-url",
        metavar="URL",
        help=f"the mlgov docs site the comment links to (default: {DOCS_URL_ENV}, else "
        f"mlgov's published site, {DEFAULT_DOCS_URL})",
    )
    comment.add_argument(
        "--report-url",
        metavar="URL",
        help="https link to the full report (the workflow artifact), shown in the comment",
    )
    usage_file_flag(comment)
    partial_flag(comment)
    policy_config_flag(comment)
    add_post_flags(comment)
    comment.set_defaults(func=run_comment)

    prices = subparsers.add_parser(
        "prices",
        help="the price catalog",
        description="The price catalog mlgov's estimates use.",
        epilog="example: mlgov prices refresh --output prices_regional.json",
    )
    actions = prices.add_subparsers(
        dest="prices_command", metavar="SUBCOMMAND", title="subcommands", required=True
    )
    refresh = actions.add_parser(
        "refresh",
        help="fill GPU, TPU, Cloud SQL, BigQuery, GKE, Workbench, Functions, Pub/Sub and "
        "Scheduler prices for every region from the Cloud Billing Catalog API",
        description="Fill the price catalog from the Cloud Billing Catalog API. "
        + needs_google("--endpoint"),
        epilog="example: mlgov prices refresh --output prices_regional.json",
    )
    refresh.add_argument(
        "--catalog", help="catalog to start from (default: the shipped prices_regional.json)"
    )
    refresh.add_argument("--output", help="where to write (default: the --catalog file)")
    refresh.add_argument(
        "--endpoint", help="API base URL, e.g. http://127.0.0.1:8080 for a local fake"
    )
    refresh.set_defaults(func=run_prices_refresh)
