"""Spend caps in the governance diff: a removed, raised, moved or disarmed cap weakens governance.

The shipped prod stack caps Vertex AI at 5,000/month; each edit below is one change to that stack
file, planned exactly as `mlgov plan` does. On prod a weakening blocks the PR unless the stack
acknowledges it.
"""

from __future__ import annotations

from typing import Any

import pytest

from governance.review.govdiff import governance_changes, review
from tests.govdiff.stacks import base, edited, settings

CAP = "spend-caps-vertex-ai"


def _caps(**caps: Any):
    def edit(config: dict[str, Any]) -> None:
        settings(config)["spend_caps"] = caps

    return edit


def _changes(edit) -> dict[str, Any]:
    return {c.id: c for c in governance_changes(base("prod"), edited("prod", edit))}


def test_the_shipped_prod_stack_caps_vertex_ai():
    doc = base("prod")
    [cap] = [r for r in doc["resources"] if r["name"] == CAP]
    assert cap["worst_case_monthly_usd"] == 5000.0


@pytest.mark.parametrize(
    ("edit", "change_id", "weakens"),
    [
        (_caps(), CAP, True),  # the cap (and its alerts-only pair) removed
        (_caps(vertex_ai=8000), f"{CAP}.amount", True),  # raised
        (_caps(vertex_ai=3000), f"{CAP}.amount", False),  # lowered: stricter
    ],
    ids=["removed", "raised", "lowered"],
)
def test_a_removed_or_raised_cap_weakens_and_a_lowered_one_does_not(edit, change_id, weakens):
    changes = _changes(edit)
    change = changes[change_id]
    assert change.weakens is weakens, change
    assert change.kind == "budget"
    if weakens:
        assert "spend cap" in change.why


def test_removing_the_cap_also_names_its_alerts_only_pair():
    changes = _changes(_caps())
    assert changes[f"{CAP}-alerts"].weakens  # budget.presence: a budget removed


def test_a_new_cap_is_not_a_weakening():
    changes = _changes(_caps(vertex_ai=5000, gemini_api=300))
    assert "spend-caps-gemini-api" in changes
    assert not changes["spend-caps-gemini-api"].weakens


def test_on_prod_a_raised_cap_blocks_until_acknowledged():
    r = review(base("prod"), edited("prod", _caps(vertex_ai=8000)))
    # The cap and its alerts-only pair (whose thresholds follow the cap) are both raised.
    raised = {f"{CAP}.amount", f"{CAP}-alerts.amount"}
    assert r.prod and {c.id for c in r.blocking} == raised

    def acknowledged(config: dict[str, Any]) -> None:
        _caps(vertex_ai=8000)(config)
        reason = "FIN-12: launch month, back to 5000 in January"
        settings(config)["acknowledge"] = [{"change": i, "reason": reason} for i in sorted(raised)]

    r = review(base("prod"), edited("prod", acknowledged))
    assert r.blocking == ()
