"""`governance_changes(base, head)`: every governed value that differs, judged by the table.

Values are read by read.py and judged by aspects.py. A value of a resource that exists on one side
only is compared when it is the resource itself (a budget, job, function or grant that comes or
goes) or, for a new resource, an `mlgov-*` label (a new exempt resource is more exemptions). A
change of the functions' policy that is the same for every governance function is listed once, as
`policy.<field>`, rather than once per function.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from governance.review.govdiff import networks
from governance.review.govdiff.aspects import ASPECTS, Aspect, judge
from governance.review.govdiff.change import GovernanceChange, Value
from governance.review.govdiff.cron import CronError, cadence
from governance.review.govdiff.read import Governed, Observed, governed

Doc = Mapping[str, Any]


def _aspect(before: Observed | None, after: Observed | None) -> Aspect:
    # A grant that is a governance identity's on either side is judged as one.
    names = [o.aspect for o in (before, after) if o is not None]
    judged = [n for n in names if ASPECTS[n].direction != "shown"]
    return ASPECTS[(judged or names)[0]]


def _why(aspect: Aspect, weakens: bool, before: Value, after: Value) -> str:
    detail = ""
    if aspect.direction == "rarer":
        try:
            old = cadence(str(before)) if before else "no schedule"
            new = cadence(str(after)) if after else "no schedule"
            detail = f" ({old} -> {new})"
        except CronError as err:
            detail = f" ({err})"
    elif aspect is ASPECTS["network.share"]:
        detail = f" ({networks.describe(before)} -> {networks.describe(after)})"
    if weakens:
        return f"{aspect.loses}{detail}"
    return f"{aspect.what}{detail}"


def _compared(base: Governed, head: Governed) -> list[tuple[str, Observed | None, Observed | None]]:
    rows: list[tuple[str, Observed | None, Observed | None]] = []
    for id_ in sorted(base.values.keys() | head.values.keys()):
        b, a = base.values.get(id_), head.values.get(id_)
        seen = a if a is not None else b
        assert seen is not None  # noqa: S101 - the id came from one of the two maps
        if seen.resource != "stack":
            in_base, in_head = seen.resource in base.resources, seen.resource in head.resources
            both = in_base and in_head
            if not (both or seen.presence or (seen.label and in_head)):
                continue
        if seen.nested and (b is None or a is None):
            continue
        if (b.value if b else None) == (a.value if a else None):
            continue
        rows.append((id_, b, a))
    return rows


def carriers(*docs: Governed) -> dict[str, frozenset[str]]:
    """For each policy field, the governance functions that carry it in every document.

    Most fields are in every function's policy; whether a dispatcher fans out (`fan_out`) is
    a field of the four dispatchers only.
    """
    sides: list[dict[str, set[str]]] = []
    for doc in docs:
        found: dict[str, set[str]] = {}
        for o in doc.values.values():
            if o.policy_field:
                found.setdefault(o.policy_field, set()).add(o.resource)
        sides.append(found)
    first, *rest = sides
    return {
        field: frozenset(holders.intersection(*(side.get(field, set()) for side in rest)))
        for field, holders in first.items()
    }


def merge_policy(
    changes: list[GovernanceChange],
    fields: Mapping[str, str],
    holders: Mapping[str, frozenset[str]],
) -> list[GovernanceChange]:
    """One `policy.<field>` change where every function carrying it changed the same way."""
    groups: dict[tuple[str, Value, Value], list[GovernanceChange]] = {}
    for c in changes:
        if field := fields.get(c.path):
            groups.setdefault((field, c.before, c.after), []).append(c)
    merged: list[GovernanceChange] = []
    dropped: set[str] = set()
    for (field, _, _), group in groups.items():
        functions = holders.get(field, frozenset())
        if len(functions) > 1 and frozenset(c.resource for c in group) == functions:
            first = group[0]
            merged.append(
                GovernanceChange(
                    first.kind,
                    f"policy.{field}",
                    first.before,
                    first.after,
                    first.weakens,
                    first.why,
                    "functions",
                )
            )
            dropped.update(c.path for c in group)
    return [c for c in changes if c.path not in dropped] + merged


def governance_changes(base: Doc, head: Doc) -> list[GovernanceChange]:
    """Every change to what governs the stack, weakening ones first, then by id."""
    old, new = governed(base), governed(head)
    changes: list[GovernanceChange] = []
    fields: dict[str, str] = {}
    for id_, b, a in _compared(old, new):
        aspect = _aspect(b, a)
        before, after = (b.value if b else None), (a.value if a else None)
        weakens = judge(aspect, before, after)
        seen = a if a is not None else b
        assert seen is not None  # noqa: S101
        changes.append(
            GovernanceChange(
                aspect.kind,
                id_,
                before,
                after,
                weakens,
                _why(aspect, weakens, before, after),
                seen.resource,
            )
        )
        if seen.policy_field:
            fields[id_] = seen.policy_field
    # The functions carrying each field on both sides: the set a merged change must cover.
    changes = merge_policy(changes, fields, carriers(old, new))
    return sorted(changes, key=lambda c: (not c.weakens, c.resource != "stack", c.path))
