"""Human and pull-request (markdown) views of a plan document.

Pure: a plan document in, text out. The key cost settings shown per resource are the handful of
inputs that decide its bill (machine type, accelerators, spot, idle timeout, scaling bounds,
tier, expirations), read with the same camelCase keys the policies and estimator use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

Doc = Mapping[str, Any]
Inputs = Mapping[str, Any]


def _get(inputs: Any, *path: str) -> Any:
    value: Any = inputs
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = cast(Mapping[str, Any], value).get(key)
    return value


def _map(value: Any) -> Mapping[str, Any]:
    return cast(Mapping[str, Any], value) if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return cast(list[Any], value) if isinstance(value, list) else []


def region_of(inputs: Inputs) -> str:
    """The location a resource lives in (zone, region or multi-region), or '-' if global."""
    for key in ("zone", "location", "region"):
        if isinstance(value := inputs.get(key), str) and value:
            return value
    return "-"


def _n(value: Any) -> str:
    """Numbers as the user wrote them: mocks hand integers back as floats (1.0 -> 1)."""
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def _days(ms: Any) -> str:
    try:
        return f"{float(ms) / 86_400_000:g}d"
    except (TypeError, ValueError):
        return "?"


def _workbench(i: Inputs) -> list[str]:
    parts = [str(_get(i, "gceSetup", "machineType"))]
    for acc in _list(_get(i, "gceSetup", "acceleratorConfigs")):
        parts.append(f"{_n(_get(acc, 'coreCount'))}x {_get(acc, 'type')}")
    idle = _get(i, "gceSetup", "metadata", "idle-timeout-seconds")
    parts.append(f"idle stop {int(idle) // 60} min" if idle else "NO idle stop")
    if _get(i, "gceSetup", "disablePublicIp"):
        parts.append("no public IP")
    return parts


def _node_pool(i: Inputs) -> list[str]:
    cfg = _map(_get(i, "nodeConfig"))
    parts = [str(_get(cfg, "machineType"))]
    for acc in _list(_get(cfg, "guestAccelerators")):
        parts.append(f"{_n(_get(acc, 'count'))}x {_get(acc, 'type')}")
    if _get(cfg, "spot") or _get(cfg, "preemptible"):
        parts.append("spot")
    auto = _map(_get(i, "autoscaling"))
    low = _get(auto, "totalMinNodeCount") or _get(auto, "minNodeCount") or 0
    high = _get(auto, "totalMaxNodeCount") or _get(auto, "maxNodeCount")
    parts.append(f"nodes {low:g}-{high:g}" if isinstance(high, int | float) else "fixed size")
    return parts


def _cluster(i: Inputs) -> list[str]:
    ca = _map(_get(i, "clusterAutoscaling"))
    parts = ["NAP on" if _get(ca, "enabled") else "NAP off"]
    if profile := _get(ca, "autoscalingProfile"):
        parts.append(str(profile))
    limits = [
        f"{_get(limit, 'resourceType')}<={_get(limit, 'maximum'):g}"
        for limit in _list(_get(ca, "resourceLimits"))
        if isinstance(_get(limit, "maximum"), int | float)
    ]
    parts += limits
    if _get(i, "costManagementConfig", "enabled"):
        parts.append("cost allocation")
    return parts


def _instance(i: Inputs) -> list[str]:
    parts = [str(i.get("machineType"))]
    for acc in _list(i.get("guestAccelerators")):
        parts.append(f"{_n(_get(acc, 'count'))}x {_get(acc, 'type')}")
    if _get(i, "scheduling", "provisioningModel") == "SPOT":
        parts.append("spot")
    if (seconds := _get(i, "scheduling", "maxRunDuration", "seconds")) is not None:
        parts.append(f"max run {float(seconds) / 3600:g}h")
    return parts


def _tpu(i: Inputs) -> list[str]:
    parts = [str(i.get("acceleratorType"))]
    sched = _map(i.get("schedulingConfig"))
    if _get(sched, "spot") or _get(sched, "preemptible"):
        parts.append("spot")
    return parts


def _sql(i: Inputs) -> list[str]:
    s = _map(i.get("settings"))
    parts = [
        str(_get(s, "tier")),
        str(_get(s, "availabilityType") or "ZONAL"),
        f"{_n(_get(s, 'diskSize'))} GB",
    ]
    if _get(s, "backupConfiguration", "enabled"):
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
    tp = _map(i.get("timePartitioning"))
    parts = [f"partitioned {_get(tp, 'type')}" if tp else "NOT partitioned"]
    if i.get("requirePartitionFilter"):
        parts.append("partition filter required")
    return parts


def _budget(i: Inputs) -> list[str]:
    units = _get(i, "amount", "specifiedAmount", "units")
    rules = _list(i.get("thresholdRules"))
    return [f"${units}/month", f"{len(rules)} thresholds"]


def _labels_only(i: Inputs) -> list[str]:
    return []


SUMMARIES: dict[str, Callable[[Inputs], list[str]]] = {
    "gcp:workbench/instance:Instance": _workbench,
    "gcp:container/nodePool:NodePool": _node_pool,
    "gcp:container/cluster:Cluster": _cluster,
    "gcp:compute/instance:Instance": _instance,
    "gcp:tpu/v2Vm:V2Vm": _tpu,
    "gcp:sql/databaseInstance:DatabaseInstance": _sql,
    "gcp:bigquery/dataset:Dataset": _dataset,
    "gcp:bigquery/table:Table": _table,
    "gcp:billing/budget:Budget": _budget,
}


def key_settings(type_: str, inputs: Inputs) -> str:
    """The inputs that decide a resource's cost, as one short line."""
    return ", ".join(SUMMARIES.get(type_, _labels_only)(inputs))


