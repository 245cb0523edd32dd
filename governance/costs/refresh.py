"""Rebuild the price catalog from the Cloud Billing Catalog API (services.list / skus.list).

`catalog_from_skus` is pure: it maps SKU JSON (the REST shape: description, category.usageType,
serviceRegions, pricingInfo[].pricingExpression.{usageUnit, tieredRates[].unitPrice}) onto
catalog keys. `fetch_skus` is the only I/O; it imports google-cloud-billing lazily so that the
estimator never pays for it. Keys the API does not answer keep their shipped price and source.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from governance.costs.catalog import Catalog, Price
from mlgov_policies.props import as_list, as_mapping

# Services whose SKUs the catalog uses (display names in services.list).
SERVICES = frozenset({
    "Compute Engine", "Kubernetes Engine", "Cloud SQL", "BigQuery", "Cloud Storage",
    "Cloud Run", "Cloud Run Functions", "Cloud Functions", "Cloud Pub/Sub", "Cloud Scheduler",
    "Vertex AI", "Notebooks", "Networking", "Cloud TPU",
})  # fmt: skip
_GPUS = {
    "Tesla T4": "nvidia-tesla-t4", "Tesla P4": "nvidia-tesla-p4", "Tesla P100": "nvidia-tesla-p100",
    "Tesla V100": "nvidia-tesla-v100", "Tesla A100": "nvidia-tesla-a100",
    "A100 80GB": "nvidia-a100-80gb", "L4": "nvidia-l4", "H100 80GB": "nvidia-h100-80gb",
}  # fmt: skip
_FAMILIES = {"N1": "n1", "N2": "n2", "N2D AMD": "n2d", "E2": "e2", "G2": "g2", "A2": "a2",
             "A3": "a3"}  # fmt: skip
_TPUS = {"v4": "v4", "v5e": "v5litepod", "v5 lite": "v5litepod", "v5p": "v5p", "v6e": "v6e"}
_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?:(?:Spot )?Preemptible )?(?P<family>N1|N2D AMD|N2|E2|G2|A2|A3) "
                r"(?:Predefined )?Instance (?P<part>Core|Ram) running in .*"),
     "gce.{family}.{part}"),
    (re.compile(r"Nvidia (?P<gpu>Tesla T4|Tesla P4|Tesla P100|Tesla V100|Tesla A100|A100 80GB|"
                r"L4|H100 80GB) GPU "
                r"(?:running in|attached to (?:Spot )?Preemptible VMs running in) .*"),
     "gpu.{gpu}"),
    (re.compile(r"(?:(?:Spot )?Preemptible )?Micro Instance with burstable CPU running in .*"),
     "gce.shared.f1-micro"),
    (re.compile(r"(?:(?:Spot )?Preemptible )?Small Instance with 1 VCPU running in .*"),
     "gce.shared.g1-small"),
    (re.compile(r"Storage PD Capacity.*"), "disk.pd-standard"),
    (re.compile(r"Balanced PD Capacity.*"), "disk.pd-balanced"),
    (re.compile(r"SSD backed PD Capacity.*"), "disk.pd-ssd"),
    (re.compile(r"TPU[- ]?(?P<tpu>v4|v5e|v5 lite|v5p|v6e)\b.*chip.*", re.IGNORECASE),
     "tpu.{tpu}.chip"),
    (re.compile(r"(Regional|Zonal) Kubernetes Clusters"), "gke.cluster"),
    (re.compile(r"Cloud SQL for \w+: Zonal - vCPU.*"), "sql.enterprise.vcpu"),
    (re.compile(r"Cloud SQL for \w+: Zonal - RAM.*"), "sql.enterprise.ram"),
    (re.compile(r"Cloud SQL for \w+: Zonal - Standard storage.*"), "sql.storage.pd-ssd"),
    (re.compile(r"Cloud SQL for \w+: Zonal - Low cost storage.*"), "sql.storage.pd-hdd"),
    (re.compile(r"Cloud SQL: Backups.*"), "sql.backup"),
    (re.compile(r"Active Logical Storage.*"), "bigquery.storage.active"),
    (re.compile(r"Long Term Logical Storage.*"), "bigquery.storage.longterm"),
    (re.compile(r"Standard Storage .*"), "storage.standard"),
    (re.compile(r"CPU Allocation Time \(tier 1\)"), "functions.vcpu_second"),
    (re.compile(r"Memory Allocation Time \(tier 1\)"), "functions.gib_second"),
    (re.compile(r"Requests"), "functions.invocation"),
    (re.compile(r"Message Delivery Basic"), "pubsub.throughput"),
    (re.compile(r"Jobs"), "scheduler.job"),
    (re.compile(r"Cloud NAT Gateway: Uptime charge.*"), "nat.gateway_vm"),
    (re.compile(r"Cloud NAT Gateway: Data processing charge.*"), "nat.data"),
]  # fmt: skip
_GROUPS = {"family": _FAMILIES, "part": {"Core": "vcpu", "Ram": "ram"}, "gpu": _GPUS,
           "tpu": _TPUS}  # fmt: skip
# catalog unit -> API usageUnit values that mean the same thing
_UNITS = {
    "hour": {"h"}, "chip-hour": {"h"}, "VM-hour": {"h"}, "GiB-hour": {"GiBy.h"},
    "GiB-month": {"GiBy.mo"}, "vCPU-second": {"s"}, "GiB-second": {"GiBy.s"},
    "request": {"count", "1"}, "TiB": {"TiBy"}, "GiB": {"GiBy"}, "job-month": {"mo", "count"},
}  # fmt: skip
_USAGE = {"OnDemand": "ondemand", "Preemptible": "spot"}


@dataclass(frozen=True)
class RefreshResult:
    """The rebuilt catalog and what happened to each kind of entry."""

    catalog: Catalog
    refreshed: int
    kept: int
    skus_seen: int


def sku_key(description: str) -> str | None:
    """The catalog key a SKU description prices, or None if mlgov does not use it."""
    for pattern, template in _RULES:
        if m := pattern.fullmatch(description):
            groups = {
                k: _GROUPS[k][v.lower() if k == "tpu" else v] for k, v in m.groupdict().items()
            }
            return template.format(**groups)
    return None


def sku_price(sku: Mapping[str, Any]) -> tuple[float, str] | None:
    """(USD per usage unit, usageUnit) from the current pricingInfo: first non-free tier."""
    infos = as_list(sku.get("pricingInfo"))
    if not infos:
        return None
    expr = as_mapping(as_mapping(infos[-1]).get("pricingExpression"))
    rates = [as_mapping(r) for r in as_list(expr.get("tieredRates"))]
    if not rates:
        return None
    rates.sort(key=lambda r: float(r.get("startUsageAmount") or 0))
    usd = 0.0
    for rate in rates:
        price = as_mapping(rate.get("unitPrice"))
        usd = float(price.get("units") or 0) + float(price.get("nanos") or 0) / 1e9
        if usd > 0:
            break
    return usd, str(expr.get("usageUnit", ""))


def catalog_from_skus(
    skus: Iterable[Mapping[str, Any]],
    regions: Sequence[str],
    shipped: Catalog,
    today: str | None = None,
) -> RefreshResult:
    """Map SKUs onto catalog keys for `regions` (+ global); unmatched keys keep shipped prices."""
    date = today or datetime.now(UTC).date().isoformat()
    units = {p.key: p.unit for p in shipped.prices}
    fresh: dict[tuple[str, str, str], Price] = {}
    seen = 0
    for sku in skus:
        seen += 1
        key = sku_key(str(sku.get("description", "")))
        usage = _USAGE.get(str(as_mapping(sku.get("category")).get("usageType", "")))
        priced = sku_price(sku)
        if key is None or usage is None or priced is None or key not in units:
            continue
        usd, api_unit = priced
        if api_unit not in _UNITS.get(units[key], set()):
            continue
        sku_regions = [str(r) for r in as_list(sku.get("serviceRegions"))]
        targets = [r for r in regions if r in sku_regions]
        if "global" in sku_regions or shipped.find(key, "global", usage) is not None:
            targets = ["global"]
        for region in targets:
            fresh.setdefault((key, region, usage), Price(
                key=key, region=region, usage=usage, usd=round(usd, 9), unit=units[key],
                source=f"Cloud Billing Catalog API SKU {sku.get('skuId', '?')}", date=date,
            ))  # fmt: skip
    kept = [p for p in shipped.prices if (p.key, p.region, p.usage) not in fresh]
    prices = sorted([*fresh.values(), *kept], key=lambda p: (p.key, p.region, p.usage))
    catalog = Catalog(shipped.version + 1, "USD", date, prices)
    return RefreshResult(catalog, refreshed=len(fresh), kept=len(kept), skus_seen=seen)


def fetch_skus(endpoint: str | None = None) -> Iterator[dict[str, Any]]:
    """SKUs (REST JSON shape) of the services in SERVICES, from the Cloud Billing Catalog API."""
    from google.cloud import billing_v1  # lazy: ~0.5 s, only `prices refresh` needs it
    from google.protobuf import json_format

    # google-cloud-billing is only partly typed; keep its objects as Any at this boundary
    billing: Any = billing_v1
    options: dict[str, Any] = {"transport": "rest"}
    if endpoint is not None:
        from google.auth.credentials import AnonymousCredentials

        options["credentials"] = AnonymousCredentials()
        options["client_options"] = {"api_endpoint": endpoint}
    client: Any = billing.CloudCatalogClient(**options)
    for service in client.list_services():
        if service.display_name not in SERVICES:
            continue
        for sku in client.list_skus(parent=service.name):
            message: Any = billing.Sku.pb(sku)
            yield json_format.MessageToDict(message)
