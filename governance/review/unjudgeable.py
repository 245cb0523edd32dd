"""What cannot be judged is refused: exit 2, one line naming it, and nothing priced.

A plan, preview or stack export that mlgov would otherwise price and check is refused whole when:

- it holds no Google Cloud resource (an AWS-only preview would read "$0.00/month, OK");
- it is a preview without its `same` steps (`pulumi preview --json` without `--show-sames`), so
  its totals, budgets and stack-wide rules would see a fragment, unless `partial` (the
  `--partial` flag) says to judge only what changes;
- a size or count is outside what Google's APIs accept: negative, not a whole number, beyond a
  64-bit integer, or not finite (any number anywhere beyond 2^64 is refused too: no Google API
  field holds one), each named by its key path;
- a governance function is left below its working minimum (govdiff/time_budgets.py).

`problems(doc, source, partial)` lists every such problem, one line each; the readers
(document.py) and `plan` raise them as CliError. Pure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from governance.review.govdiff.time_budgets import refusals
from mlgov_policies.vocabulary import is_component

GOOGLE = "gcp:"
INT64_MAX = 2**63 - 1
ANY_FIELD_MAX = 2**64
"""Above this no Google API field holds a number (uint64 is the widest integer type)."""
_NAMES_SHOWN = 3
# Input keys that hold a size or a count: whole, non-negative numbers in every Google API
# (int32/int64 in the discovery documents: disks.size, diskSizeGb, nodeCount, accelerator
# count, replicas, provisioned IOPS and throughput, ...).
_SIZE_OR_COUNT = re.compile(
    r"(?i)^(size|sizegb|disksize|disksizegb|bootdisksizegb|memorysizegb|.*count|.*nodes|"
    r"provisionediops|provisionedthroughput|.*replicas)$"
)


def _number(value: object) -> float | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _walk(node: Any, path: str) -> Iterator[tuple[str, str, Any]]:
    """(path, last key, value) of every leaf under `node`."""
    if isinstance(node, Mapping):
        for key, value in cast(Mapping[str, Any], node).items():
            yield from (
                _walk(value, f"{path}.{key}")
                if isinstance(value, Mapping | list)
                else [(f"{path}.{key}", str(key), value)]
            )
    elif isinstance(node, list):
        for i, value in enumerate(cast(list[Any], node)):
            inner = f"{path}[{i}]"
            yield from (
                _walk(value, inner)
                if isinstance(value, Mapping | list)
                else [(inner, path.rsplit(".", 1)[-1], value)]
            )


def _number_problem(key: str, value: object) -> str | None:
    sized = bool(_SIZE_OR_COUNT.match(key))
    number = _number(value) if sized or not isinstance(value, str) else None
    if number is None:
        return None
    shown = f"{value!r}" if isinstance(value, str) else _shown(number)
    if isinstance(number, float) and not math.isfinite(number):
        return f"{shown} is not a finite number"
    if abs(number) > ANY_FIELD_MAX:
        return f"{shown} is larger than any Google Cloud API field holds"
    if not sized:
        return None
    if number < 0:
        return f"{shown} is negative: a size or count cannot be"
    if number != math.floor(number):
        return f"{shown} is not a whole number: the API takes a whole size or count"
    if number > INT64_MAX:
        return f"{shown} is beyond the API's 64-bit integer"
    return None


def _shown(number: float | int) -> str:
    text = f"{number:g}" if isinstance(number, float) else str(number)
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} digits)"


def number_problems(resources: Sequence[Mapping[str, Any]], source: str) -> list[str]:
    """Each size or count outside what the API accepts, and each number no API field holds."""
    found: list[str] = []
    for i, r in enumerate(resources):
        where = f"{source}resources[{i}] ({r.get('name')}).inputs"
        for path, key, value in _walk(r.get("inputs"), where):
            if (why := _number_problem(key, value)) is not None:
                found.append(f"{path}: {why}")
    return found


def _google_problems(resources: Sequence[Mapping[str, Any]], source: str) -> list[str]:
    types = [str(r.get("type")) for r in resources if not is_component(str(r.get("type")))]
    if any(t.startswith(GOOGLE) for t in types):
        return []
    others = sorted(set(types))
    listed = ", ".join(others[:_NAMES_SHOWN]) + (", ..." if len(others) > _NAMES_SHOWN else "")
    held = f"{len(types)} resource(s), none of Google Cloud ({listed})" if types else "no resource"
    return [
        f"{source}no Google Cloud resource to judge ({held}): mlgov prices and checks Google "
        "Cloud resources only, so nothing was priced"
    ]


def problems(
    doc: Mapping[str, Any], source: str = "", partial: bool = False, require_google: bool = True
) -> list[str]:
    """Every reason the plan cannot be judged (empty: it can).

    `require_google=False` for the side before a change (a base may hold nothing yet).
    """
    where = f"{source}: " if source else ""
    raw: Any = doc.get("resources") or []
    resources = [cast(Mapping[str, Any], r) for r in cast(list[Any], raw) if isinstance(r, Mapping)]
    found = _google_problems(resources, where) if require_google else []
    omitted = cast(Mapping[str, Any], doc.get("source") or {}).get("omitted_sames")
    if isinstance(omitted, int) and omitted > 0 and not partial:
        found.append(
            f"{where}a preview without its unchanged resources ({omitted} `same` step(s) counted "
            "in changeSummary but not listed): its totals, budgets and stack-wide rules would "
            "judge a fragment; run `pulumi preview --json --show-sames`, or pass --partial to "
            "judge only what changes"
        )
    found += number_problems(resources, where)
    found += [f"{where}{line}" for line in refusals(resources)]
    return found


def partial_note(doc: Mapping[str, Any]) -> str | None:
    """The line a --partial judgement starts with, or None when the plan is whole."""
    omitted = cast(Mapping[str, Any], doc.get("source") or {}).get("omitted_sames")
    if not isinstance(omitted, int) or omitted <= 0:
        return None
    return (
        f"PARTIAL (--partial): this preview lists only what changes; {omitted} unchanged "
        "resource(s) are not in its totals, budgets or stack-wide rules"
    )
