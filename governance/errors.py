"""Exit codes and the one error type of the `mlgov` command, with its one message format.

Every subcommand ends with an exit code from `Exit` and reports problems as lines
`mlgov: error: <problem>` on stderr, one per problem, each naming what is wrong (a key path, a
file, a job); warnings (valid settings that do nothing) as `mlgov: warning: <key path>: <why>`.
Handlers raise `CliError`; the CLI's `main` prints it (and the domain errors it translates:
invalid settings, unpriceable plans). Anything else that escapes a handler is a bug: one line,
exit `Exit.INTERNAL`, the traceback only with `--debug` or MLGOV_DEBUG=1 (`internal_error`).
Nothing here imports anything heavy.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Iterable, Mapping
from enum import IntEnum
from typing import TextIO

PROG = "mlgov"
DEBUG_ENV = "MLGOV_DEBUG"
MAX_PROBLEM_LINES = 100
"""Most problem lines printed; a hostile file can hold a million invalid values."""


class Exit(IntEnum):
    """Exit codes (docs/architecture.md#exit-codes)."""

    OK = 0
    """Done; advisory findings allowed."""
    FAILED = 1
    """A mandatory policy violation (plan, check, comment); nothing else exits 1."""
    INVALID = 2
    """Invalid input: stack config, plan document, arguments, endpoint or credentials."""
    INTERNAL = 3
    """Unexpected: a bug in mlgov (or the Pulumi program it ran); one line, no traceback."""
    CLOUD = 4
    """A Google Cloud API refused the call or could not be reached (jobs, cap, prices; spend: 2)."""
    INTERRUPTED = 130
    """Ctrl-C (128 + SIGINT, as shells report it)."""


class CliError(Exception):
    """A problem the user can act on; `problems` are printed one per line, `code` is the exit."""

    def __init__(self, problems: str | Iterable[str], code: Exit = Exit.INVALID) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.code = code
        super().__init__("\n".join(self.problems))


def report(problems: Iterable[str], stream: TextIO | None = None) -> None:
    """Print problems in the one format every subcommand uses (at most MAX_PROBLEM_LINES)."""
    out = stream if stream is not None else sys.stderr
    lines = list(problems)
    for problem in lines[:MAX_PROBLEM_LINES]:
        print(f"{PROG}: error: {problem}", file=out)
    if len(lines) > MAX_PROBLEM_LINES:
        more = len(lines) - MAX_PROBLEM_LINES
        print(f"{PROG}: error: ... and {more:,} more problem(s) not shown", file=out)


def debug_wanted(flag: bool, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to show tracebacks: `--debug`, or MLGOV_DEBUG set to anything but 0/false/no."""
    value = (os.environ if environ is None else environ).get(DEBUG_ENV, "").strip().lower()
    return flag or value not in ("", "0", "false", "no")


def internal_error(err: BaseException, *, debug: bool, stream: TextIO | None = None) -> Exit:
    """Report an unexpected exception in one line (the traceback first with `debug`)."""
    out = stream if stream is not None else sys.stderr
    if debug:
        traceback.print_exception(err, file=out)
    lines = str(err).strip().splitlines()
    detail = f": {lines[0][:200]}" if lines else ""
    hint = "" if debug else "; run again with --debug (or MLGOV_DEBUG=1) for the traceback"
    report([f"internal error ({type(err).__name__}{detail}){hint}"], out)
    return Exit.INTERNAL


def warn(warnings: Iterable[str], stream: TextIO | None = None) -> None:
    """Print warnings (`mlgov: warning: <key path>: <why>`): valid input that does nothing."""
    out = stream if stream is not None else sys.stderr
    for warning in warnings:
        print(f"{PROG}: warning: {warning}", file=out)
