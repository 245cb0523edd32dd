"""Raw payloads (Pub/Sub messages, REST JSON dicts) to models; pure, strict, clear errors.

Shapes follow the real APIs (camelCase REST JSON); the recorded examples are in
../shared/realdata/. Adapters in gcp.py hand the client objects over as such dicts.
Deciding what to do with the models is decide.py's job.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from govern.models import BudgetAlert, Recommendation, Workload

SUPPORTED_SCHEMA_VERSIONS = frozenset({"1.0"})
INSTANCE_RESOURCE_TYPE = "compute.googleapis.com/Instance"
_INSTANCE_PATH = re.compile(
    r"//compute\.googleapis\.com/projects/(?P<project>[^/]+)/zones/(?P<zone>[^/]+)/instances/(?P<name>[^/]+)"
)
_RESOURCE_NAME = re.compile(
    r"projects/(?P<project>[^/]+)/locations/(?P<zone>[^/]+)/(?:instances|nodes)/(?P<name>[^/]+)"
)
# Machine families whose GPUs come with the machine type.
_GPU_FAMILIES = ("a2-", "a3-", "a4-", "g2-", "g4-")


class ParseError(ValueError):
    """A payload does not have the documented shape; the message says what is wrong."""


def _as_obj(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ParseError(f"{what}: expected a JSON object, got {type(value).__name__}")
    return value  # pyright: ignore[reportUnknownVariableType]


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


def _text(obj: Mapping[str, Any], key: str) -> str:
    value = obj.get(key, "")
    return value if isinstance(value, str) else ""


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
    envelope = _as_obj(event_data, "event data")
    message = _as_obj(envelope.get("message"), "event data.message")
    attributes = _as_obj(message.get("attributes") or {}, "message.attributes")
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
        data = _as_obj(json.loads(decoded), "message.data")
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
        display_name=_text(data, "budgetDisplayName"),
        currency=_text(data, "currencyCode"),
        cost_interval_start=_text(data, "costIntervalStart"),
        message_id=str(message_id),
    )


def _sub(obj: Mapping[str, Any], key: str) -> dict[str, Any]:
    """obj[key] if it is a JSON object, else {} (absent and null look the same in REST JSON)."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownVariableType]


