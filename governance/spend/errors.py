"""The one error `spend` reports: a sentence naming the table, dataset, permission or flag.

`code` is the exit code: 2 whenever `spend` cannot answer. DESIGN.md contract 1 fixes two codes
for `spend` (0 answered, 2 not answered), and exit 1 means a mandatory policy violation
everywhere else in the CLI, so a BigQuery server failure or an unreachable endpoint is also 2; its
message says that a retry may help. The CLI prints the message as one line, never a traceback.
"""

from __future__ import annotations

EXIT_UNANSWERED = 2
EXIT_BIGQUERY_FAILED = EXIT_UNANSWERED  # named apart: a retry may help


class SpendError(Exception):
    """A problem `spend` cannot answer around; the message says what and how to fix it."""

    def __init__(self, message: str, code: int = EXIT_UNANSWERED) -> None:
        super().__init__(message)
        self.code = code
