"""Who spent what: fold the attribution query's rows into the report's views. Pure.

One query groups cost and credits by project, service, SKU and the four governance labels
(sql/attribution.sql), so the export is read once; every view here is a sum over those rows:
net cost (cost plus credits, which are negative) by label value (`""` = the row has no such
label), by service, by SKU family, GPU and TPU spend, and the spend with no `team` label by
project and service, so it can be chased.

SKU family: the SKU description without its location (" running in Americas", " in Virginia")
and without the pricing model ("Spot Preemptible", "Preemptible", "attached to Spot Preemptible
VMs"), so on-demand and spot use of the same thing add up: "Spot Preemptible N1 Predefined
Instance Core running in Americas" is family "N1 Predefined Instance Core".

Accelerators, from Cloud Billing SKU descriptions (Catalog API names; see
tests/costs/data/cloudbilling-catalog.json): GPU SKUs are "Nvidia ... GPU ...",
"Commitment v1: Nvidia ...", and "RTX 6000 96GB ..." (no "GPU" in it); TPU SKUs name "TPU" or
"Tpu" (Compute Engine TPU slices for GKE, the Cloud TPU service). A SKU counts as TPU when its
description says so or its service is "Cloud TPU"; otherwise as GPU when it names GPU, Nvidia
or RTX. Everything else is neither.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from governance.spend.queries import ATTRIBUTION_LABELS

Accelerator = Literal["gpu", "tpu"]
UNLABELLED_KEY = "team"  # the label whose absence means nobody owns the spend
CENT = 0.005  # lists leave out groups that net to less than a cent (credits cancelling cost)

_TPU = re.compile(r"\btpu", re.IGNORECASE)
_GPU = re.compile(r"\b(gpu|nvidia|rtx)\b", re.IGNORECASE)
_SPOT = re.compile(r"^(spot preemptible|preemptible)\s+", re.IGNORECASE)
_ATTACHED_SPOT = re.compile(r"\s+attached to spot( preemptible)?( vms)?\b", re.IGNORECASE)
_LOCATION = re.compile(r"\s+(running\s+)?in\s+[A-Z][\w .()/-]*?(?=\s+for\s+\d|$)")
_COLUMN = {"team": "team", "cost-center": "cost_center", "workload": "workload", "env": "env"}


def accelerator(service: str, sku: str) -> Accelerator | None:
    """`gpu`, `tpu` or None for a SKU (see the module docstring for the rule)."""
    if service == "Cloud TPU" or _TPU.search(sku):
        return "tpu"
    return "gpu" if _GPU.search(sku) else None


def sku_family(sku: str) -> str:
    """The SKU description without location and pricing model."""
    family = _LOCATION.sub("", _ATTACHED_SPOT.sub("", _SPOT.sub("", sku.strip())))
    return family.strip() or sku


def _money(value: float) -> float:
    return round(value, 2)


def _ranked(totals: Mapping[str, float]) -> dict[str, float]:
    """Biggest first (ties by name), rounded to cents."""
    return {k: _money(v) for k, v in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))}


@dataclass(frozen=True)
class Line:
    """One attribution row: net cost of one (project, service, SKU, labels) group."""

    project: str
    service: str
    sku: str
    labels: Mapping[str, str]
    currency: str
    cost: float
    credits: float

    @property
    def net(self) -> float:
        """Cost plus credits (credits are negative)."""
        return self.cost + self.credits


def lines(rows: Iterable[Mapping[str, Any]]) -> list[Line]:
    """Typed lines from the attribution query's rows."""
    out: list[Line] = []
    for row in rows:
        out.append(
            Line(
                project=str(row.get("project_id") or ""),
                service=str(row.get("service") or ""),
                sku=str(row.get("sku") or ""),
                labels={key: str(row.get(col) or "") for key, col in _COLUMN.items()},
                currency=str(row.get("currency") or ""),
                cost=float(row.get("cost") or 0.0),
                credits=float(row.get("credits") or 0.0),
            )
        )
    return out


def _currency(items: list[Line]) -> str:
    weight: dict[str, float] = defaultdict(float)
    for line in items:
        weight[line.currency] += abs(line.cost)
    return max(sorted(weight), key=lambda c: weight[c]) if weight else "USD"


def summarize(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The attribution part of the report (net cost and its breakdowns)."""
    items = lines(rows)
    cost = sum(line.cost for line in items)
    credits = sum(line.credits for line in items)
    net = cost + credits
    by_label: dict[str, dict[str, float]] = {key: defaultdict(float) for key in ATTRIBUTION_LABELS}
    by_service: dict[str, float] = defaultdict(float)
    by_project: dict[str, float] = defaultdict(float)
    families: dict[tuple[str, str], float] = defaultdict(float)
    accelerators: dict[str, float] = {"gpu": 0.0, "tpu": 0.0}
    unowned: dict[tuple[str, str], float] = defaultdict(float)
    for line in items:
        for key in ATTRIBUTION_LABELS:
            by_label[key][line.labels[key]] += line.net
        by_service[line.service] += line.net
        by_project[line.project] += line.net
        families[(line.service, sku_family(line.sku))] += line.net
        if (kind := accelerator(line.service, line.sku)) is not None:
            accelerators[kind] += line.net
        if not line.labels[UNLABELLED_KEY]:
            unowned[(line.project, line.service)] += line.net
    unowned_total = sum(unowned.values())
    return {
        "currency": _currency(items),
        "net_cost": _money(net),
        "cost": _money(cost),
        "credits": _money(credits),
        "by_label": {key: _ranked(values) for key, values in by_label.items()},
        "by_service": _ranked(by_service),
        "by_project": _ranked(by_project),
        "by_sku_family": [
            {"service": service, "family": family, "net_cost": _money(value)}
            for (service, family), value in sorted(families.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
        "accelerators": {kind: _money(value) for kind, value in accelerators.items()},
        "unlabelled": {
            "label": UNLABELLED_KEY,
            "net_cost": _money(unowned_total),
            "share": round(unowned_total / net, 4) if net > 0 else None,
            "by_project_service": [
                {"project": project, "service": service, "net_cost": _money(value)}
                for (project, service), value in sorted(
                    unowned.items(), key=lambda kv: (-kv[1], kv[0])
                )
                if abs(value) >= CENT
            ],
        },
    }
