"""Budget notifications (Pub/Sub `messagePublished` CloudEvent data) to a BudgetAlert.

The format is Google's documented one (Manage programmatic budget alert notifications,
section "Notification format"); examples in tests/functions/data. Deciding what an alert asks
for is decide.budget_scope's job.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Mapping
from typing import Any

from govern.models import BudgetAlert
from govern.parse.reader import ParseError, as_obj, text

SUPPORTED_SCHEMA_VERSIONS = frozenset({"1.0"})


def _number(obj: Mapping[str, Any], key: str, *, required: bool) -> float | None:
    if key not in obj or obj[key] is None:
        if required:
            raise ParseError(f"budget notification data: missing {key!r}")
        return None
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ParseError(
            f"budget notification data: {key!r} must be a finite number, got {value!r}"
        )
    return float(value)


def budget_alert(event_data: Any) -> BudgetAlert:
    """Parse the data of a Pub/Sub `messagePublished` CloudEvent carrying a budget notification.

    Args:
        event_data: `{"message": {"data": <base64 JSON>, "attributes": {...}, "messageId": ...}}`.

    Raises:
        ParseError: on any deviation from the documented notification format.
    """
    if isinstance(event_data, bytes | str):
        try:
            event_data = json.loads(event_data)
        except ValueError:
            raise ParseError("event data is not JSON") from None
    envelope = as_obj(event_data, "event data")
    message = as_obj(envelope.get("message"), "event data.message")
    attributes = as_obj(message.get("attributes") or {}, "message.attributes")
    budget_id = attributes.get("budgetId")
    if not isinstance(budget_id, str) or not budget_id:
        raise ParseError("message.attributes: missing budgetId (not a budget notification?)")
    schema = attributes.get("schemaVersion", "1.0")
    if schema not in SUPPORTED_SCHEMA_VERSIONS:
        raise ParseError(f"message.attributes.schemaVersion: unsupported {schema!r} (expected 1.0)")
    raw = message.get("data")
    if not isinstance(raw, str) or not raw:
        raise ParseError("message.data: missing or not a base64 string")
    try:
        decoded = base64.b64decode(raw, validate=True)
        data = as_obj(json.loads(decoded), "message.data")
    except (binascii.Error, ValueError) as err:
        if isinstance(err, ParseError):
            raise
        raise ParseError("message.data: not base64-encoded JSON") from None
    cost = _number(data, "costAmount", required=True) or 0.0
    budget = _number(data, "budgetAmount", required=True) or 0.0
    if budget < 0 or cost < 0:
        raise ParseError("budget notification data: negative costAmount or budgetAmount")
    message_id = message.get("messageId") or message.get("message_id") or ""
    return BudgetAlert(
        budget_id=budget_id,
        cost_amount=cost,
        budget_amount=budget,
        alert_threshold=_number(data, "alertThresholdExceeded", required=False),
        forecast_threshold=_number(data, "forecastThresholdExceeded", required=False),
        billing_account_id=str(attributes.get("billingAccountId", "")),
        display_name=text(data, "budgetDisplayName"),
        currency=text(data, "currencyCode"),
        cost_interval_start=text(data, "costIntervalStart"),
        message_id=str(message_id),
    )
