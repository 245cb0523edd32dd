"""Refresh the catalog from the Cloud Billing Catalog API: what the export lacks, every region.

The Billing Catalog export (catalog_build/) prices machine types, disks, network and Cloud
Storage; it has no standalone GPUs or TPUs, Cloud SQL, BigQuery, GKE, Workbench, Functions,
Pub/Sub or Scheduler prices. `prices refresh` fills those (`OWNED` keys) for every region the
API prices, and writes the same document format (catalog_build/build.py's `render_document`).

`refresh_document(doc, skus, today)` is pure: it maps SKU JSON (the REST shape: description,
category.{resourceGroup, usageType}, serviceRegions, pricingInfo[].pricingExpression.{usageUnit,
tieredRates[].unitPrice}) onto catalog keys by `RULES`. For a (key, usage) the API answers, the
whole series is replaced (one source, one date: the API on `today`); keys it does not answer keep
their shipped series, source and date. `fetch_skus` is the only I/O; it imports
google-cloud-billing lazily so the estimator never pays for it.

Where the SKU descriptions come from: the Compute Engine GPU rules follow the description
patterns of google-cloud-pricing-cost-calculator's build/mapping.csv (realdata, Apache-2.0), the
generator of the export itself; TPU SKUs are read as dstackai/gpuhunt's GCP provider reads them
(resourceGroup "TPU", "Tpu" plus version in the description, "Preemptible" for spot, a per-chip
price for v5e, v5p and v6e; v2-v4 are priced per pod and keep their documented figure); BigQuery
"Active/Long Term Logical Storage" and "Analysis" are SKU names quoted in public billing notes.
The Cloud SQL, GKE, Workbench, Functions, Pub/Sub and Scheduler rules are mlgov's reading of
Google's SKU naming, not checked against a recorded response: a run prints which owned keys the
API did not answer, so a renamed SKU shows up as "kept", never as a wrong price.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mlgov_policies.props import as_list, as_mapping

SOURCE_ID = "cloud-billing-catalog-api"
SOURCE = {
    "title": "Google Cloud Billing Catalog API (services.skus.list), read by `mlgov prices "
    "refresh`",
    "url": "https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list",
}
# Services whose SKUs the refresh reads (display names in services.list).
SERVICES = frozenset({
    "Compute Engine", "Kubernetes Engine", "Cloud SQL", "BigQuery", "Cloud Run",
    "Cloud Run Functions", "Cloud Functions", "Cloud Pub/Sub", "Cloud Scheduler", "Vertex AI",
    "Notebooks", "Cloud TPU",
})  # fmt: skip
# Attached GPUs (build/mapping.csv GPU rows; A100/H100/L4 come bundled with their machine types,
# whose export prices include them).
_GPUS = {"T4": "nvidia-tesla-t4", "P4": "nvidia-tesla-p4", "P100": "nvidia-tesla-p100",
         "V100": "nvidia-tesla-v100"}  # fmt: skip
_GPU = r"Nvidia Tesla (?P<gpu>T4|P4|P100|V100)"
_TPUS = {"v5e": "v5litepod", "v5litepod": "v5litepod", "v5p": "v5p", "v6e": "v6e"}
_TPU_VERSION = re.compile(r"\btpu[- ]?(?P<tpu>v\d+[a-z]*)", re.IGNORECASE)
_USAGE = {"OnDemand": "ondemand", "Preemptible": "spot", "Commit1Yr": "1y", "Commit3Yr": "3y"}


@dataclass(frozen=True, slots=True)
class Rule:
    """SKUs whose description matches `pattern` (full match) price `key` (with {gpu}/{tpu})."""

    pattern: re.Pattern[str]
    key: str
    unit: str
    services: frozenset[str]  # category.serviceDisplayName values the SKU may have
    usages: frozenset[str] = frozenset({"ondemand"})
    group: str = ""  # category.resourceGroup the SKU must have ("" = any)


def _rule(services: str, pattern: str, key: str, unit: str, *usages: str, group: str = "") -> Rule:
    return Rule(re.compile(pattern, re.IGNORECASE), key, unit, frozenset(services.split("|")),
                frozenset(usages or ("ondemand",)), group)  # fmt: skip


_GCE = "Compute Engine"
_SQL = "Cloud SQL"
_BQ = "BigQuery"
_FUNCTIONS = "Cloud Run Functions|Cloud Functions|Cloud Run"


RULES: tuple[Rule, ...] = (
    # build/mapping.csv: "Nvidia Tesla T4 GPU running%", "Nvidia Tesla T4 GPU attached%",
    # "Nvidia Tesla P4 GPU attached to Spot%", "Commitment v1: Nvidia Tesla T4%1 Year", ...
    _rule(_GCE, rf"{_GPU} GPU running.*", "gpu.{gpu}", "hour", "ondemand"),
    _rule(_GCE, rf"{_GPU} GPU attached.*", "gpu.{gpu}", "hour", "spot"),
    _rule(_GCE, rf"Commitment v1: {_GPU}.*1 Year.*", "gpu.{gpu}", "hour", "1y"),
    _rule(_GCE, rf"Commitment v1: {_GPU}.*3 Year.*", "gpu.{gpu}", "hour", "3y"),
    # TPU chips (gpuhunt): resourceGroup TPU, version after "Tpu"; pods (v2-v4) left out
    _rule(
        f"{_GCE}|Cloud TPU",
        r"(?!.*\bpod\b)(?!.*commitment).*\btpu[- ]?(v5e|v5litepod|v5p|v6e)\b.*",
        "tpu.{tpu}.chip",
        "chip-hour",
        "ondemand",
        "spot",
        group="TPU",
    ),
    _rule("Kubernetes Engine", r"(Regional|Zonal) Kubernetes Clusters", "gke.cluster", "hour"),
    _rule(
        _SQL, r"Cloud SQL for (MySQL|PostgreSQL): Zonal - vCPU in .*", "sql.enterprise.vcpu", "hour"
    ),
    _rule(
        _SQL,
        r"Cloud SQL for (MySQL|PostgreSQL): Zonal - RAM in .*",
        "sql.enterprise.ram",
        "GiB-hour",
    ),
    _rule(
        _SQL,
        r"Cloud SQL for (MySQL|PostgreSQL): Zonal - Standard storage in .*",
        "sql.storage.pd-ssd",
        "GiB-month",
    ),
    _rule(
        _SQL,
        r"Cloud SQL for (MySQL|PostgreSQL): Zonal - Low cost storage in .*",
        "sql.storage.pd-hdd",
        "GiB-month",
    ),
    _rule(
        _SQL,
        r"Cloud SQL for (MySQL|PostgreSQL): Zonal - Micro instance in .*",
        "sql.shared.db-f1-micro",
        "hour",
    ),
    _rule(
        _SQL,
        r"Cloud SQL for (MySQL|PostgreSQL): Zonal - Small instance in .*",
        "sql.shared.db-g1-small",
        "hour",
    ),
    _rule(_SQL, r"Cloud SQL(?: for (MySQL|PostgreSQL))?: Backups in .*", "sql.backup", "GiB-month"),
    _rule(_BQ, r"Active Logical Storage.*", "bigquery.storage.active", "GiB-month"),
    _rule(_BQ, r"Long Term Logical Storage.*", "bigquery.storage.longterm", "GiB-month"),
    _rule(_BQ, r"Analysis.*", "bigquery.query.ondemand", "TiB"),
    _rule(
        "Vertex AI|Notebooks",
        r".*Workbench.*Management Fee.*\b(vCPU|Core)\b.*",
        "workbench.mgmt.vcpu",
        "hour",
    ),
    _rule(
        "Vertex AI|Notebooks",
        r".*Workbench.*Management Fee.*\b(RAM|Memory)\b.*",
        "workbench.mgmt.ram",
        "GiB-hour",
    ),
    _rule(_FUNCTIONS, r"CPU Allocation Time \(tier 1\)", "functions.vcpu_second", "vCPU-second"),
    _rule(_FUNCTIONS, r"Memory Allocation Time \(tier 1\)", "functions.gib_second", "GiB-second"),
    _rule(_FUNCTIONS, r"Requests", "functions.invocation", "request"),
    _rule("Cloud Pub/Sub", r"Message Delivery Basic", "pubsub.throughput", "TiB"),
    _rule("Cloud Scheduler", r"Jobs", "scheduler.job", "job-month"),
)
OWNED_PREFIXES = (
    "gpu.nvidia-tesla-",
    "tpu.",
    "gke.cluster",
    "sql.",
    "bigquery.",
    "workbench.mgmt.",
    "functions.",
    "pubsub.throughput",
    "scheduler.job",
)
# catalog unit -> API usageUnit values that mean the same thing
_UNITS = {
    "hour": {"h"}, "chip-hour": {"h"}, "GiB-hour": {"GiBy.h"}, "GiB-month": {"GiBy.mo"},
    "vCPU-second": {"s"}, "GiB-second": {"GiBy.s"}, "request": {"count", "1"},
    "TiB": {"TiBy"}, "job-month": {"mo", "count"},
}  # fmt: skip


@dataclass(frozen=True)
class RefreshResult:
    """The refreshed document and what happened to the keys the refresh owns."""

    document: dict[str, Any]
    refreshed: list[tuple[str, str]]  # (key, usage) series replaced from the API
    kept: list[tuple[str, str]]  # owned series the API did not answer (shipped figure kept)
    skus_seen: int


def sku_key(description: str, service: str, group: str = "") -> tuple[str, Rule] | None:
    """(catalog key, rule) a SKU of `service` prices, or None if mlgov does not use it."""
    for rule in RULES:
        if service not in rule.services or (rule.group and rule.group != group):
            continue
        if m := rule.pattern.fullmatch(description):
            if "{gpu}" in rule.key:
                return rule.key.format(gpu=_GPUS[m.group("gpu").upper()]), rule
            if "{tpu}" in rule.key:
                version = _TPU_VERSION.search(description)
                if version is None or version.group("tpu").lower() not in _TPUS:
                    return None
                return rule.key.format(tpu=_TPUS[version.group("tpu").lower()]), rule
            return rule.key, rule
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


def _owned(key: str) -> bool:
    return key.startswith(OWNED_PREFIXES)


def _collect(
    skus: Iterable[Mapping[str, Any]],
) -> tuple[dict[tuple[str, str], dict[str, float]], dict[tuple[str, str], str], int]:
    """Prices per (key, usage) per location from matching SKUs, and each series' unit."""
    found: dict[tuple[str, str], dict[str, float]] = {}
    units: dict[tuple[str, str], str] = {}
    seen = 0
    # SKU id order: where two SKUs price one key in one region (MySQL and PostgreSQL), the
    # result does not depend on the API's page order
    for sku in sorted(skus, key=lambda s: str(s.get("skuId", ""))):
        seen += 1
        category = as_mapping(sku.get("category"))
        matched = sku_key(
            str(sku.get("description", "")),
            str(category.get("serviceDisplayName", "")),
            str(category.get("resourceGroup", "")),
        )
        usage = _USAGE.get(str(category.get("usageType", "")))
        priced = sku_price(sku)
        if matched is None or usage is None or priced is None:
            continue
        key, rule = matched
        usd, api_unit = priced
        if usage not in rule.usages or api_unit not in _UNITS[rule.unit] or usd <= 0:
            continue
        values = found.setdefault((key, usage), {})
        units[key, usage] = rule.unit
        for region in (str(r) for r in as_list(sku.get("serviceRegions"))):
            values.setdefault(region.lower(), round(usd, 9))
    return found, units, seen


