"""The key cost settings of a resource: the handful of inputs that decide its bill, as one line.

Pure: a type token and the resource's inputs (camelCase, as the engine and CrossGuard see them)
in, short phrases out (machine type, accelerators, spot, idle timeout, scaling bounds, tier,
expirations, lifecycle rules), read with the policies' input readers (`mlgov_policies.props`).
One summary per resource type in `SUMMARIES`; a type without one shows no settings. How the
phrases are laid out in a table is render.py's business.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from governance.costs.disk_sizes import DEFAULT_DISK_TYPE, DEFAULT_SIZE_GB
from mlgov_policies.compat.spend_caps import BY_SERVICE, money_value
from mlgov_policies.props import (
    UNKNOWN_SENTINELS,
    as_list,
    as_mapping,
    as_number,
    dig,
    is_unknown,
)
from mlgov_policies.vocabulary import SPEND_CAP_BUDGET

Inputs = Mapping[str, Any]


def _n(value: Any) -> str:
    """Numbers as the user wrote them: mocks hand integers back as floats (1.0 -> 1)."""
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def _value(value: Any, default: str) -> str:
    """A setting as written; `default` (Google's) when unset; "unknown" until apply."""
    if is_unknown(value):
        return "unknown"
    return default if value is None or value == "" else str(value)


def _days(ms: Any) -> str:
    try:
        return f"{float(ms) / 86_400_000:g}d"
    except (TypeError, ValueError):
        return "?"


def _workbench(i: Inputs) -> list[str]:
    parts = [_value(dig(i, "gceSetup", "machineType"), "n1-standard-4 (default)")]
    for acc in as_list(dig(i, "gceSetup", "acceleratorConfigs")):
        parts.append(f"{_n(dig(acc, 'coreCount'))}x {dig(acc, 'type')}")
    idle = dig(i, "gceSetup", "metadata", "idle-timeout-seconds")
    try:  # a string of digits, as Workbench takes it; anything else is shown as written
        idle_stop = f"idle stop {int(idle) // 60} min" if idle else "NO idle stop"
    except (TypeError, ValueError):
        idle_stop = f"idle stop {idle!r}?"
    parts.append(idle_stop)
    if dig(i, "gceSetup", "disablePublicIp"):
        parts.append("no public IP")
    return parts


def _node_pool(i: Inputs) -> list[str]:
    cfg = as_mapping(dig(i, "nodeConfig"))
    parts = [_value(dig(cfg, "machineType"), "e2-medium (default)")]
    for acc in as_list(dig(cfg, "guestAccelerators")):
        parts.append(f"{_n(dig(acc, 'count'))}x {dig(acc, 'type')}")
    if dig(cfg, "spot") or dig(cfg, "preemptible"):
        parts.append("spot")
    auto = as_mapping(dig(i, "autoscaling"))
    low = dig(auto, "totalMinNodeCount") or dig(auto, "minNodeCount") or 0
    high = dig(auto, "totalMaxNodeCount") or dig(auto, "maxNodeCount")
    parts.append(f"nodes {_n(low)}-{_n(high)}" if isinstance(high, int | float) else "fixed size")
    return parts


def _cluster(i: Inputs) -> list[str]:
    ca = as_mapping(dig(i, "clusterAutoscaling"))
    parts = ["NAP on" if dig(ca, "enabled") else "NAP off"]
    if profile := dig(ca, "autoscalingProfile"):
        parts.append(str(profile))
    limits = [
        f"{dig(limit, 'resourceType')}<={dig(limit, 'maximum'):g}"
        for limit in as_list(dig(ca, "resourceLimits"))
        if isinstance(dig(limit, "maximum"), int | float)
    ]
    parts += limits
    if dig(i, "costManagementConfig", "enabled"):
        parts.append("cost allocation")
    return parts


def _instance(i: Inputs) -> list[str]:
    parts = [_value(i.get("machineType"), "?")]
    for acc in as_list(i.get("guestAccelerators")):
        parts.append(f"{_n(dig(acc, 'count'))}x {dig(acc, 'type')}")
    if dig(i, "scheduling", "provisioningModel") == "SPOT":
        parts.append("spot")
    if (seconds := dig(i, "scheduling", "maxRunDuration", "seconds")) is not None:
        try:
            parts.append(f"max run {float(seconds) / 3600:g}h")
        except (TypeError, ValueError):
            parts.append(f"max run {seconds!r}?")
    return parts


def _disk(i: Inputs) -> list[str]:
    """Type and size: what a disk's price is per GB of (pd-standard when unset, as Google does)."""
    kind = _value(i.get("type"), DEFAULT_DISK_TYPE)
    parts = [kind]
    if (size := i.get("size")) is not None:
        parts.append(f"{_value(_n(size), '?')} GB")
    elif i.get("image") or i.get("snapshot") or i.get("sourceDisk"):
        parts.append("size of its source")
    elif (default := DEFAULT_SIZE_GB.get(kind)) is not None:
        parts.append(f"{_n(default)} GB (Google's default)")
    for key, unit in (("provisionedIops", "IOPS"), ("provisionedThroughput", "MB/s")):
        if (value := i.get(key)) is not None:
            parts.append(f"{_value(_n(value), '?')} {unit}")
    return parts


def _tpu(i: Inputs) -> list[str]:
    config = as_mapping(i.get("acceleratorConfig"))
    written = f"{_value(config.get('type'), '?')} {_value(config.get('topology'), '?')}"
    parts = [_value(i.get("acceleratorType"), written if config else "v2-8 (default)")]
    sched = as_mapping(i.get("schedulingConfig"))
    if dig(sched, "spot") or dig(sched, "preemptible"):
        parts.append("spot")
    return parts


def _sql(i: Inputs) -> list[str]:
    s = as_mapping(i.get("settings"))
    parts = [_value(dig(s, "tier"), "?"), _value(dig(s, "availabilityType"), "ZONAL")]
    if (size := dig(s, "diskSize")) is not None:  # unset (Google's default) read "None GB"
        parts.append(f"{_n(size)} GB")
    if dig(s, "backupConfiguration", "enabled"):
        parts.append("backups")
    if i.get("deletionProtection"):
        parts.append("deletion protection")
    return parts


def _dataset(i: Inputs) -> list[str]:
    parts: list[str] = []
    if (ms := i.get("defaultTableExpirationMs")) is not None:
        parts.append(f"tables expire {_days(ms)}")
    if (ms := i.get("defaultPartitionExpirationMs")) is not None:
        parts.append(f"partitions expire {_days(ms)}")
    return parts or ["never expires"]


def _table(i: Inputs) -> list[str]:
    tp = as_mapping(i.get("timePartitioning"))
    parts = [f"partitioned {dig(tp, 'type')}" if tp else "NOT partitioned"]
    if i.get("requirePartitionFilter"):
        parts.append("partition filter required")
    return parts


def _budget(i: Inputs) -> list[str]:
    amount = money_value(dig(i, "amount", "specifiedAmount"))
    rules = as_list(i.get("thresholdRules"))
    parts = [f"${amount:,.2f}/month" if amount is not None else "$?/month"]
    if services := as_list(dig(i, "budgetFilter", "services")):
        named = [BY_SERVICE[s].name if s in BY_SERVICE else str(s) for s in services]
        parts.append(f"on {', '.join(named)}")
    return [*parts, f"{len(rules)} thresholds"]


def _spend_cap(i: Inputs) -> list[str]:
    services = as_list(dig(i, "budgetFilter", "services"))
    service = BY_SERVICE.get(str(services[0])) if services else None
    amount = money_value(dig(i, "amount", "specifiedAmount"))
    cap = f"spend cap ${amount:,.2f}/month" if amount is not None else "spend cap ?"
    return [service.name if service else "?", cap]


def _bucket(i: Inputs) -> list[str]:
    parts = [str(i.get("storageClass") or "STANDARD")]
    for rule in as_list(i.get("lifecycleRules")):
        action, cond = as_mapping(dig(rule, "action")), as_mapping(dig(rule, "condition"))
        kind, age = action.get("type"), cond.get("age")
        newer = as_number(cond.get("numNewerVersions"))
        if kind == "SetStorageClass" and age is not None:
            parts.append(f"{action.get('storageClass')} at {_n(age)}d")
        elif kind == "Delete" and newer is not None:
            # numNewerVersions counts the live version: N + 1 keeps N old versions.
            parts.append(f"keep {newer - 1:g} old versions")
        elif kind == "Delete" and age is not None:
            parts.append(f"delete at {_n(age)}d")
        elif kind == "AbortIncompleteMultipartUpload":
            parts.append(f"abort uploads {_n(age)}d")
    return parts if len(parts) > 1 else [*parts, "NO lifecycle"]


def _repository(i: Inputs) -> list[str]:
    parts = [str(i.get("format"))]
    for policy in as_list(i.get("cleanupPolicies")):
        keep = dig(policy, "mostRecentVersions", "keepCount")
        older = dig(policy, "condition", "olderThan")
        if keep is not None:
            parts.append(f"keep {_n(keep)} recent")
        elif isinstance(older, str) and older.endswith("s") and older[:-1].isdigit():
            state = str(dig(policy, "condition", "tagState") or "ANY").lower()
            parts.append(f"delete {state} after {int(older[:-1]) // 86_400}d")
    if len(parts) == 1:
        parts.append("NO cleanup")
    if i.get("cleanupPolicyDryRun"):
        parts.append("dry run")
    return parts


def _quota(i: Inputs) -> list[str]:
    limit = str(i.get("limit") or "").replace("%2F", "/")
    value = i.get("overrideValue")
    try:
        cap = f"{float(str(value)) / 1_048_576:g} TiB/day"
    except ValueError:
        cap = str(value)
    scope = "per user" if limit.endswith("/user") else "per project"
    return [f"query bytes <= {cap} {scope}"]


def _log_bucket(i: Inputs) -> list[str]:
    return [f"{i.get('bucketId')} keeps {_n(i.get('retentionDays'))} days"]


def _log_exclusion(i: Inputs) -> list[str]:
    return [f"excludes {i.get('filter')}"]


def _labels_only(i: Inputs) -> list[str]:
    return []


SUMMARIES: dict[str, Callable[[Inputs], list[str]]] = {
    "gcp:workbench/instance:Instance": _workbench,
    "gcp:container/nodePool:NodePool": _node_pool,
    "gcp:container/cluster:Cluster": _cluster,
    "gcp:compute/instance:Instance": _instance,
    "gcp:compute/disk:Disk": _disk,
    "gcp:compute/regionDisk:RegionDisk": _disk,
    "gcp:tpu/v2Vm:V2Vm": _tpu,
    "gcp:sql/databaseInstance:DatabaseInstance": _sql,
    "gcp:bigquery/dataset:Dataset": _dataset,
    "gcp:bigquery/table:Table": _table,
    "gcp:billing/budget:Budget": _budget,
    "gcp:storage/bucket:Bucket": _bucket,
    "gcp:artifactregistry/repository:Repository": _repository,
    "gcp:serviceusage/consumerQuotaOverride:ConsumerQuotaOverride": _quota,
    "gcp:logging/projectBucketConfig:ProjectBucketConfig": _log_bucket,
    "gcp:logging/projectExclusion:ProjectExclusion": _log_exclusion,
    SPEND_CAP_BUDGET: _spend_cap,
}


def key_settings(type_: str, inputs: Inputs) -> str:
    """The inputs that decide a resource's cost, as one short line."""
    line = ", ".join(SUMMARIES.get(type_, _labels_only)(inputs))
    for sentinel in UNKNOWN_SENTINELS:  # a value known after apply, wherever it shows
        line = line.replace(sentinel, "unknown")
    return line
