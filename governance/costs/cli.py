"""The `diff` and `prices` subcommands of `python -m governance` (wired by `register`).

Handlers take the parsed argparse namespace and return an exit code: 0 ok, 2 invalid input
(missing file, bad JSON, unknown resource type, missing price), with one error line on stderr
that names the problem. `python -m governance.costs.cli ...` runs the same parser standalone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from governance.costs.errors import CostError

EXIT_OK = 0
EXIT_INVALID = 2
DEFAULT_REGIONS = ("us-central1", "europe-west4")


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_INVALID


def _read(path: str) -> dict[str, Any]:
    from governance.costs.diff import parse_plan, read_plan

    if path == "-":
        return parse_plan(sys.stdin.read(), "stdin")
    return read_plan(path)


def run_diff(args: argparse.Namespace) -> int:
    """`diff BASE HEAD`: per-resource and total monthly cost changes."""
    from governance.costs.diff import diff_plans

    try:
        result = diff_plans(_read(args.base), _read(args.head))
    except CostError as err:
        return _error(str(err))
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    elif args.markdown:
        print(result.render_markdown())
    else:
        print(result.render_text())
    return EXIT_OK


def run_prices_refresh(args: argparse.Namespace) -> int:
    """`prices refresh`: rebuild the catalog from the Cloud Billing Catalog API."""
    from governance.costs.catalog import DEFAULT_PATH, default_catalog
    from governance.costs.refresh import catalog_from_skus, fetch_skus

    regions = [r.strip() for r in str(args.regions).split(",") if r.strip()]
    if not regions:
        return _error("--regions needs at least one region, e.g. us-central1,europe-west4")
    try:
        from google.api_core.exceptions import GoogleAPICallError
        from google.auth.exceptions import DefaultCredentialsError
    except ImportError:  # pragma: no cover - the dependency is part of the project
        return _error("google-cloud-billing is not installed")
    try:
        result = catalog_from_skus(fetch_skus(args.endpoint), regions, default_catalog())
    except (GoogleAPICallError, DefaultCredentialsError) as err:
        return _error(f"Cloud Billing Catalog API: {str(err).splitlines()[0]}")
    except CostError as err:
        return _error(str(err))
    output = Path(args.output) if args.output else DEFAULT_PATH
    try:
        output.write_text(json.dumps(result.catalog.as_dict(), indent=1) + "\n", encoding="utf-8")
    except OSError as err:
        return _error(f"cannot write {output}: {err.strerror}")
    print(
        f"wrote {output}: {result.refreshed} prices from {result.skus_seen} SKUs, "
        f"{result.kept} kept from the shipped catalog (version {result.catalog.version})"
    )
    return EXIT_OK


def register(subparsers: Any) -> None:
    """Add `diff` and `prices refresh` to an argparse subparsers object."""
    diff = subparsers.add_parser(
        "diff", help="monthly cost change between two plan documents (for pull requests)"
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
        "refresh", help="rebuild the catalog from the Cloud Billing Catalog API"
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


def main(argv: list[str] | None = None) -> int:
    """Standalone entry: `python -m governance.costs.cli diff|prices ...`."""
    parser = argparse.ArgumentParser(prog="python -m governance.costs.cli")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
