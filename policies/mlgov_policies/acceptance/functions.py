"""Cloud Functions (2nd gen) timeouts within the trigger's limit.

`serviceConfig.timeoutSeconds` may be at most 540 s for an event-triggered function (one with an
`eventTrigger`) and 3,600 s for an HTTP function; the limits live in compat/limits.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from mlgov_policies import vocabulary as v
from mlgov_policies.compat import sources
from mlgov_policies.compat.limits import FUNCTION_TIMEOUT_EVENT, FUNCTION_TIMEOUT_HTTP
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_number, dig, is_unknown
from mlgov_policies.rule import ResourceRule


def function_timeout(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Function timeouts stay within their trigger's limit (event 540 s, HTTP 3600 s)."""
    del type_, config
    seconds = as_number(dig(props, "serviceConfig", "timeoutSeconds"))
    if seconds is None:
        return
    trigger = dig(props, "eventTrigger")
    # An unknown trigger may be either kind: hold it only to the larger (HTTP) limit.
    limit = (
        FUNCTION_TIMEOUT_EVENT
        if trigger is not None and not is_unknown(trigger)
        else (FUNCTION_TIMEOUT_HTTP)
    )
    problem = limit.problem(seconds)
    if problem:
        yield f"serviceConfig.timeoutSeconds: {problem}"


RULE: Final = ResourceRule(
    name="mlgov-functions-timeout-within-limit",
    check=function_timeout,
    types=frozenset({v.FUNCTION_V2}),
    enforcement="mandatory",
    why="The Cloud Functions API refuses a timeout past the trigger's maximum; the deploy fails "
    "after the source was built and uploaded.",
    remediation="Keep serviceConfig.timeoutSeconds at most 540 for event-triggered functions and "
    "at most 3600 for HTTP functions (split long work or move it to Cloud Run jobs).",
    source=sources.short(sources.FUNCTION_TIMEOUT),
)
RULES: Final = (RULE,)
