"""The one error `spend` reports: a sentence naming the table, dataset, permission or flag.

`code` is the exit code: 2 (the default) for no export, no access or bad input (DESIGN.md
contract 1); 1 when BigQuery itself failed (a server error worth retrying). The CLI prints the
message as one line, never a traceback.
"""

from __future__ import annotations

EXIT_UNANSWERED = 2
EXIT_BIGQUERY_FAILED = 1


class SpendError(Exception):
    """A problem `spend` cannot answer around; the message says what and how to fix it."""

    def __init__(self, message: str, code: int = EXIT_UNANSWERED) -> None:
        super().__init__(message)
        self.code = code
