"""Reading the input properties a price depends on, on top of `mlgov_policies.props`.

The props readers never raise, because a policy rule can skip what it cannot read. A cost model
cannot skip a value its price depends on, so `text` turns an absent value into the model's
default but a value that is unknown until apply (a Pulumi unknown sentinel) or not a string into
a `CostError` naming the key: never a guessed price. Numbers keep the old leniency: an absent,
unknown or unreadable number (including "nan" and "inf") counts as absent and takes the model's
default.
"""

from __future__ import annotations

import math

from governance.costs.errors import CostError
from mlgov_policies.props import as_number, as_str, is_unknown


def text(value: object, default: str, key: str) -> str:
    """A string input; `default` when absent or empty; CostError when unknown or not a string."""
    if not value:
        return default
    if is_unknown(value):
        raise CostError(f"{key} is not known until the resource is created: cannot price it")
    found = as_str(value)
    if found is None:
        raise CostError(f"{key} is {value!r}, not a string")
    return found


def number(value: object, default: float = 0.0) -> float:
    """A finite numeric input (number or numeric string); else `default`."""
    found = as_number(value)
    return default if found is None or not math.isfinite(found) else found
