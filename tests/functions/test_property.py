"""No payload, however malformed, raises out of on_budget_alert or causes an action."""

from __future__ import annotations

import base64
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from govern import decide, parse
from tests.functions.conftest import BUDGET, policy_dict

POLICY = parse.action_policy(json.dumps(policy_dict()))
json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
budget_like = st.fixed_dictionaries(
    {},
    optional={
        "costAmount": json_values,
        "budgetAmount": json_values,
        "alertThresholdExceeded": json_values,
        "forecastThresholdExceeded": json_values,
        "budgetDisplayName": json_values,
    },
)


def _message(data_bytes: bytes, attributes) -> dict:
    return {"message": {"data": base64.b64encode(data_bytes).decode(), "attributes": attributes}}


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        json_values,
        st.builds(_message, st.binary(max_size=64), json_values),
        st.builds(
            lambda d, a: _message(json.dumps(d).encode(), a),
            budget_like,
            st.fixed_dictionaries(
                {"budgetId": st.sampled_from([BUDGET, "x", ""])},
                optional={"schemaVersion": st.sampled_from(["1.0", "2", ""])},
            ),
        ),
    )
)
def test_parse_and_scope_raise_only_their_errors(payload):
    try:
        alert = parse.budget_alert(payload)
        decide.budget_scope(alert, POLICY)
    except (parse.ParseError, decide.DecisionError):
        pass


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.one_of(json_values, st.binary(max_size=40)))
def test_malformed_events_never_raise_nor_act(cloud, data):
    from tests.functions.conftest import pubsub_event, send_event

    cloud.compute.add("acme-ml-dev", "us-central1-a", "vm")
    raw = data if isinstance(data, bytes) else json.dumps(data, allow_nan=True)
    before = len(cloud.mutations())
    send_event(pubsub_event(raw, {"budgetId": BUDGET, "schemaVersion": "1.0"}))
    send_event(pubsub_event(raw, {"budgetId": "unknown"}))
    # Only a payload whose costAmount / budgetAmount reaches stop_at (1.0), and whose threshold
    # (if any) does not exceed that ratio, may act.
    assert len(cloud.mutations()) == before or _is_real_alert(raw)


def _is_real_alert(raw) -> bool:
    try:
        alert = parse.budget_alert(
            _message(raw if isinstance(raw, bytes) else raw.encode(), {"budgetId": BUDGET})
        )
    except parse.ParseError:
        return False
    ratio = alert.spend_ratio or 0
    return ratio >= 1.0 and (alert.alert_threshold or 0) <= ratio + 1e-6
