"""What an update of a spend cap may send, and whether a billing account may hold one (pure).

The Budget API's rules (billingbudgets v1 discovery document, `Budget.spendCap`): while
`spendCap.outputState` is ENFORCED only `spendCap.inputState` may change (AWAITING_NEXT_PERIOD
lifts the cap; anything else fails with FAILED_PRECONDITION); when an update mask is given for a
spend cap it must name `spendCap` or `spendCap.inputState`; a lifted cap (AWAITING_NEXT_PERIOD)
takes only CONFIGURED, which re-arms it. mlgov always declares CONFIGURED, so an update of a
lifted cap re-arms it at the declared values, and a lift is never undone by a refresh or an
unrelated `pulumi up` (nothing is sent unless a declared field changed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from mlgov_policies.compat import spend_caps as facts
from mlgov_policies.compat.sources import short
from mlgov_policies.props import as_list, dig

BODY_KEYS: Final = (
    "displayName",
    "budgetFilter",
    "amount",
    "thresholdRules",
    "notificationsRule",
    "ownershipScope",
    "spendCap",
)
"""The `Budget` fields mlgov declares (the rest are output only or left to Google)."""
INPUT_STATE_MASK: Final = "spendCap.inputState"
ENFORCED: Final = "ENFORCED"
LIFTED: Final = "AWAITING_NEXT_PERIOD"
CONFIGURED: Final = "CONFIGURED"


class Refused(ValueError):
    """An update the Budget API would refuse (or that mlgov will not send); says what to do."""


def declared(props: Mapping[str, Any]) -> dict[str, Any]:
    """The declared `Budget` body in a resource's props (no parent, outputs or provider blob).

    The Pulumi engine hands every number over as a float; `nanos` is an int32 on the wire.
    """
    body = {k: props[k] for k in BODY_KEYS if props.get(k) is not None}
    money = dig(body, "amount", "specifiedAmount")
    nanos = dig(money, "nanos")
    if isinstance(nanos, float) and nanos.is_integer():
        specified = {**money, "nanos": int(nanos)}
        body["amount"] = {**body["amount"], "specifiedAmount": specified}
    return body


def changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The declared top-level fields whose values differ, in BODY_KEYS order."""
    a, b = declared(old), declared(new)
    return [k for k in BODY_KEYS if a.get(k) != b.get(k)]


def output_state(live: Mapping[str, Any]) -> str:
    """The cap's `spendCap.outputState` as read (STATE_UNSPECIFIED when absent)."""
    return str(dig(live, "spendCap", "outputState") or "STATE_UNSPECIFIED")


def input_state(live: Mapping[str, Any]) -> str:
    """The cap's `spendCap.inputState` as read (STATE_UNSPECIFIED when absent)."""
    return str(dig(live, "spendCap", "inputState") or "STATE_UNSPECIFIED")


@dataclass(frozen=True)
class Patch:
    """One `budgets.patch` call: the body and its `updateMask` paths."""

    body: dict[str, Any]
    mask: tuple[str, ...]

    @property
    def update_mask(self) -> str:
        """The `updateMask` query parameter (comma-separated field paths)."""
        return ",".join(self.mask)


def update(
    what: str, live: Mapping[str, Any], old: Mapping[str, Any], new: Mapping[str, Any]
) -> Patch | None:
    """The patch that takes a cap from `old` to `new` declared values, or None if none is needed.

    `live` is the budget as just read (for its state and etag); `what` names the cap in messages.

    Raises:
        Refused: a declared field changed while the cap is ENFORCED.
    """
    fields = [k for k in changed(old, new) if k != "spendCap"]
    # Someone turned the cap into a plain budget (mask `spendCap`, no spendCap in the body):
    # declaring it a cap again takes the whole field.
    converted = dig(live, "spendCap") is None
    if not fields and not converted:
        return None
    if output_state(live) == ENFORCED:
        raise Refused(
            f"{what} is ENFORCED (usage of its service is blocked): the Budget API allows no "
            f"change but lifting it while it is enforced, and {', '.join(fields)} changed. "
            "Lift it first with `mlgov cap lift` (a `pulumi up` then re-arms it with the new "
            "values), or wait for the next month, when Google re-arms it"
        )
    target = declared(new)
    body: dict[str, Any] = {k: target[k] for k in fields if k in target}
    # Every update of a spend cap names spendCap.inputState; a lifted cap only takes CONFIGURED
    # (which re-arms it), an armed one keeps CONFIGURED.
    body["spendCap"] = {"inputState": CONFIGURED}
    if etag := live.get("etag"):
        body["etag"] = etag
    return Patch(body, (*fields, "spendCap" if converted else INPUT_STATE_MASK))


def lift(live: Mapping[str, Any]) -> Patch | None:
    """The patch that lifts an enforced cap, or None when there is nothing to lift.

    Only an ENFORCED cap can be lifted (AWAITING_NEXT_PERIOD is "valid only when updating to
    explicitly lift an enforced cap" and "not allowed" on a cap already waiting).
    """
    if output_state(live) != ENFORCED or input_state(live) == LIFTED:
        return None
    body: dict[str, Any] = {"spendCap": {"inputState": LIFTED}}
    if etag := live.get("etag"):
        body["etag"] = etag
    return Patch(body, (INPUT_STATE_MASK,))


def eligibility_problem(account: Mapping[str, Any], body: Mapping[str, Any]) -> str | None:
    """Why a billing account (cloudbilling v1 `BillingAccount`) cannot hold this cap, or None.

    A subaccount (`masterBillingAccount` set) is resold through a reseller, and "Reseller billing
    accounts are out of scope" for spend caps; a closed account bills nothing; a currency on the
    cap must be the account's.
    """
    name = str(account.get("name") or "the billing account")
    if master := account.get("masterBillingAccount"):
        return (
            f"{name} is a subaccount resold through {master}: spend caps are Preview and "
            f"limited to first-party Cloud Billing accounts; reseller billing accounts are out "
            f"of scope (source: {short(facts.API_GUIDE)}). Remove spend_caps from this stack, or "
            "ask the reseller"
        )
    if account.get("open") is False:
        return f"{name} is closed: it bills nothing, and no budget can be created on it"
    given = dig(body, "amount", "specifiedAmount", "currencyCode")
    have = account.get("currencyCode")
    if given and have and given != have:
        return (
            f"the cap's currency {given} is not {name}'s {have}; leave currencyCode out (Google "
            "then uses the account's)"
        )
    return None


def services_of(budget: Mapping[str, Any]) -> list[str]:
    """`budgetFilter.services` of a budget as read (empty when absent)."""
    return [str(s) for s in as_list(dig(budget, "budgetFilter", "services"))]


def projects_of(budget: Mapping[str, Any]) -> list[str]:
    """`budgetFilter.projects` of a budget as read (empty when absent)."""
    return [str(p) for p in as_list(dig(budget, "budgetFilter", "projects"))]
