"""A Budget API v1 `Budget` (billingbudgets.v1 discovery document) as a `SpendCapState`.

Strict where it matters: a budget without `spendCap` is not a spend cap (someone converted it to
an alerts-only budget), which is an error the report names. Money is `units` (int64 as a string)
plus `nanos`; REST JSON leaves out false and empty values (`reconciling` absent means false).
"""

from __future__ import annotations

from typing import Any

from govern.models import SpendCapState
from govern.parse.reader import ParseError, as_obj, integer, sub, text


def spend_cap_state(raw: Any) -> SpendCapState:
    """The state of one spend-cap budget as `budgets.get` answers it.

    Raises:
        ParseError: not a JSON object, no name, or no `spendCap` (not a spend cap any more).
    """
    budget = as_obj(raw, "budget")
    name = text(budget, "name")
    if not name:
        raise ParseError("budget: no name")
    if not isinstance(budget.get("spendCap"), dict):
        raise ParseError(f"{name}: has no spendCap (not a spend cap any more)")
    cap = sub(budget, "spendCap")
    money = sub(sub(budget, "amount"), "specifiedAmount")
    amount = None
    if money:
        amount = integer(money.get("units")) + integer(money.get("nanos")) / 1e9
    return SpendCapState(
        name=name,
        input_state=text(cap, "inputState") or "STATE_UNSPECIFIED",
        output_state=text(cap, "outputState") or "STATE_UNSPECIFIED",
        reconciling=cap.get("reconciling") is True,
        amount=amount,
        currency=text(money, "currencyCode"),
    )
