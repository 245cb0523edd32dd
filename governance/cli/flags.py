"""The flags several `mlgov` commands share, and reading what they name.

Apart from main.py so that each command's module takes them without importing the parser and
every other command (which would tie all the commands into one circle through main.py).
"""

from __future__ import annotations

import argparse
from typing import Any

from governance.errors import CliError


def stack_flags(parser: argparse.ArgumentParser) -> None:
    """`--stack NAME | --config PATH`, the way every stack subcommand names its stack."""
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("-s", "--stack", help="stack name: the project's Pulumi.NAME.yaml")
    which.add_argument("--config", help="path to any Pulumi stack file")


def quiet_flag(parser: argparse.ArgumentParser) -> None:
    """Add `--quiet`: no progress spinner (it shows only on a terminal, and never in CI)."""
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress on stderr (shown only on a terminal, after 1 s; never in CI)",
    )


def partial_flag(parser: argparse.ArgumentParser) -> None:
    """Add `--partial`: judge a preview made without `--show-sames` (it is refused otherwise)."""
    parser.add_argument(
        "--partial",
        action="store_true",
        help="judge a `pulumi preview --json` made without --show-sames (only what changes): "
        "refused without this flag; the output's first line then says it is partial",
    )


def usage_file_flag(parser: argparse.ArgumentParser) -> None:
    """Add `--usage-file PATH` to a subcommand."""
    parser.add_argument(
        "--usage-file",
        metavar="PATH",
        help="YAML usage file: usage per resource name or type (docs/reference/costs.md)",
    )


def usage_file_arg(args: argparse.Namespace) -> Any:
    """The `--usage-file` given (checked; exit 2 naming each bad key), or None."""
    if not getattr(args, "usage_file", None):
        return None
    from governance.costs.usage_file import UsageFileError, load_usage_file

    try:
        return load_usage_file(args.usage_file)
    except UsageFileError as err:
        raise CliError(err.problems) from None
