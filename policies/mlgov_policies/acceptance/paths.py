"""Small readers shared by the acceptance checks: dotted paths, counts, durations, locations.

Values come from `mlgov_policies.props` readers, so unknown preview values read as UNKNOWN or
None and the checks skip them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies.props import as_list, as_number, as_str, dig, is_unknown

_DURATION = re.compile(r"(\d+(?:\.\d+)?)s")


def accelerators(
    props: Mapping[str, Any], *path: str, type_key: str = "type", count_key: str = "count"
) -> Iterator[tuple[str, str, float | None]]:
    """(path of the entry, accelerator type, count) for each known accelerator entry at `path`.

    Entries with an unknown or missing type are skipped; an unknown or missing count is None.
    """
    base = ".".join(path)
    for index, entry in enumerate(as_list(dig(props, *path))):
        kind = as_str(dig(entry, type_key))
        if not kind:
            continue
        raw = dig(entry, count_key)
        yield f"{base}[{index}]", kind, None if is_unknown(raw) else as_number(raw)


def duration_seconds(value: object) -> float | None:
    """Seconds in a protobuf Duration string (`"320s"`, `"1.5s"`), None when absent or odd."""
    text = as_str(value)
    if text is None:
        return None
    match = _DURATION.fullmatch(text.strip())
    return float(match.group(1)) if match else None
