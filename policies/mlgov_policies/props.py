"""Safe readers for resource input properties as CrossGuard and Pulumi mocks present them.

Inputs are camelCase JSON-like trees. During a real preview some values are unknown: CrossGuard
marks them with sentinel strings (the pulumi_policy.proxy UNKNOWN_* constants, copied here so this
module stays pure). Readers return `UNKNOWN` for those so rules can skip instead of raising. Numbers
may arrive as floats or as strings (int64 fields such as `defaultTableExpirationMs`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

# Same values as pulumi_policy.proxy.UNKNOWN_*_VALUE; tests/policies pin them to the package.
UNKNOWN_SENTINELS: Final = frozenset(
    {
        "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",  # boolean
        "3eeb2bf0-c639-47a8-9e75-3b44932eb421",  # number
        "04da6b54-80e4-46f7-96ec-b56ff0331ba9",  # string
        "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",  # array
        "030794c1-ac77-496b-92df-f27374a8bd58",  # asset
        "e48ece36-62e2-4504-bad9-02848725956a",  # archive
        "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",  # object
    }
)


class _Unknown:
    """The type of `UNKNOWN`: a value that is not known until the resource is created."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = _Unknown()


def is_unknown(value: object) -> bool:
    """True for an unknown sentinel string or the `UNKNOWN` marker."""
    return value is UNKNOWN or (isinstance(value, str) and value in UNKNOWN_SENTINELS)


def dig(props: object, *path: str) -> Any:
    """Value at `path`, None when any step is missing or not a map, `UNKNOWN` when unknown."""
    current: object = props
    for key in path:
        if is_unknown(current):
            return UNKNOWN
        if not isinstance(current, Mapping):
            return None
        current = cast(Mapping[str, Any], current).get(key)
    return UNKNOWN if is_unknown(current) else current


def as_mapping(value: object) -> Mapping[str, Any]:
    """The value if it is a map, else an empty map (unknown maps read as empty)."""
    if isinstance(value, Mapping):
        return cast(Mapping[str, Any], value)
    return {}


def as_list(value: object) -> list[Any]:
    """The value if it is a list (not a string), else an empty list; unknown items stay unknown."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [UNKNOWN if is_unknown(item) else item for item in cast(Sequence[Any], value)]
    return []


def as_bool(value: object) -> bool | None:
    """True/False for booleans and "true"/"false" strings; None when absent, unknown or odd."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def as_number(value: object) -> float | None:
    """A float for numbers and numeric strings; None when absent, unknown or not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and not is_unknown(value):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def as_str(value: object) -> str | None:
    """The value if it is a known string, else None."""
    if isinstance(value, str) and not is_unknown(value):
        return value
    return None