def _items(obj: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    """The JSON objects in the list obj[key]; anything else is ignored."""
    value = obj.get(key)
    if not isinstance(value, list):
        return []
    entries: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
    return [e for e in entries if isinstance(e, dict)]


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _labels(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    items: dict[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]
    return {str(k): str(v) for k, v in items.items()}


def _last(path: Any) -> str:
    return str(path).rstrip("/").rsplit("/", 1)[-1] if path else ""


def compute_instance(project: str, raw: Mapping[str, Any]) -> Workload:
    """A Compute `Instance` JSON (aggregatedList/get) as a Workload, noting who manages it."""
    labels = _labels(raw.get("labels"))
    metadata = {
        str(item.get("key")): str(item.get("value", ""))
        for item in _items(_sub(raw, "metadata"), "items")
    }
    machine_type = _last(raw.get("machineType"))
    gpus = sum(_int(acc.get("acceleratorCount")) for acc in _items(raw, "guestAccelerators"))
    if gpus == 0 and machine_type.startswith(_GPU_FAMILIES):
        gpus = 1
    managed_by: str | None = None
    # Workbench instances, GKE nodes and MIG members are Compute VMs underneath; stopping them
    # through Compute fights their owner (GKE/MIG recreate them, Workbench loses its state).
    if "goog-gke-node" in labels or "goog-k8s-cluster-name" in labels:
        managed_by = "gke"
    elif (
        any(k.startswith("goog-caip-notebook") for k in labels)
        or "notebooks-api" in metadata
        or "notebooks.googleapis.com" in metadata.get("resource-url", "")
    ):
        managed_by = "workbench"
    elif "goog-dataproc-cluster-name" in labels:
        managed_by = "dataproc"
    elif "/instanceGroupManagers/" in metadata.get("created-by", ""):
        managed_by = "mig"
    return Workload(
        kind="compute",
        project=project,
        zone=_last(raw.get("zone")),
        name=str(raw.get("name", "")),
        state=str(raw.get("status", "")),
        labels=labels,
        gpus=gpus,
        instance_id=str(raw.get("id", "")),
        managed_by=managed_by,
    )


def notebook_instance(project: str, raw: Mapping[str, Any]) -> Workload:
    """A Notebooks v2 (Workbench) `Instance` JSON as a Workload."""
    match = _RESOURCE_NAME.fullmatch(str(raw.get("name", "")))
    if match is None:
        raise ParseError(f"notebook instance: unexpected name {raw.get('name')!r}")
    setup = _sub(raw, "gceSetup")
    gpus = sum(_int(acc.get("coreCount")) for acc in _items(setup, "acceleratorConfigs"))
    return Workload(
        kind="notebook",
        project=project,
        zone=match["zone"],
        name=match["name"],
        state=str(raw.get("state", "")),
        labels=_labels(raw.get("labels")),
        gpus=gpus,
        instance_id=str(setup.get("instanceId", "")),
    )


def tpu_node(project: str, raw: Mapping[str, Any]) -> Workload:
    """A TPU v2 `Node` JSON as a Workload."""
    match = _RESOURCE_NAME.fullmatch(str(raw.get("name", "")))
    if match is None:
        raise ParseError(f"TPU node: unexpected name {raw.get('name')!r}")
    return Workload(
        kind="tpu",
        project=project,
        zone=match["zone"],
        name=match["name"],
        state=str(raw.get("state", "")),
        labels=_labels(raw.get("labels")),
        instance_id=str(raw.get("id", "")),
    )


def recommendation(project: str, raw: Mapping[str, Any]) -> Recommendation:
    """An idle-VM recommendation JSON; `problem` says why it cannot be acted on, if so.

    Real names carry the project NUMBER, so the target is matched by the zone and instance
    name found in the operations (the project is the one we listed under).
    """
    name = str(raw.get("name", ""))
    zone_match = re.search(r"/locations/([^/]+)/", name)
    zone = zone_match[1] if zone_match else ""
    state = str(_sub(raw, "stateInfo").get("state", ""))
    subtype = str(raw.get("recommenderSubtype", ""))
    etag = str(raw.get("etag", ""))
    instance: str | None = None
    problem = ""
    groups = _items(_sub(raw, "content"), "operationGroups")
    targets: set[tuple[str, str]] = set()
    for group in groups:
        for op in _items(group, "operations"):
            resource = str(op.get("resource", ""))
            if op.get("resourceType") != INSTANCE_RESOURCE_TYPE or "$" in resource:
                continue  # placeholders like `$snapshot-name` name nothing real
            if m := _INSTANCE_PATH.fullmatch(resource):
                targets.add((m["zone"], m["name"]))
    if not groups:
        problem = "recommendation has no operationGroups"
    elif len(targets) != 1:
        problem = f"recommendation names {len(targets)} instances; expected exactly one"
    else:
        op_zone, instance = next(iter(targets))
        if zone and op_zone != zone:
            problem = f"operation zone {op_zone} differs from recommendation location {zone}"
            instance = None
        zone = op_zone
    if not etag and not problem:
        problem = "recommendation has no etag"
    return Recommendation(
        name=name,
        etag=etag,
        state=state,
        subtype=subtype,
        project=project,
        zone=zone,
        instance=instance,
        problem=problem,
    )


def gpu_utilization(pages: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Monitoring `timeSeries.list` pages to {instance_id: highest per-GPU mean utilization %}.

    A VM is as busy as its busiest GPU; series without points contribute nothing, so a VM
    with no data is absent from the result (callers must not read absence as idle).
    """
    best: dict[str, float] = {}
    for page in pages:
        for series in _items(page, "timeSeries"):
            instance_id = str(_sub(_sub(series, "resource"), "labels").get("instance_id", ""))
            values: list[float] = []
            for point in _items(series, "points"):
                value = _sub(point, "value")
                raw: Any = value.get("doubleValue", value.get("int64Value"))
                if raw is None:
                    continue
                try:
                    number = float(raw)
                except (TypeError, ValueError):
                    continue
                if math.isfinite(number):
                    values.append(number)
            if instance_id and values:
                mean = sum(values) / len(values)
                best[instance_id] = max(best.get(instance_id, mean), mean)
    return best