def refresh_document(
    doc: Mapping[str, Any], skus: Iterable[Mapping[str, Any]], today: str | None = None
) -> RefreshResult:
    """`doc` with every owned series the API answers replaced from `skus` (a new dict)."""
    date = today or datetime.now(UTC).date().isoformat()
    found, units, seen = _collect(skus)
    regions: list[str] = [str(r) for r in doc["regions"]]
    shipped = {(str(s["key"]), str(s["usage"])): dict(s) for s in doc["series"]}
    global_keys = {k for k, s in shipped.items() if _global_only(s, regions)}
    new_regions = sorted(
        {r for k, v in found.items() if k not in global_keys for r in v} - {*regions, "global"}
    )
    regions += new_regions
    pad = [None] * len(new_regions)
    series: dict[tuple[str, str], dict[str, Any]] = {
        k: {**s, "values": [*s["values"], *pad]} for k, s in shipped.items()
    }
    refreshed: list[tuple[str, str]] = []
    for k, values in sorted(found.items()):
        if k in global_keys or all(r == "global" for r in values):
            # a region-independent price (GKE fee, Functions, Pub/Sub, Scheduler): one value
            values = {"global": values.get("global", values[min(values)])}
        series[k] = {
            "key": k[0],
            "usage": k[1],
            "unit": units[k],
            "source": SOURCE_ID,
            "date": date,
            "how": "Cloud Billing Catalog API SKUs (first non-free tier)",
            "values": [values.get(r) for r in regions],
        }
        refreshed.append(k)
    kept = sorted(k for k in shipped if _owned(k[0]) and k not in found)
    out = {k: v for k, v in doc.items() if k != "series"}
    out["regions"] = regions
    out["refreshed"] = date
    out["sources"] = {**dict(doc.get("sources") or {}), SOURCE_ID: {**SOURCE, "retrieved": date}}
    out["availability"] = _availability(doc, found, date)
    order = {u: i for i, u in enumerate(("ondemand", "spot", "1y", "3y"))}
    out["series"] = [series[k] for k in sorted(series, key=lambda k: (k[0], order[k[1]]))]
    return RefreshResult(out, refreshed, kept, seen)


