"""Spend-cap budgets the Budget API would refuse: every rule its discovery document fixes.

`BODY_RULE` runs compat.spend_caps.problems over each spend cap's inputs (the Budget API v1
`Budget` body plus `parent`), one finding per broken rule, each naming the field, the schema
field whose documentation states the rule, and the source. `CURRENCY_RULE` looks across the stack:
a currency given on a cap must be the billing account's, which the stack's other budgets on that
account state too. Pairing each cap with an alerts-only budget is a governance rule
(rules/billing.py), not Google's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from mlgov_policies import vocabulary as v
from mlgov_policies.compat import sources
from mlgov_policies.compat import spend_caps as caps
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule, StackResource, StackRule

_SOURCE: Final = sources.short(caps.DISCOVERY)
_PARENT = re.compile(r"billingAccounts/[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}")


def spend_cap_body(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """A spend-cap budget keeps every rule the Budget API fixes for spendCap."""
    del type_, config
    parent = dig(props, "parent")
    if not is_unknown(parent) and not _PARENT.fullmatch(as_str(parent) or ""):
        yield (
            f"parent {parent!r} is not billingAccounts/<billing account id> "
            f"(rule: billingbudgets.billingAccounts.budgets.create parent; source: {_SOURCE})"
        )
    for path, message in caps.problems(props):
        yield f"{path}: {message}"


BODY_RULE: Final = ResourceRule(
    name="mlgov-billing-spend-cap-accepted",
    check=spend_cap_body,
    types=frozenset({v.SPEND_CAP_BUDGET}),
    enforcement="mandatory",
    why="The Budget API refuses a spend cap that breaks any of its field rules (one project, one "
    "eligible service, MONTH, gross cost, thresholds 0.5/0.8/1.0, project-level recipients "
    "only): the cap is never created and the service it should stop stays uncapped.",
    remediation="Declare caps under mlgov:settings.spend_caps (mlgov renders a body Google "
    "accepts); in a hand-written body, change the field the message names as it says.",
    source=_SOURCE,
)


def _currency(props: Mapping[str, Any], *path: str) -> str | None:
    return as_str(dig(props, *path, "specifiedAmount", "currencyCode"))


def spend_cap_currency(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """A currency given on a spend cap is the one the stack's budgets on that account use."""
    del config
    stated: dict[str, set[str]] = {}
    for r in resources:
        account = as_str(dig(r.props, "billingAccount")) if r.type == v.BUDGET else None
        if account and (currency := _currency(r.props, "amount")):
            stated.setdefault(account.removeprefix("billingAccounts/"), set()).add(currency)
    for index, r in enumerate(resources):
        if r.type != v.SPEND_CAP_BUDGET:
            continue
        currency = _currency(r.props, "amount")
        account = (as_str(dig(r.props, "parent")) or "").removeprefix("billingAccounts/")
        others = stated.get(account, set())
        if currency is not None and others and currency not in others:
            yield (
                index,
                f"amount.specifiedAmount.currencyCode {currency!r} differs from "
                f"{', '.join(sorted(others))} on the stack's other budgets of billing account "
                f"{account}: the currency must be the billing account's (rule: "
                f"GoogleCloudBillingBudgetsV1BudgetAmount.specifiedAmount; source: {_SOURCE})",
            )


CURRENCY_RULE: Final = StackRule(
    name="mlgov-billing-spend-cap-currency",
    check=spend_cap_currency,
    types=frozenset({v.SPEND_CAP_BUDGET, v.BUDGET}),
    enforcement="mandatory",
    why="The Budget API refuses a budget whose currency is not the billing account's; two "
    "budgets on one account in different currencies cannot both be created.",
    remediation="Leave currencyCode out of the cap (Google then uses the account's currency), "
    "or give the account's currency everywhere.",
    source=_SOURCE,
)
RULES: Final = (BODY_RULE, CURRENCY_RULE)
