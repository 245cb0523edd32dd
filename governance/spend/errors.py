"""The one error `spend` reports: a sentence naming the table, dataset, permission or flag.

`code` is the exit code. docs/architecture.md#exit-codes fixes two for `spend`: 0 answered, 2 not
answered (no export, no access, bad input). BigQuery failing on its side or not answering at all is
"not answered" too, so it is 2 as well (unlike `jobs`, `cap` and `prices`, which use the CLI's exit
4 for a cloud failure), with a message that names the endpoint and says a retry may help. Exit 1
means a mandatory policy violation and nothing else, so `spend` never exits 1. The CLI prints the
message as one line, never a traceback.
"""

from __future__ import annotations

EXIT_UNANSWERED = 2
# spend exits 0 or 2 (docs/architecture.md#exit-codes); a retry may help: the message says so
EXIT_BIGQUERY_FAILED = 2


class SpendError(Exception):
    """A problem `spend` cannot answer around; the message says what and how to fix it."""

    def __init__(self, message: str, code: int = EXIT_UNANSWERED) -> None:
        super().__init__(message)
        self.code = code