def _global_only(series: Mapping[str, Any], regions: list[str]) -> bool:
    priced = [r for r, v in zip(regions, series["values"], strict=True) if v is not None]
    return priced == ["global"]


def _availability(
    doc: Mapping[str, Any], found: Mapping[tuple[str, str], Mapping[str, float]], date: str
) -> dict[str, Any]:
    """Where attached GPUs and TPUs are sold: the regions the API prices them on demand."""
    out: dict[str, Any] = dict(doc.get("availability") or {})
    for (key, usage), values in found.items():
        if usage != "ondemand" or not key.startswith(("gpu.", "tpu.")):
            continue
        what = key.removesuffix(".chip")
        out[what] = {
            "regions": sorted(r for r in values if r != "global"),
            "source": SOURCE_ID,
            "note": f"regions the Cloud Billing Catalog API priced it in on {date}",
        }
    return dict(sorted(out.items()))


def fetch_skus(
    endpoint: str | None = None, on_error: Callable[[Exception], None] | None = None
) -> Iterator[dict[str, Any]]:
    """SKUs (REST JSON shape) of the services in SERVICES, from the Cloud Billing Catalog API.

    `on_error` sees each error the first call retries (deadlines.Waiting.saw, for progress).
    """
    from google.cloud import billing_v1  # lazy: ~0.5 s, only `prices refresh` needs it
    from google.protobuf import json_format

    from governance.deadlines import budget, first_call_retry

    # google-cloud-billing is only partly typed; keep its objects as Any at this boundary
    billing: Any = billing_v1
    options: dict[str, Any] = {"transport": "rest"}
    if endpoint is not None:
        from google.auth.credentials import AnonymousCredentials

        options["credentials"] = AnonymousCredentials()
        options["client_options"] = {"api_endpoint": endpoint}
    client: Any = billing.CloudCatalogClient(**options)
    # The first call finds out whether the endpoint answers at all: deadlines.py's short budget
    # (the library's default retries for a minute). The SKU pages keep the library's defaults.
    first = {"retry": first_call_retry(on_error), "timeout": budget().attempt_s}
    for service in client.list_services(**first):
        if service.display_name not in SERVICES:
            continue
        for sku in client.list_skus(parent=service.name):
            message: Any = billing.Sku.pb(sku)
            yield json_format.MessageToDict(message)
