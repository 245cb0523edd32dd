"""Markdown that shows untrusted text as text: names, keys and values from stacks and plans.

A PR can put anything in a stack file (a notebook named `# Heading`, an owner `@org/admins`, a
value `<img src=...>`), and the comment renders as GitHub Markdown. `text` backslash-escapes the
punctuation of inline Markdown (CommonMark lets any ASCII punctuation be escaped, so no emphasis,
link, image, table pipe or HTML survives), and breaks what GitHub links after rendering:
`@mentions` (which notify people), `#123` references and bare URLs, with a zero-width space.
Characters that mean something only at the start of a line are escaped only there, so
`notebooks-oncall` stays readable in the raw text. `code` shows a value as inline code (where
GitHub renders no Markdown, HTML or mentions), with a backtick fence longer than any run inside
it. `fence` does the same for a block. All three drop line breaks and replace control and
bidirectional-override characters, so a value cannot start a new line or reorder the text around
it.
"""

from __future__ import annotations

import re
import string
import unicodedata

ZWSP = "&#8203;"  # zero-width space, as an entity so it survives editors and copy-paste checks
ELLIPSIS = "…"
_PUNCTUATION = frozenset(string.punctuation)
# Inline syntax anywhere in a line: code, emphasis, links and images, HTML and entities, table
# pipes, strikethrough, math ($), emoji shortcodes (:x:), footnotes (^). Characters that only
# mean something at the start of a line (`-`, `+`, `.`, `=`, `>`) are escaped there only.
_ALWAYS = "\\`*_[](){}<>!&|~$:^"
# `\@` still renders "@owner", which GitHub then links: break the word instead (also `#123`).
_TABLE = str.maketrans({**{ch: "\\" + ch for ch in _ALWAYS}, "@": "@" + ZWSP, "#": "#" + ZWSP})
_ORDERED_LIST = re.compile(r"^(\d{1,9})([.)])")  # `1. ` would start an ordered list
# The escaped forms of `://` and `www.`, where GitHub's autolinker would start a link.
_LINK_STARTS = re.compile(r"(?i)(\\:)(//)|(www)(\.)")


def _clean(value: object, limit: int | None) -> str:
    """One line of printable text, at most `limit` characters (then an ellipsis)."""
    raw = str(value)
    if not (raw.isascii() and raw.isprintable()):  # the common case needs no character loop
        raw = "".join(_clean_char(ch) for ch in raw)
    if limit is not None and len(raw) > limit:
        raw = raw[: max(limit - 1, 0)] + ELLIPSIS
    return raw


def _clean_char(ch: str) -> str:
    if ch in "\r\n\t\v\f\u2028\u2029\x85":
        return " "
    if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs"):
        return "\ufffd"  # control, format (bidi overrides, zero-width), private use
    return ch


def text(value: object, limit: int | None = None) -> str:
    """`value` as literal Markdown text: safe in a paragraph, a heading or a table cell."""
    cleaned = _clean(value, limit)
    if not cleaned:
        return ""
    first = cleaned[0]
    # Anything at the start of a line may open a block (list, quote, heading): escape it there.
    head = "\\" + first if first in _PUNCTUATION and first not in "@#" else first.translate(_TABLE)
    joined = _ORDERED_LIST.sub(r"\1\\\2", head + cleaned[1:].translate(_TABLE), count=1)
    # Bare URLs and www. hosts are autolinked after escapes are resolved: break the pattern.
    return _LINK_STARTS.sub(_break_link, joined)


def _break_link(match: re.Match[str]) -> str:
    first, second = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
    return f"{first}{ZWSP}{second}"


def code(value: object, limit: int | None = None, *, table: bool = True) -> str:
    """`value` as inline code; `table`: escape `|` the way GFM tables need inside code."""
    body = _clean(value, limit)
    if table:
        body = body.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def fence(block: str, limit: int = 4000) -> list[str]:
    """Lines of a fenced code block showing `block` verbatim (control characters replaced)."""
    lines = [_clean(line, 500) for line in block.strip("\n").splitlines()]
    shown = "\n".join(lines)
    if len(shown) > limit:
        shown = shown[: limit - 1] + ELLIPSIS
    longest = max((len(run) for run in re.findall(r"`{3,}", shown)), default=2)
    ticks = "`" * max(3, longest + 1)
    return [ticks, *shown.splitlines(), ticks]
