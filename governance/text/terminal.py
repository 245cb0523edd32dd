r"""What the CLI prints reaches a terminal or a CI log as text, never as control sequences.

Names and values in plan documents, previews and stack exports come with pull requests. Printed
raw, `\x1b[8m` (conceal) would hide the rest of a line, `\r` would let later text overwrite a
finding, and a bidirectional override would reorder it. `SafeStream` wraps stdout and stderr for
the length of one CLI run and writes every such character as a visible escape (`\x1b`, `\r`,
`\u202e`). Line breaks and tabs pass: every output is made of lines. JSON output is unchanged:
json.dumps (ensure_ascii, as every command calls it) already writes them as `\u001b`.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Generator
from typing import TextIO, cast

# C0 controls but \t and \n, DEL and C1 controls (\x9b is a one-byte CSI), and the Unicode
# bidirectional marks, embeddings, overrides and isolates.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every control and bidirectional character written as its escape."""
    return _CONTROL.sub(_shown, text)


class SafeStream:
    """A text stream that writes `visible(text)` to the stream it wraps."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    @property
    def inner(self) -> TextIO:
        """The stream this one writes to."""
        return self._inner

    def write(self, text: str) -> int:
        """Write `text` made visible; returns len(text), as callers of write expect."""
        self._inner.write(visible(text))
        return len(text)

    def __getattr__(self, name: str) -> object:
        # flush, isatty, fileno, encoding, ...: the wrapped stream's own.
        return getattr(self._inner, name)


@contextlib.contextmanager
def safe_output() -> Generator[None]:
    """Wrap sys.stdout and sys.stderr in SafeStream while the block runs."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = cast(TextIO, SafeStream(out))
    sys.stderr = cast(TextIO, SafeStream(err))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
