"""How a bucket's lifecycle rules spread its bytes over storage classes, for pricing.

A bucket that deletes objects at age D and moves them to colder classes at ages t1 < t2 < D
holds, in steady state (objects written at an even rate), a share t1/D of its bytes in its own
class, (t2 - t1)/D in the first colder class, and so on. Without an age-based deletion of live
objects there is no horizon to spread over, and every byte is priced in the bucket's class.
Rules that only touch noncurrent versions or incomplete uploads do not move live bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from governance.costs.inputs import number
from mlgov_policies.props import as_list, as_str, dig

# Conditions that restrict a rule to noncurrent (archived) versions.
_NONCURRENT = ("numNewerVersions", "daysSinceNoncurrentTime", "noncurrentTimeBefore")


def _live_age(rule: Mapping[str, Any]) -> float | None:
    """The age in days at which a rule acts on live objects, or None if it does not."""
    condition = dig(rule, "condition")
    if dig(condition, "withState") == "ARCHIVED" or dig(condition, "isLive") is False:
        return None
    if any(dig(condition, key) is not None for key in _NONCURRENT):
        return None
    age = number(dig(condition, "age"), -1.0)
    return age if age > 0 else None


def class_shares(rules: Sequence[Any], own_class: str) -> tuple[list[tuple[str, float]], str]:
    """[(storage class, share of bytes)] and a line saying why, from lifecycle rules."""
    deletes: list[float] = []
    moves: list[tuple[float, str]] = []
    for rule in as_list(rules):
        age = _live_age(rule)
        action = as_str(dig(rule, "action", "type"))
        if age is None or action is None:
            continue
        if action == "Delete":
            deletes.append(age)
        elif action == "SetStorageClass" and (
            target := as_str(dig(rule, "action", "storageClass"))
        ):
            moves.append((age, target.upper()))
    if not deletes:
        return [(own_class, 1.0)], f"no age-based deletion: every byte priced as {own_class}"
    horizon = min(deletes)
    steps = sorted((age, cls) for age, cls in moves if age < horizon)
    shares: list[tuple[str, float]] = []
    start, current = 0.0, own_class
    for age, cls in steps:
        shares.append((current, (age - start) / horizon))
        start, current = age, cls
    shares.append((current, (horizon - start) / horizon))
    path = " -> ".join(f"{cls} from day {age:g}" for age, cls in steps)
    why = f"deleted at day {horizon:g}" + (f", {path}" if path else "")
    return [(cls, share) for cls, share in shares if share > 0], why
