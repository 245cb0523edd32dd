"""Cloud Functions (2nd gen) timeout rule on function inputs."""

from __future__ import annotations

from acceptance_support import changed, run, shipped

from mlgov_policies import vocabulary as v
from mlgov_policies.props import UNKNOWN_SENTINELS

RULE = "mlgov-functions-timeout-within-limit"
DOC = "Cloud Run functions: Function timeout https://cloud.google.com/functions/docs/configuring/timeout"
UNKNOWN = next(iter(UNKNOWN_SENTINELS))


def event_fn() -> dict:
    return shipped("dev", "governance-on-budget-alert")  # Pub/Sub trigger, 540 s


def http_fn() -> dict:
    return shipped("dev", "governance-reap-expired")  # HTTP, 900 s


def test_shipped_functions_pass() -> None:
    assert run(RULE, v.FUNCTION_V2, event_fn()) == []
    assert run(RULE, v.FUNCTION_V2, http_fn()) == []
    assert (
        run(RULE, v.FUNCTION_V2, changed(http_fn(), "serviceConfig.timeoutSeconds", 3600.0)) == []
    )


def test_event_function_past_540_fails() -> None:
    props = changed(event_fn(), "serviceConfig.timeoutSeconds", 541.0)
    assert run(RULE, v.FUNCTION_V2, props) == [
        "serviceConfig.timeoutSeconds: 541s is outside the timeout of an event-triggered "
        f"function: 1s to 540s (source: {DOC})"
    ]


def test_http_function_past_3600_fails() -> None:
    props = changed(http_fn(), "serviceConfig.timeoutSeconds", 3601.0)
    assert run(RULE, v.FUNCTION_V2, props) == [
        "serviceConfig.timeoutSeconds: 3601s is outside the timeout of an HTTP-triggered "
        f"function: 1s to 3600s (source: {DOC})"
    ]


def test_unknown_trigger_is_held_to_the_http_limit() -> None:
    props = changed(
        changed(event_fn(), "eventTrigger", UNKNOWN), "serviceConfig.timeoutSeconds", 900.0
    )
    assert run(RULE, v.FUNCTION_V2, props) == []
    props = changed(props, "serviceConfig.timeoutSeconds", 4000.0)
    assert len(run(RULE, v.FUNCTION_V2, props)) == 1
    assert (
        run(RULE, v.FUNCTION_V2, changed(http_fn(), "serviceConfig.timeoutSeconds", UNKNOWN)) == []
    )
