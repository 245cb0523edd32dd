"""Every timeout and time budget that bounds the automation, and the least each function needs.

A governance function stops acting when the first of these runs out: the platform's own timeout
(`serviceConfig.timeoutSeconds`), the Scheduler job's `attemptDeadline` for the reapers, and the
time budget the Pulumi program renders into `MLGOV_POLICY` (`time_budget_seconds`: the timeout
less the minute kept for the report, governance/components/automation.py). Each is a governed
value (`values`), judged "lower weakens" by aspects.py.

`refusals` names every function left below its working minimum: a time budget of at least one
API call's timeout (`call_timeout_seconds`, 30 s unless the policy says otherwise), within the
function's own timeout. Below it the function cannot wait for a single answer, and the
functions refuse a budget of 0 outright ("invalid configuration, nothing done"), so such a plan
cannot be judged as a governance change: `diff`, `comment` and `check` exit 2 naming it.
Pure: plan document resources in, values and problems out.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_mapping, as_number, as_str, dig

DEFAULT_CALL_TIMEOUT_SECONDS = 30.0
"""The functions' own default (functions/govern/models.py ActionPolicy.call_timeout_seconds)."""
DEFAULT_TIME_BUDGET_SECONDS = 45.0
"""The functions' default when the policy leaves `time_budget_seconds` out (models.py)."""
_DURATION = re.compile(r"(\d+(?:\.\d+)?)s")

Row = tuple[str, str, float | str | None, str]
"""(change id, aspect, value, resource) of one governed value."""


def _policy(inputs: Mapping[str, Any]) -> Mapping[str, Any] | None:
    raw = dig(inputs, "serviceConfig", "environmentVariables", "MLGOV_POLICY")
    if not isinstance(raw, str):
        return None
    try:
        policy: object = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return cast(Mapping[str, Any], policy) if isinstance(policy, Mapping) else None


def _seconds(value: object) -> float | None:
    """`900s` (a protobuf Duration as Pulumi passes it) or a number, in seconds."""
    if (text := as_str(value)) is not None and (m := _DURATION.fullmatch(text.strip())):
        return float(m.group(1))
    return as_number(value)


def values(resources: Sequence[Mapping[str, Any]], key: Any) -> Iterator[Row]:
    """The timeouts and time budgets of the governance functions and their Scheduler jobs.

    `key(resource)` is the name the governance diff gives the resource (read.py).
    """
    for r in resources:
        inputs = as_mapping(r.get("inputs"))
        name = str(key(r))
        if r.get("type") == v.FUNCTION_V2 and (policy := _policy(inputs)) is not None:
            yield (
                f"{name}.serviceConfig.timeoutSeconds",
                "timeout.function",
                as_number(dig(inputs, "serviceConfig", "timeoutSeconds")),
                name,
            )
            budget = as_number(policy.get("time_budget_seconds"))
            yield f"{name}.policy.time_budget_seconds", "timeout.time_budget", budget, name
            call = as_number(policy.get("call_timeout_seconds"))
            yield f"{name}.policy.call_timeout_seconds", "timeout.call", call, name
        elif r.get("type") == v.SCHEDULER_JOB:
            deadline = _seconds(inputs.get("attemptDeadline"))
            yield f"{name}.attemptDeadline", "timeout.attempt_deadline", deadline, name


def refusals(resources: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each governance function whose time budget is below its working minimum (one line each)."""
    found: list[str] = []
    for r in resources:
        if r.get("type") != v.FUNCTION_V2:
            continue
        inputs = as_mapping(r.get("inputs"))
        if (policy := _policy(inputs)) is None:
            continue
        name = str(r.get("name"))
        where = f"{name}: serviceConfig.environmentVariables.MLGOV_POLICY.time_budget_seconds"
        budget = as_number(policy.get("time_budget_seconds", DEFAULT_TIME_BUDGET_SECONDS))
        call = as_number(policy.get("call_timeout_seconds", DEFAULT_CALL_TIMEOUT_SECONDS))
        timeout = as_number(dig(inputs, "serviceConfig", "timeoutSeconds"))
        if budget is None or not math.isfinite(budget):
            found.append(f"{where} is not a number: the function refuses its configuration")
            continue
        minimum = call if call is not None and math.isfinite(call) and call > 0 else 1.0
        if budget < minimum:
            found.append(
                f"{where} is {budget:g} s, below the {minimum:g} s one API call may take "
                "(call_timeout_seconds): the function cannot act (a budget of 0 is refused as "
                "invalid configuration, nothing done); raise automation.http_timeout_seconds"
            )
        elif timeout is not None and budget > timeout:
            found.append(
                f"{where} is {budget:g} s, longer than the function's timeout "
                f"(serviceConfig.timeoutSeconds {timeout:g} s): the platform stops it mid-run, "
                "before it reports what it did"
            )
    return found
