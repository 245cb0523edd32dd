"""Human and pull-request (markdown) views of a plan document, and the one spelling of a type.

Pure: a plan document in, text out. The key cost settings shown per resource are the handful of
inputs that decide its bill (machine type, accelerators, spot, idle timeout, scaling bounds,
tier, expirations), read with the policies' input readers (`mlgov_policies.props`). The human
table fits the width it is given (the terminal's, from the CLI), cutting the key settings first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mlgov_policies.props import as_list, as_mapping, as_number, dig
from mlgov_policies.vocabulary import is_component

Doc = Mapping[str, Any]
Inputs = Mapping[str, Any]


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
    parts = [str(dig(i, "gceSetup", "machineType"))]
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
    parts = [str(dig(cfg, "machineType"))]
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
    parts = [str(i.get("machineType"))]
    for acc in as_list(i.get("guestAccelerators")):
        parts.append(f"{_n(dig(acc, 'count'))}x {dig(acc, 'type')}")
    if dig(i, "scheduling", "provisioningModel") == "SPOT":
        parts.append("spot")
    if (seconds := dig(i, "scheduling", "maxRunDuration", "seconds")) is not None:
        parts.append(f"max run {float(seconds) / 3600:g}h")
    return parts


def _tpu(i: Inputs) -> list[str]:
    parts = [str(i.get("acceleratorType"))]
    sched = as_mapping(i.get("schedulingConfig"))
    if dig(sched, "spot") or dig(sched, "preemptible"):
        parts.append("spot")
    return parts


def _sql(i: Inputs) -> list[str]:
    s = as_mapping(i.get("settings"))
    parts = [
        str(dig(s, "tier")),
        str(dig(s, "availabilityType") or "ZONAL"),
        f"{_n(dig(s, 'diskSize'))} GB",
    ]
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
    units = dig(i, "amount", "specifiedAmount", "units")
    rules = as_list(i.get("thresholdRules"))
    return [f"${units}/month", f"{len(rules)} thresholds"]


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
}


def key_settings(type_: str, inputs: Inputs) -> str:
    """The inputs that decide a resource's cost, as one short line."""
    return ", ".join(SUMMARIES.get(type_, _labels_only)(inputs))


def short_type(type_: str) -> str:
    """How plan and diff spell a type: `gcp:workbench/instance:Instance` -> `workbench/Instance`.

    Machine-readable output (`--json`) keeps the full type token.
    """
    parts = type_.split(":")
    if len(parts) == 3:
        return f"{parts[1].split('/')[0]}/{parts[2]}"
    return type_


def _usd(value: Any) -> str:
    return f"${value:,.2f}" if isinstance(value, int | float) else "-"


def settings_cell(r: Mapping[str, Any]) -> str:
    """A row's key cost settings, with an informational worst case where the resource has one."""
    cell = key_settings(r["type"], r.get("inputs") or {})
    if isinstance(worst := r.get("worst_case_monthly_usd"), int | float):
        # A quota's ceiling: shown beside the estimate, never added to it.
        cell += f", worst case {_usd(worst)}/month (not in total)"
    return cell


def cost_cell(resource: Mapping[str, Any]) -> str:
    """A row's $/month: `unpriced`, or the amount with `*` when it uses a fallback price."""
    if resource.get("unpriced"):
        return "unpriced"
    return _usd(resource.get("monthly_usd")) + ("*" if resource.get("price_fallbacks") else "")


def price_notes(doc: Doc) -> list[str]:
    """The catalog's date and what a reader of the total must know (fallbacks, gaps)."""
    catalog = as_mapping(doc.get("price_catalog"))
    notes: list[str] = []
    if catalog.get("date"):
        refreshed = catalog.get("refreshed")
        notes.append(
            f"prices: catalog of {catalog['date']}"
            + (f", refreshed {refreshed}" if refreshed else "")
            + " (`mlgov prices refresh` updates it)"
        )
    notes += [f"* {n}" for n in as_list(as_mapping(doc.get("cost")).get("notes"))]
    return notes


def _rows(doc: Doc) -> list[tuple[str, str, str, str, str]]:
    return [
        (
            r["name"],
            short_type(r["type"]),
            region_of(r.get("inputs") or {}),
            settings_cell(r),
            cost_cell(r),
        )
        for r in doc.get("resources", [])
        if not is_component(str(r["type"]))
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


# Columns of the human table. When the terminal is narrow, the widest of RESOURCE, REGION and
# KEY COST SETTINGS gives up a character at a time down to its comfortable minimum; then TYPE;
# then, on a very narrow terminal, all of them down to _TIGHT. The cost column is never cut.
_HEADERS = ("RESOURCE", "TYPE", "REGION", "KEY COST SETTINGS", "$/MONTH")
_TIGHT = 8
_STAGES: tuple[dict[int, int], ...] = (
    {0: 20, 2: 11, 3: 16},
    {1: 20},
    dict.fromkeys((0, 1, 2, 3), _TIGHT),
)
_GAP = 2


def fit_widths(natural: Sequence[int], width: int | None) -> list[int]:
    """Column widths that fit `width` characters (None: no limit), shrinking as _STAGES says."""
    widths = list(natural)
    if width is None:
        return widths
    excess = sum(widths) + _GAP * (len(widths) - 1) - width
    for minimums in _STAGES:
        while excess > 0:
            room = [c for c, low in minimums.items() if widths[c] > low]
            if not room:
                break
            widest = max(room, key=lambda c: widths[c])
            widths[widest] -= 1
            excess -= 1
    return widths


def _cut(cell: str, width: int) -> str:
    return cell if len(cell) <= width else cell[: width - 1] + "…"


def text(doc: Doc, width: int | None = None) -> str:
    """The human view: a resource table (at most `width` wide), then findings, then the verdict."""
    rows = [_HEADERS, *_rows(doc)]
    widths = fit_widths([max(len(r[c]) for r in rows) for c in range(len(_HEADERS))], width)
    lines = [f"mlgov plan for stack {doc.get('stack') or '?'}", ""]
    for row in rows:
        cells = [_cut(cell, w).ljust(w) for cell, w in zip(row, widths, strict=True)]
        lines.append((" " * _GAP).join(cells).rstrip())
    lines += ["", _cost_line(doc), *price_notes(doc)]
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
    if doc.get("warnings"):
        out += ["**Settings that do nothing:**", ""]
        out += [f"- `{w.get('key')}`: {_md_cell(str(w.get('message')))}" for w in doc["warnings"]]
        out.append("")
    out += [
        "<details><summary>Resources</summary>",
        "",
        "| resource | type | region | key cost settings | $/month |",
        "|---|---|---|---|---|",
    ]
    out += [f"| `{n}` | {t} | {r} | {_md_cell(k)} | {c} |" for n, t, r, k, c in rows]
    out += ["", "</details>"]
    out += ["", *(f"<sub>{_md_cell(n)}</sub><br>" for n in price_notes(doc))]
    return "\n".join(out).rstrip()
