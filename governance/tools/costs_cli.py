"""`mlgov diff` and `mlgov prices refresh` (wired into the CLI by `register`).

Handlers take the parsed argparse namespace and return an exit code (0 done); problems are
raised as `CliError` (exit 2: missing file, bad JSON, unknown resource type, missing price, API
error), printed by the CLI in its one format. The cost models themselves are governance/costs/.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from governance.tools.errors import CliError, Exit

DEFAULT_REGIONS = ("us-central1", "europe-west4")


def run_diff(args: argparse.Namespace) -> int:
    """`diff BASE HEAD`: per-resource and total monthly cost changes."""
    from governance.tools.diff import diff_plans
    from governance.tools.document import read_document

    result = diff_plans(read_document(args.base), read_document(args.head))
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    elif args.markdown:
        print(result.render_markdown())
    else:
        print(result.render_text())
    return Exit.OK


def run_prices_refresh(args: argparse.Namespace) -> int:
    """`prices refresh`: rebuild the catalog from the Cloud Billing Catalog API."""
    from google.api_core.exceptions import GoogleAPICallError
    from google.auth.exceptions import DefaultCredentialsError

    from governance.costs.catalog import DEFAULT_PATH, default_catalog
    from governance.costs.refresh import catalog_from_skus, fetch_skus

    regions = [r.strip() for r in str(args.regions).split(",") if r.strip()]
    if not regions:
        raise CliError("--regions needs at least one region, e.g. us-central1,europe-west4")
    try:
        result = catalog_from_skus(fetch_skus(args.endpoint), regions, default_catalog())
    except (GoogleAPICallError, DefaultCredentialsError) as err:
        raise CliError(f"Cloud Billing Catalog API: {str(err).splitlines()[0]}") from None
    output = Path(args.output) if args.output else DEFAULT_PATH
    try:
        output.write_text(json.dumps(result.catalog.as_dict(), indent=1) + "\n", encoding="utf-8")
    except OSError as err:
        raise CliError(f"cannot write {output}: {err.strerror}") from None
    print(
        f"wrote {output}: {result.refreshed} prices from {result.skus_seen} SKUs, "
        f"{result.kept} kept from the shipped catalog (version {result.catalog.version})"
    )
    return Exit.OK


def register(subparsers: Any) -> None:
    """Add `diff` and `prices refresh` to an argparse subparsers object."""
    diff = subparsers.add_parser(
        "diff",
        help="monthly cost change between two plan documents (for pull requests)",
        description="Compare the monthly cost of two plan documents, resource by resource.",
        epilog="example: mlgov diff base.json head.json --markdown",
    )
    diff.add_argument("base", help="plan document before the change (JSON; - = stdin)")
    diff.add_argument("head", help="plan document after the change (JSON)")
    fmt = diff.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="print a PR comment")
    fmt.add_argument("--json", action="store_true", help="print JSON")
    diff.set_defaults(func=run_diff)

    prices = subparsers.add_parser("prices", help="the price catalog")
    actions = prices.add_subparsers(dest="prices_command", required=True)
    refresh = actions.add_parser(
        "refresh",
        help="rebuild the catalog from the Cloud Billing Catalog API",
        epilog="example: mlgov prices refresh --regions us-central1 --output prices.json",
    )
    refresh.add_argument("--output", help="where to write (default: the shipped prices.json)")
    refresh.add_argument(
        "--endpoint", help="API base URL, e.g. http://127.0.0.1:8080 for a local fake"
    )
    refresh.add_argument(
        "--regions",
        default=",".join(DEFAULT_REGIONS),
        help="comma-separated regions to price (default: %(default)s)",
    )
    refresh.set_defaults(func=run_prices_refresh)
