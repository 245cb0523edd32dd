"""The usage assumptions a plan is priced with (`mlgov:settings.usage`, the plan's `assumptions`).

Inputs say what exists; assumptions say how much of it runs, so they move every estimate: one
line `training_pool_average_nodes: 0.01` prices a new 8 x H100 pool at almost nothing. Each
assumption is a governed value (`assumptions.<key>`, or `assumptions.<key>.<name>` for a
per-resource one): a lower figure weakens (the estimate, the budget findings and the PR headline
all shrink with it), and so does a committed-use price asked for (`commitment`). The comment also
prices the head both ways (comment.py). Pure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

Row = tuple[str, str, float | str | None, str]

# Assumptions that say where or when, not how much: shown, never judged.
_SHOWN = {"as_of", "default_region"}


def _scalar(value: object) -> float | str | None:
    if isinstance(value, bool) or value is None:
        return None if value is None else str(value)
    if isinstance(value, int | float):
        return float(value)
    return str(value)


def values(doc: Mapping[str, Any]) -> Iterator[Row]:
    """Every usage assumption the document carries, as governed values."""
    raw = doc.get("assumptions")
    if not isinstance(raw, Mapping):
        return
    for key, value in sorted(cast(Mapping[str, Any], raw).items()):
        if isinstance(value, Mapping):
            for name, each in sorted(cast(Mapping[str, Any], value).items()):
                yield f"assumptions.{key}.{name}", "usage.amount", _scalar(each), "stack"
        elif key == "commitment":
            yield f"assumptions.{key}", "usage.commitment", _scalar(value), "stack"
        else:
            aspect = "usage.shown" if key in _SHOWN else "usage.amount"
            yield f"assumptions.{key}", aspect, _scalar(value), "stack"
