"""The usage assumptions behind a plan's quantities, as text for `--explain` and the PR comment.

A cost line's quantity comes from the resource's inputs where they say it (a disk's size) and
otherwise from a usage assumption (hours a notebook runs, GiB a bucket holds, calls a function
gets): `mlgov:settings.usage`, carried by the plan document as `"assumptions"`. Without this a
reader sees "100 GiB-months" and cannot tell where 100 came from. Pure: a document in, lines out;
the assumptions themselves are governance/costs/assumptions.py's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from mlgov_policies.props import as_mapping

REFERENCE = "docs/reference/costs.md#usage-assumptions"


def shown(value: Any) -> str:
    """An assumption's value as a reader writes it: 60 not 60.0, {name: 100} not a repr."""
    if isinstance(value, dict):
        items = cast(dict[str, Any], value).items()
        return "{" + ", ".join(f"{k}: {shown(v)}" for k, v in items) + "}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _defaults() -> dict[str, Any]:
    from governance.costs.assumptions import UsageAssumptions

    return UsageAssumptions().model_dump(mode="json")


def assumptions(doc: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(`key value` set by the stack, `key value` left at mlgov's default), in documented order.

    Keys without a value (no expiry date, no per-resource overrides) are left out: they change
    no quantity.
    """
    given = as_mapping(doc.get("assumptions"))
    chosen: list[str] = []
    default: list[str] = []
    for key, fallback in _defaults().items():
        value = given.get(key, fallback)
        if value is None or value == {}:
            continue
        (default if value == fallback else chosen).append(f"{key} {shown(value)}")
    return chosen, default


def usage_file_text(doc: Mapping[str, Any]) -> str:
    """Which usage file priced the usage-based parts, or that none did."""
    source = as_mapping(doc.get("cost")).get("usage_file")
    if source:
        return f"usage file: {source} (what it declares wins over the assumptions for a resource)"
    return (
        "usage file: none: each `depends on usage` part (egress, operations, queries) "
        "is left out of the total; `--usage-file PATH` prices them"
    )
