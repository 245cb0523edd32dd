"""`spend_caps`: a monthly cap per eligible service (docs/architecture.md#spend-caps).

`spend_caps: {vertex_ai: 2000, gemini_api: 300}` renders one Cloud Billing spend-cap budget per
service on the stack's governed project (governance/components/spend_caps.py), each paired with
an alerts-only budget that publishes to the budget topic. Keys are mlgov's service keys; each maps
to its Billing Catalog service id (mlgov_policies.compat.spend_caps.SERVICES, with sources). Any
other key is refused with the eligible list. Amounts are in the billing account's currency, the
one the stack's budget states (Google refuses a budget in any other); 0 blocks all new usage of
the service.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_core import PydanticCustomError

from mlgov_policies.compat import spend_caps as facts
from mlgov_policies.compat.sources import short

MAX_AMOUNT = 1e12  # far above any monthly bill; keeps units and nanos exact in a float


def _eligible(key: str) -> str:
    if key not in facts.SERVICES:
        raise PydanticCustomError(
            "spend_cap_service",
            "'{key}' is not a service spend caps can cover; eligible: {eligible} (source: "
            "{source})",
            {"key": key, "eligible": facts.eligible_list(), "source": short(facts.ELIGIBLE)},
        )
    return key


def _number(value: Any) -> Any:
    # YAML `true` or "2000" are mistakes, not amounts; pydantic's lax float would take them.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError(
            "spend_cap_amount",
            "must be a number (a monthly amount in the billing account's currency)",
        )
    if not math.isfinite(value):
        raise PydanticCustomError("spend_cap_amount", "must be a finite number")
    return value


ServiceKey = Annotated[str, AfterValidator(_eligible)]
CapAmount = Annotated[float, BeforeValidator(_number), Field(ge=0, le=MAX_AMOUNT)]
"""A monthly amount in the billing account's currency; 0 blocks all new usage."""

SpendCaps = dict[ServiceKey, CapAmount]
"""`mlgov:settings.spend_caps`: service key -> monthly cap."""


def no_spend_caps() -> SpendCaps:
    """No caps (the default: spend caps are opt-in, and Preview)."""
    return {}
