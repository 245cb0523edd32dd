"""Estimate vs actual: join a plan document's resources to what the detailed export billed. Pure.

A plan resource's estimate is its `monthly_usd` scaled to the window (a month is 730 hours, the
convention of governance/costs and Google's pricing calculator). Its actual is the net cost in
US dollars of the detailed-export rows that belong to it, or None when none do. A row belongs
to at most one resource, tried in this order:

1. GKE node pools: node VMs (and their disks) carry the labels `goog-k8s-cluster-name` and
   `goog-k8s-node-pool-name`; a row with the pool's cluster and pool name is the pool's.
2. By name: the row's `resource.name`, or the last segment of `resource.global_name`, equals
   the resource's physical name (`inputs.name`; `inputs.datasetId` for datasets). This covers
   Workbench instances and VMs, TPU VMs, Cloud SQL instances (`.../instances/NAME`), clusters
   (the management fee), functions, buckets, NAT gateways.
3. Attached resources: for VMs and Workbench instances, a `resource.name` that starts with the
   physical name and a hyphen (boot and data disks) is theirs; the longest such name wins, so
   `nb-a-2` is not counted as `nb-a`.

Rows must be in the resource's project (its `inputs.project`, else the plan's `project`). Rows
that match nothing are "unmatched": resources the plan does not know (node pools created by
node auto-provisioning, things made by hand) and costs with no resource (network egress).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_number, as_str, dig

HOURS_PER_MONTH = 730.0  # same month as governance/costs/assumptions.py
TOP_UNMATCHED = 10
CENT = 0.005  # unmatched groups that net to less than a cent (credits cancelling) are not listed

# Type token -> whether resources named "<name>-..." (attached disks) belong to it.
_BY_NAME: dict[str, bool] = {
    v.WORKBENCH_INSTANCE: True,
    v.COMPUTE_INSTANCE: True,
    v.TPU_VM: False,
    v.SQL_INSTANCE: False,
    v.GKE_CLUSTER: False,
    v.FUNCTION_V2: False,
    v.STORAGE_BUCKET: False,
    v.COMPUTE_ROUTER_NAT: False,
    v.BQ_DATASET: False,
}


@dataclass(frozen=True)
class Billed:
    """One row of the resources query: net cost of one billed resource (and service)."""

    project: str
    service: str
    name: str
    global_name: str
    cluster: str
    node_pool: str
    net_usd: float

    @property
    def short_global_name(self) -> str:
        """The last path segment of `resource.global_name`."""
        return self.global_name.rstrip("/").rsplit("/", 1)[-1]

    @property
    def label(self) -> str:
        """How an unmatched row is shown."""
        if self.cluster and self.node_pool:
            return f"gke node pool {self.cluster}/{self.node_pool}"
        return self.name or self.global_name or "(no resource)"


def billed(rows: Iterable[Mapping[str, Any]]) -> list[Billed]:
    """Typed rows from the resources query."""
    return [
        Billed(
            project=str(r.get("project_id") or ""),
            service=str(r.get("service") or ""),
            name=str(r.get("resource_name") or ""),
            global_name=str(r.get("resource_global_name") or ""),
            cluster=str(r.get("k8s_cluster") or ""),
            node_pool=str(r.get("k8s_node_pool") or ""),
            net_usd=float(r.get("net_cost_usd") or 0.0),
        )
        for r in rows
    ]


@dataclass(frozen=True)
class Planned:
    """A plan resource that can be billed, with the keys rows are matched on."""

    index: int
    name: str
    type: str
    project: str
    physical: str  # the GCP name; "" when the resource is not matched by name
    cluster: str  # node pools only
    monthly_usd: float


def _planned(doc: Mapping[str, Any]) -> list[Planned]:
    default_project = str(doc.get("project") or "")
    out: list[Planned] = []
    for i, item in enumerate(cast(Sequence[Any], doc.get("resources") or [])):
        if not isinstance(item, Mapping):
            continue
        r = cast(Mapping[str, Any], item)
        type_ = str(r.get("type") or "")
        if v.is_component(type_):
            continue
        inputs = r.get("inputs")
        key = "datasetId" if type_ == v.BQ_DATASET else "name"
        named = type_ in _BY_NAME or type_ == v.GKE_NODE_POOL
        out.append(
            Planned(
                index=i,
                name=str(r.get("name") or ""),
                type=type_,
                project=as_str(dig(inputs, "project")) or default_project,
                physical=(as_str(dig(inputs, key)) or "") if named else "",
                cluster=as_str(dig(inputs, "cluster")) or "",
                monthly_usd=as_number(r.get("monthly_usd")) or 0.0,
            )
        )
    return out


def _owner(row: Billed, planned: list[Planned]) -> Planned | None:
    """The plan resource a billed row belongs to (module docstring: the order of rules)."""
    mine = [p for p in planned if p.project == row.project and p.physical]
    if row.cluster and row.node_pool:
        for p in mine:
            if p.type == v.GKE_NODE_POOL and (p.cluster, p.physical) == (
                row.cluster,
                row.node_pool,
            ):
                return p
    names = {row.name, row.short_global_name} - {""}
    for p in mine:
        if p.type in _BY_NAME and p.physical in names:
            return p
    prefixed = [p for p in mine if _BY_NAME.get(p.type) and row.name.startswith(f"{p.physical}-")]
    return max(prefixed, key=lambda p: len(p.physical)) if prefixed else None


def _money(value: float) -> float:
    return round(value, 2)


def _ratio(actual: float | None, estimate: float) -> float | None:
    return round(actual / estimate, 3) if actual is not None and estimate > 0 else None


def estimate_vs_actual(
    doc: Mapping[str, Any], rows: Iterable[Mapping[str, Any]] | None, days: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-resource and per-stack estimate vs actual; `rows` None = no detailed export."""
    planned = _planned(doc)
    scale = days * 24 / HOURS_PER_MONTH
    actual: dict[int, float] = defaultdict(float)
    unmatched: dict[tuple[str, str], float] = defaultdict(float)
    for row in billed(rows or []):
        owner = _owner(row, planned)
        if owner is None:
            unmatched[(row.label, row.service)] += row.net_usd
        else:
            actual[owner.index] += row.net_usd
    known = rows is not None
    resources: list[dict[str, Any]] = []
    for p in planned:
        got = actual.get(p.index)
        if p.monthly_usd <= 0 and got is None:
            continue  # free and unbilled (IAM bindings, service accounts): noise in a review
        estimate = p.monthly_usd * scale
        resources.append(
            {
                "name": p.name,
                "type": p.type,
                "billed_name": p.physical or None,
                "estimate_usd": _money(estimate),
                "actual_usd": _money(got) if got is not None else None,
                "ratio": _ratio(got, estimate),
            }
        )
    resources.sort(key=lambda r: (-(r["actual_usd"] or 0.0), -r["estimate_usd"], r["name"]))
    estimate_total = sum(r["estimate_usd"] for r in resources)
    actual_total = sum(actual.values()) if known else None
    totals: dict[str, Any] = {
        "estimate_usd": _money(estimate_total),
        "actual_usd": _money(actual_total) if actual_total is not None else None,
        "ratio": _ratio(actual_total, estimate_total),
        "unmatched_usd": _money(sum(unmatched.values())) if known else None,
        "unmatched": [
            {"resource": label, "service": service, "actual_usd": _money(value)}
            for (label, service), value in sorted(
                ((k, x) for k, x in unmatched.items() if abs(x) >= CENT),
                key=lambda kv: (-kv[1], kv[0]),
            )[:TOP_UNMATCHED]
        ],
    }
    return resources, totals
