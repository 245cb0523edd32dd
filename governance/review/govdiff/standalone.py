"""A new stack, judged on its own: what it gives up against what every stack starts with.

A stack file the PR adds has no base plan to compare with, so a diff would list nothing: a new
prod stack could ship with its functions in dry run, an exempt 8 x H100 pool, no budget and no
automation, and read as a plain cost. `standalone_changes(head)` compares the new stack with
the governance every stack is held to: functions that act (`dry_run` false), no exemptions, the
governance functions and a budget present, no paused job, every rule at its own level, the
budget rule on, and no lookalike labels. Each departure is a weakening change with the id an
acknowledgement names; review.py's prod rule makes it mandatory in a prod stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from governance.review.govdiff.aspects import ASPECTS, judge
from governance.review.govdiff.change import GovernanceChange, Value
from governance.review.govdiff.compare import carriers, merge_policy
from governance.review.govdiff.read import NO_LEVEL, governed
from mlgov_policies.registry import ALL_RULES

NEW = "new stack"

# What every stack starts with, per aspect (None: the value must be absent).
_BASELINE: Mapping[str, Value] = {
    "policy.dry_run": False,
    "label.exempt": None,
    "schedule.paused": False,
    "limits.budget_required": True,
    "rule.finding_level": NO_LEVEL,
    "label.lookalike": None,
    "network.google_ranges": False,
}


def _baseline(id_: str, aspect: str) -> tuple[bool, Value]:
    if aspect == "rule.level":
        rule = ALL_RULES.get(id_.removeprefix("rules."))
        return (rule is not None, rule.enforcement if rule is not None else None)
    return (aspect in _BASELINE, _BASELINE.get(aspect))


def standalone_changes(head: Mapping[str, Any]) -> list[GovernanceChange]:
    """Every way a new stack's plan gives up governance a stack starts with, as weakenings."""
    found = governed(head)
    changes: list[GovernanceChange] = []
    fields: dict[str, str] = {}
    for id_, seen in sorted(found.values.items()):
        judged, baseline = _baseline(id_, seen.aspect)
        if not judged:
            continue
        aspect = ASPECTS[seen.aspect]
        if judge(aspect, baseline, seen.value):
            changes.append(
                GovernanceChange(
                    aspect.kind, id_, baseline, seen.value, True, f"{NEW}: {aspect.loses}",
                    seen.resource,
                )
            )  # fmt: skip
            if seen.policy_field:
                fields[id_] = seen.policy_field
    # The same departure in every governance function is one `policy.<field>` change.
    changes = merge_policy(changes, fields, carriers(found))
    aspects = {o.aspect for o in found.values.values()}
    if "policy.function" not in aspects:
        changes.append(
            GovernanceChange(
                "policy", "stack.governance_functions", "required", None, True,
                f"{NEW} without mlgov's governance functions (automation disabled): nothing stops "
                "idle, expired or over-budget workloads",
            )
        )  # fmt: skip
    if "budget.presence" not in aspects:
        changes.append(
            GovernanceChange(
                "budget", "stack.budget", "required", None, True,
                f"{NEW} without a budget: nobody hears about overspend, and the cap never fires",
            )
        )  # fmt: skip
    return sorted(changes, key=lambda c: (c.resource != "stack", c.path))
