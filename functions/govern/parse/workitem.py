"""Work items (the data of a Pub/Sub message on the work topic) to workitems.WorkItem, strictly.

The wire format is workitems.py's. Anything else (not base64 JSON, an unknown job, a missing or
extra key, a wrong type, a key that is not 32 hex digits) is a ParseError naming the key: the
worker logs it as refused and acknowledges it, so a malformed message never loops to the
dead-letter topic. Whether the policy lets a well-formed item act is admission.py's job.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from govern.parse.reader import ParseError, as_obj
from govern.workitems import REAPER_JOBS, BudgetItem, ReaperItem, WorkItem

_HEX_KEY = re.compile(r"[0-9a-f]{32}")
# Project ids: 6-30 lowercase letters, digits and hyphens, starting with a letter (Resource
# Manager's rule); older projects may carry a domain prefix (example.com:project).
_PROJECT = re.compile(r"(?:[a-z0-9.-]+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]")
_SCOPE = re.compile(r"(folders|organizations)/[0-9]+")
_COMMON = ("job", "project", "run", "key", "scope")
_BUDGET = (*_COMMON, "budget_id", "ratio", "period_start", "stop", "unlink")
_REAPER = (*_COMMON, "allowance", "dry_run", "started")


@dataclass(frozen=True)
class Delivery:
    """One push delivery of a message: its data (parsed or not), attributes and message id.

    `delivery_attempt`: Pub/Sub's count when the subscription has a dead-letter policy (the
    push body's `deliveryAttempt`), None when unknown.
    """

    message_id: str
    attributes: Mapping[str, str] = field(default_factory=dict[str, str])
    data: bytes = b""
    delivery_attempt: int | None = None


def delivery(event_data: Any, delivery_attempt: int | None = None) -> Delivery:
    """The message of a Pub/Sub `messagePublished` CloudEvent (or a raw push body).

    Raises:
        ParseError: no message, or data that is not base64.
    """
    if isinstance(event_data, bytes | str):
        try:
            event_data = json.loads(event_data)
        except ValueError:
            raise ParseError("event data is not JSON") from None
    envelope = as_obj(event_data, "event data")
    message = as_obj(envelope.get("message"), "event data.message")
    attributes = {
        str(k): str(v) for k, v in as_obj(message.get("attributes") or {}, "attributes").items()
    }
    raw = message.get("data") or ""
    if not isinstance(raw, str):
        raise ParseError("message.data: not a base64 string")
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise ParseError("message.data: not base64") from None
    attempt = delivery_attempt
    if attempt is None and isinstance(envelope.get("deliveryAttempt"), int):
        attempt = int(envelope["deliveryAttempt"])
    message_id = message.get("messageId") or message.get("message_id") or ""
    return Delivery(str(message_id), attributes, data, attempt)


def work_item(data: bytes) -> WorkItem:
    """The work item a message's data carries.

    Raises:
        ParseError: naming the offending key.
    """
    try:
        raw = as_obj(json.loads(data), "work item")
    except ValueError:
        raise ParseError("work item: not JSON") from None
    job = raw.get("job")
    if job == "budget":
        _keys(raw, _BUDGET)
        return BudgetItem(
            project=_project(raw),
            run=_text(raw, "run"),
            key=_key(raw),
            scope=_scope(raw),
            budget_id=_text(raw, "budget_id"),
            ratio=_ratio(raw),
            period_start=_text(raw, "period_start"),
            stop=_bool(raw, "stop"),
            unlink=_bool(raw, "unlink"),
        )
    if job in REAPER_JOBS:
        _keys(raw, _REAPER)
        allowance = raw["allowance"]
        if allowance is not None and (
            isinstance(allowance, bool) or not isinstance(allowance, int) or allowance < 0
        ):
            raise ParseError(f"work item.allowance: a whole number >= 0 or null, got {allowance!r}")
        return ReaperItem(
            job=next(j for j in REAPER_JOBS if j == job),
            project=_project(raw),
            run=_text(raw, "run"),
            key=_key(raw),
            scope=_scope(raw),
            allowance=allowance,
            dry_run=_bool(raw, "dry_run"),
            started=_text(raw, "started"),
        )
    raise ParseError(f"work item.job: unknown job {job!r}")


def _keys(raw: Mapping[str, Any], wanted: tuple[str, ...]) -> None:
    missing = [k for k in wanted if k not in raw]
    extra = sorted(k for k in raw if k not in wanted)
    if missing:
        raise ParseError(f"work item: missing key(s) {', '.join(missing)}")
    if extra:
        raise ParseError(f"work item: unknown key(s) {', '.join(extra)}")


def _text(raw: Mapping[str, Any], key: str) -> str:
    value = raw[key]
    if not isinstance(value, str) or not value:
        raise ParseError(f"work item.{key}: a non-empty string, got {value!r}")
    return value


def _bool(raw: Mapping[str, Any], key: str) -> bool:
    value = raw[key]
    if not isinstance(value, bool):
        raise ParseError(f"work item.{key}: true or false, got {value!r}")
    return value


def _project(raw: Mapping[str, Any]) -> str:
    value = _text(raw, "project")
    if not _PROJECT.fullmatch(value):
        raise ParseError(f"work item.project: {value!r} is not a project id")
    return value


def _key(raw: Mapping[str, Any]) -> str:
    value = _text(raw, "key")
    if not _HEX_KEY.fullmatch(value):
        raise ParseError(f"work item.key: {value!r} is not 32 hex digits")
    return value


def _scope(raw: Mapping[str, Any]) -> str | None:
    value = raw["scope"]
    if value is None:
        return None
    if not isinstance(value, str) or not _SCOPE.fullmatch(value):
        raise ParseError(f"work item.scope: folders/<n>, organizations/<n> or null, got {value!r}")
    return value


def _ratio(raw: Mapping[str, Any]) -> float:
    value = raw["ratio"]
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value < 0:
        raise ParseError(f"work item.ratio: a finite number >= 0, got {value!r}")
    return float(value)


FIELDS: Final = {"budget": _BUDGET, **{job: _REAPER for job in REAPER_JOBS}}
"""The keys of each job's item, in the contract's order (tests compare with workitems.py)."""
