"""REST JSON of the resources the functions read to models (Compute, Workbench, TPU...).

Pure, lenient about optional fields and strict about names. Shapes follow the real APIs
(camelCase REST JSON); recorded examples are in tests/fakegcp/recorded/. Adapters in gcp/
hand the client objects over as such dicts. Deciding what to do with them is decide.py's job.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from govern import periods
from govern.models import MetricWindow, Recommendation, Unjudged, Usage, Workload
from govern.parse.reader import (
    ParseError,
    integer,
    items,
    label_map,
    last_segment,
    sub,
)

INSTANCE_RESOURCE_TYPE = "compute.googleapis.com/Instance"
_INSTANCE_PATH = re.compile(
    r"//compute\.googleapis\.com/projects/(?P<project>[^/]+)/zones/(?P<zone>[^/]+)/instances/(?P<name>[^/]+)"
)
_RESOURCE_NAME = re.compile(
    r"projects/(?P<project>[^/]+)/locations/(?P<zone>[^/]+)/(?:instances|nodes)/(?P<name>[^/]+)"
)
# Machine families whose GPUs come with the machine type.
_GPU_FAMILIES = ("a2-", "a3-", "a4-", "g2-", "g4-")


def compute_instance(project: str, raw: Mapping[str, Any]) -> Workload:
    """A Compute `Instance` JSON (aggregatedList/get) as a Workload, noting who manages it."""
    labels = label_map(raw.get("labels"))
    metadata = {
        str(item.get("key")): str(item.get("value", ""))
        for item in items(sub(raw, "metadata"), "items")
    }
    machine_type = last_segment(raw.get("machineType"))
    gpus = sum(integer(acc.get("acceleratorCount")) for acc in items(raw, "guestAccelerators"))
    # Local SSDs are the SCRATCH disks (AttachedDisk.type, compute v1 discovery doc).
    local_ssds = sum(1 for disk in items(raw, "disks") if disk.get("type") == "SCRATCH")
    if gpus == 0 and machine_type.startswith(_GPU_FAMILIES):
        gpus = 1
    managed_by: str | None = None
    notebook = any(k.startswith("goog-caip-notebook") for k in labels) or (
        "notebooks-api" in metadata
    )
    # Workbench instances, GKE nodes and MIG members are Compute VMs underneath; stopping them
    # through Compute fights their owner (GKE/MIG recreate them, Workbench loses its state).
    if "goog-gke-node" in labels or "goog-k8s-cluster-name" in labels:
        managed_by = "gke"
    elif _workbench_v2(metadata):
        managed_by = "workbench"
    elif "goog-dataproc-cluster-name" in labels:
        managed_by = "dataproc"
    elif "/instanceGroupManagers/" in metadata.get("created-by", ""):
        managed_by = "mig"
    return Workload(
        kind="compute",
        project=project,
        zone=last_segment(raw.get("zone")),
        name=str(raw.get("name", "")),
        state=str(raw.get("status", "")),
        labels=labels,
        gpus=gpus,
        instance_id=str(raw.get("id", "")),
        managed_by=managed_by,
        local_ssds=local_ssds,
        # A user-managed (Notebooks v1) notebook: the v2 API never lists it, so it is stopped
        # through Compute like any VM (labels and metadata as recorded in
        # tests/functions/data/get-v1-projects-cloud-custodian-locations---instances_1.json).
        user_managed_notebook=notebook and managed_by is None,
        last_start=_instant(raw.get("lastStartTimestamp")),
        provisioning_model=str(sub(raw, "scheduling").get("provisioningModel") or ""),
    )


def _instant(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as UTC, None when absent or unreadable (then nothing is judged)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return periods.parse_instant(value)
    except periods.PeriodError:
        return None


def _workbench_v2(metadata: Mapping[str, str]) -> bool:
    """A Workbench instance's VM (Notebooks API v2), which that API lists and stops.

    Its metadata says so (notebooks-api-version: v2, resource-url naming the v2 instance:
    tests/functions/data/get-notebooks.googleapis.com-v2-...-instances_1.json, gceSetup.metadata);
    a user-managed (v1) notebook VM carries neither.
    """
    return metadata.get("notebooks-api-version") == "v2" or (
        "notebooks.googleapis.com/v2/" in metadata.get("resource-url", "")
    )


def notebook_instance(project: str, raw: Mapping[str, Any]) -> Workload:
    """A Notebooks v2 (Workbench) `Instance` JSON as a Workload."""
    match = _RESOURCE_NAME.fullmatch(str(raw.get("name", "")))
    if match is None:
        raise ParseError(f"notebook instance: unexpected name {raw.get('name')!r}")
    setup = sub(raw, "gceSetup")
    gpus = sum(integer(acc.get("coreCount")) for acc in items(setup, "acceleratorConfigs"))
    return Workload(
        kind="notebook",
        project=project,
        zone=match["zone"],
        name=match["name"],
        state=str(raw.get("state", "")),
        labels=label_map(raw.get("labels")),
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
        labels=label_map(raw.get("labels")),
        instance_id=str(raw.get("id", "")),
        # A TPU Node records no start time (tpu v2 discovery doc); it ran no earlier than this.
        last_start=_instant(raw.get("createTime")),
    )


def recommendation(project: str, raw: Mapping[str, Any]) -> Recommendation:
    """An idle-VM recommendation JSON; `problem` says why it cannot be acted on, if so.

    Real names carry the project NUMBER, so the target is matched by the zone and instance
    name found in the operations (the project is the one we listed under). An operation whose
    instance path names a project that is neither the one listed nor the number in the
    recommendation's own name is about another project's VM: never acted on (a VM of the
    same zone and name in the listed project is not that VM).
    """
    name = str(raw.get("name", ""))
    zone_match = re.search(r"/locations/([^/]+)/", name)
    zone = zone_match[1] if zone_match else ""
    own = re.match(r"projects/([^/]+)/", name)
    ours = {project, own[1]} if own else {project}
    state_info = sub(raw, "stateInfo")
    state = str(state_info.get("state", ""))
    subtype = str(raw.get("recommenderSubtype", ""))
    etag = str(raw.get("etag", ""))
    instance: str | None = None
    problem = ""
    groups = items(sub(raw, "content"), "operationGroups")
    targets: set[tuple[str, str]] = set()
    foreign: set[str] = set()
    for group in groups:
        for op in items(group, "operations"):
            resource = str(op.get("resource", ""))
            if op.get("resourceType") != INSTANCE_RESOURCE_TYPE or "$" in resource:
                continue  # placeholders like `$snapshot-name` name nothing real
            if m := _INSTANCE_PATH.fullmatch(resource):
                targets.add((m["zone"], m["name"]))
                if m["project"] not in ours:
                    foreign.add(m["project"])
    if not groups:
        problem = "recommendation has no operationGroups"
    elif foreign:
        problem = (
            f"recommendation names an instance of project(s) {', '.join(sorted(foreign))}, "
            f"not {project}; not acted on"
        )
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
        state_metadata=label_map(state_info.get("stateMetadata")),
    )


# The unit each accelerator metric is documented in (UCUM, as timeSeries.list reports it): the
# Ops Agent's gpu/utilization and TPU accelerator/duty_cycle are percentages, 0-100
# (https://cloud.google.com/monitoring/api/metrics_opsagent#agent-gpu and
# https://cloud.google.com/monitoring/api/metrics_gcp_p_z#gcp-tpu). A series in another unit
# (a ratio, `10^2.%`, as compute.googleapis.com/instance/cpu/utilization is reported in
# tests/functions/data/filter-metrics/) would read 0.5 for 50% busy: it counts as no data.
PERCENT = "%"


def _point_time(point: Mapping[str, Any]) -> tuple[datetime, datetime] | None:
    """A point's interval (start, end); a gauge's start is its end. None if unreadable."""
    interval = sub(point, "interval")
    end = _instant(interval.get("endTime"))
    if end is None:
        return None
    start = _instant(interval.get("startTime")) or end
    return start, end


def _point_value(point: Mapping[str, Any]) -> float | None:
    value = sub(point, "value")
    raw: Any = value.get("doubleValue", value.get("int64Value"))
    if raw is None:
        return None
    try:
        number = float(raw)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _judge_series(
    series: Mapping[str, Any], page_unit: str, window: MetricWindow, unit: str
) -> Usage | None:
    """One series' mean over the window, why it cannot be judged, or None (no points in it).

    Only points whose whole interval lies inside the window count. The series must cover the
    window: a point within two steps of its start and of its end (aligned points are stamped at
    step boundaries; the newest may not be visible yet). A series that began within the window
    is of a VM or agent that started in it, and a few idle minutes of start-up are not an idle
    hour.
    """
    found_unit = str(series.get("unit") or page_unit or "")
    if found_unit != unit:
        return Unjudged(f"its series is in unit {found_unit or '(none)'!r}, not {unit!r}", True)
    times: list[datetime] = []
    values: list[float] = []
    for point in items(series, "points"):
        span, number = _point_time(point), _point_value(point)
        if span is None or number is None:
            continue
        start, end = span
        if start < window.start or end > window.end:
            continue  # outside the window: not part of what is judged
        times.append(end)
        values.append(number)
    if not values:
        return None
    slack = timedelta(seconds=2 * window.step_seconds)
    first, last = min(times), max(times)
    if first > window.start + slack or last < window.end - slack:
        covered = max(1, round((last - first).total_seconds() / 60) + window.step_seconds // 60)
        return Unjudged(
            f"data covers {covered} of the last {window.minutes} min (from "
            f"{first:%H:%M:%SZ} to {last:%H:%M:%SZ}); judged once it covers the whole window"
        )
    return sum(values) / len(values)


def _series_usage(
    pages: Iterable[Mapping[str, Any]], window: MetricWindow, *labels: str
) -> dict[str, Usage]:
    """{resource label value: busiest series' mean, or why not judged} over timeSeries pages.

    The key is the first of `labels` the series' resource carries. A resource is judged only
    when every one of its series can be (one unjudged series, e.g. a GPU whose data begins late,
    makes the whole VM unjudged: it might be the busy one). A resource without points in the
    window is absent (never read absence as idle).
    """
    best: dict[str, Usage] = {}
    for page in pages:
        page_unit = str(page.get("unit") or "")
        for series in items(page, "timeSeries"):
            resource_labels = sub(sub(series, "resource"), "labels")
            key = next((str(resource_labels[k]) for k in labels if resource_labels.get(k)), "")
            usage = _judge_series(series, page_unit, window, PERCENT) if key else None
            if usage is None:
                continue
            known = best.get(key)
            if isinstance(known, Unjudged):
                continue
            if isinstance(usage, Unjudged) or known is None:
                best[key] = usage
            else:
                best[key] = max(known, usage)
    return best


def gpu_utilization(pages: Iterable[Mapping[str, Any]], window: MetricWindow) -> dict[str, Usage]:
    """Monitoring `timeSeries.list` pages to {instance_id: busiest GPU's mean utilization %}.

    A VM is as busy as its busiest GPU; a VM with no data in the window is absent.
    """
    return _series_usage(pages, window, "instance_id")


def tpu_duty_cycle(pages: Iterable[Mapping[str, Any]], window: MetricWindow) -> dict[str, Usage]:
    """`tpu.googleapis.com/accelerator/duty_cycle` pages to {node_id: busiest worker's mean %}.

    The `tpu_worker` resource names its TPU VM in `node_id`; a multi-host slice is as busy as
    its busiest worker, and a node with no data in the window is absent.
    """
    return _series_usage(pages, window, "node_id")