def short_type(type_: str) -> str:
    """`gcp:workbench/instance:Instance` -> `workbench/Instance`."""
    parts = type_.split(":")
    if len(parts) == 3:
        return f"{parts[1].split('/')[0]}/{parts[2]}"
    return type_


def _usd(value: Any) -> str:
    return f"${value:,.2f}" if isinstance(value, int | float) else "-"


def _rows(doc: Doc) -> list[tuple[str, str, str, str, str]]:
    return [
        (
            r["name"],
            short_type(r["type"]),
            region_of(r.get("inputs") or {}),
            key_settings(r["type"], r.get("inputs") or {}),
            _usd(r.get("monthly_usd")),
        )
        for r in doc.get("resources", [])
        if not str(r["type"]).startswith("mlgov:index:")
    ]


def _counts(doc: Doc) -> tuple[int, int]:
    violations: Sequence[Mapping[str, Any]] = doc.get("violations", [])
    mandatory = sum(1 for v in violations if v.get("enforcement") == "mandatory")
    return mandatory, len(violations) - mandatory


def _cost_line(doc: Doc) -> str:
    cost = doc.get("cost")
    if not isinstance(cost, Mapping):
        return "cost: not estimated"
    monthly, base = cost.get("monthly_usd"), cost.get("baseline_monthly_usd")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    line = f"estimated {_usd(monthly)}/month"
    if isinstance(monthly, int | float) and isinstance(base, int | float) and base > 0:
        saved = base - monthly
        line += (
            f" (ungoverned baseline {_usd(base)}/month; governance saves "
            f"{_usd(saved)}, {saved / base:.0%})"
        )
    return line


def text(doc: Doc) -> str:
    """The human view: a resource table, then findings, then the verdict."""
    rows = [("RESOURCE", "TYPE", "REGION", "KEY COST SETTINGS", "$/MONTH"), *_rows(doc)]
    widths = [min(max(len(r[c]) for r in rows), cap) for c, cap in enumerate((40, 26, 16, 70, 12))]
    lines = [f"mlgov plan for stack {doc.get('stack') or '?'}", ""]
    for row in rows:
        cells = [
            cell if len(cell) <= w else cell[: w - 1] + "…"
            for cell, w in zip(row, widths, strict=True)
        ]
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
    lines += ["", _cost_line(doc)]
    mandatory, advisory = _counts(doc)
    for v in doc.get("violations", []):
        lines += [
            "",
            f"[{v.get('enforcement', '?').upper()}] {v.get('policy')} on "
            f"{v.get('resource') or 'the stack'} ({short_type(str(v.get('type', '')))})",
            f"  what: {v.get('message')}",
        ]
        if v.get("why"):
            lines.append(f"  why:  {v['why']}")
        if v.get("remediation"):
            lines.append(f"  fix:  {v['remediation']}")
    verdict = (
        f"FAIL: {mandatory} mandatory violation(s), {advisory} advisory"
        if mandatory
        else f"OK: no mandatory violations, {advisory} advisory"
    )
    lines += ["", verdict]
    return "\n".join(lines)


def _md_cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def markdown(doc: Doc) -> str:
    """The pull-request comment: verdict, cost, findings, then resources folded away."""
    mandatory, advisory = _counts(doc)
    rows = _rows(doc)
    icon = ":x:" if mandatory else ":white_check_mark:"
    out = [
        f"### {icon} mlgov plan: `{doc.get('stack') or '?'}`",
        "",
        f"**{len(rows)} resources** · {_cost_line(doc)} · "
        f"**{mandatory} mandatory**, {advisory} advisory finding(s)",
        "",
    ]
    if doc.get("violations"):
        out += ["| enforcement | policy | resource | problem | fix |", "|---|---|---|---|---|"]
        out += [
            f"| {v.get('enforcement')} | `{v.get('policy')}` | `{v.get('resource') or 'stack'}` "
            f"| {_md_cell(str(v.get('message')))} | {_md_cell(str(v.get('remediation', '')))} |"
            for v in doc["violations"]
        ]
        out.append("")
    out += [
        "<details><summary>Resources</summary>",
        "",
        "| resource | type | region | key cost settings | $/month |",
        "|---|---|---|---|---|",
    ]
    out += [f"| `{n}` | {t} | {r} | {_md_cell(k)} | {c} |" for n, t, r, k, c in rows]
    out += ["", "</details>"]
    return "\n".join(out)
