"""The one error `spend` reports: a sentence naming the table, dataset, permission or flag.

`code` is the exit code: 2 when `spend` cannot answer because of the input (DESIGN.md contract 1:
no export, no access, bad input); 4 (the CLI's `Exit.CLOUD`, as for `jobs` and `cap`) when
BigQuery failed on its side or could not be reached, with a message that says a retry may help.
Exit 1 means a mandatory policy violation and nothing else, so `spend` never exits 1. The CLI
prints the message as one line, never a traceback.
"""

from __future__ import annotations

EXIT_UNANSWERED = 2
EXIT_BIGQUERY_FAILED = 4  # governance.tools.errors.Exit.CLOUD (not imported: spend stands alone)


class SpendError(Exception):
    """A problem `spend` cannot answer around; the message says what and how to fix it."""

    def __init__(self, message: str, code: int = EXIT_UNANSWERED) -> None:
        super().__init__(message)
        self.code = code
