"""Exit codes and the one error type of the `mlgov` command, with its one message format.

Every subcommand ends with an exit code from `Exit` and reports problems as lines
`mlgov: error: <problem>` on stderr, one per problem, each naming what is wrong (a key path, a
file, a job); warnings (valid settings that do nothing) as `mlgov: warning: <key path>: <why>`.
Handlers raise `CliError`; the CLI's `main` prints it (and the domain errors it translates:
invalid settings, unpriceable plans). Nothing here imports anything heavy.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from enum import IntEnum
from typing import TextIO

PROG = "mlgov"


class Exit(IntEnum):
    """Exit codes (DESIGN.md contract 1)."""

    OK = 0
    """Done; advisory findings allowed."""
    FAILED = 1
    """A mandatory policy violation (plan, check), or the cloud API refused (jobs)."""
    INVALID = 2
    """Invalid input: stack config, plan document, arguments, endpoint or credentials."""


class CliError(Exception):
    """A problem the user can act on; `problems` are printed one per line, `code` is the exit."""

    def __init__(self, problems: str | Iterable[str], code: Exit = Exit.INVALID) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.code = code
        super().__init__("\n".join(self.problems))


def report(problems: Iterable[str], stream: TextIO | None = None) -> None:
    """Print problems in the one format every subcommand uses."""
    out = stream if stream is not None else sys.stderr
    for problem in problems:
        print(f"{PROG}: error: {problem}", file=out)


def warn(warnings: Iterable[str], stream: TextIO | None = None) -> None:
    """Print warnings (`mlgov: warning: <key path>: <why>`): valid input that does nothing."""
    out = stream if stream is not None else sys.stderr
    for warning in warnings:
        print(f"{PROG}: warning: {warning}", file=out)
