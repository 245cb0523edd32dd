"""Usage assumptions: the explicit, documented guesses that turn resource inputs into a bill.

Inputs say what exists; these say how much it runs. They live in the stack settings under
`mlgov:settings.usage` and travel with a plan document as its "assumptions" key, so a cost can
always be recomputed and explained. Each resource type's knobs are defined beside its cost model
(resources/<type>.py, a `*Usage` model registered with `@usage_model`, usage_models.py); this
module composes every registered model into the one flat `UsageAssumptions` the settings and the
plan document use, after the knobs every model shares (`CommonUsage`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict

from governance.costs.month import HOURS_PER_MONTH
from governance.costs.registry import usage_models
from governance.costs.usage_models import CommonUsage

__all__ = ["HOURS_PER_MONTH", "CommonUsage", "UsageAssumptions"]


# pydantic lays out the fields of a model with several bases from the LAST base to the first, so
# the registered models go in reversed: common knobs first, then each model by its place. That
# order is what `plan --json` prints and what the usage table of docs/reference/costs.md lists
# (a test checks it).
_REGISTERED = tuple(reversed(usage_models()))

if TYPE_CHECKING:
    # What a type checker sees. The real bases come from the registry, which it cannot follow (a
    # class with an unknown base makes every field typed with it unknown too), so it is shown the
    # shared knobs and a constructor taking any knob by keyword; pydantic still rejects an
    # unknown key at run time. Cost models read their own knobs typed, via `PlanContext.knobs`.
    class UsageAssumptions(CommonUsage):
        """How much each kind of resource is used in a month (every field has a default)."""

        def __init__(self, **knobs: Any) -> None: ...

else:

    class UsageAssumptions(*_REGISTERED, CommonUsage):
        """How much each kind of resource is used in a month (every field has a default)."""

        # "inf" or "nan" usage would print an invalid plan document (JSON has no Infinity).
        model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
