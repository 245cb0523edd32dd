"""What every payload parser shares: `ParseError` and lenient readers of REST JSON.

REST JSON leaves out empty fields, so the readers treat absent, null and wrong-typed values
alike (an empty object, list or string); strictness about required fields is each parser's job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ParseError(ValueError):
    """A payload does not have the documented shape; the message says what is wrong."""


def as_obj(value: Any, what: str) -> dict[str, Any]:
    """`value` as a JSON object, or ParseError naming `what`.

    Raises:
        ParseError: `value` is not a JSON object.
    """
    if not isinstance(value, dict):
        raise ParseError(f"{what}: expected a JSON object, got {type(value).__name__}")
    return value  # pyright: ignore[reportUnknownVariableType]


def sub(obj: Mapping[str, Any], key: str) -> dict[str, Any]:
    """obj[key] if it is a JSON object, else {} (absent and null look the same in REST JSON)."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownVariableType]


def items(obj: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    """The JSON objects in the list obj[key]; anything else is ignored."""
    value = obj.get(key)
    if not isinstance(value, list):
        return []
    entries: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
    return [e for e in entries if isinstance(e, dict)]


def text(obj: Mapping[str, Any], key: str) -> str:
    """obj[key] if it is a string, else ""."""
    value = obj.get(key, "")
    return value if isinstance(value, str) else ""


def integer(value: Any) -> int:
    """An int64 field (REST JSON sends them as strings); 0 if absent or unreadable."""
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def label_map(value: Any) -> dict[str, str]:
    """A labels map as str -> str; {} if absent or not a map."""
    if not isinstance(value, dict):
        return {}
    entries: dict[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]
    return {str(k): str(v) for k, v in entries.items()}


def last_segment(path: Any) -> str:
    """The last segment of a resource URL (`.../zones/us-central1-a` -> `us-central1-a`)."""
    return str(path).rstrip("/").rsplit("/", 1)[-1] if path else ""
