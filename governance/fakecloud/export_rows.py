# pyright: basic
"""Cloud Billing export rows for the shipped stacks, shaped as Google documents the tables.

Shape: the standard usage cost schema (`gcp_billing_export_v1_<ACCOUNT>`) and the detailed one
(`gcp_billing_export_resource_v1_<ACCOUNT>`, which adds `resource.name`,
`resource.global_name` and `subscription`; `price` is in both),
https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/detailed-usage and
.../standard-usage; data/*.schema.json hold them in BigQuery's schema JSON, and data/SOURCES.md
says what was checked and what is not documented. Values: service and SKU descriptions follow
Cloud Billing Catalog names (tests/costs/data/cloudbilling-catalog.json and the catalog's
sources, tests/costs/data/SOURCES.md), credit types are the documented `credits.type`
values (SUSTAINED_USAGE_DISCOUNT, FREE_TIER, PROMOTION), GKE node VMs carry the `labels` GKE
applies (`goog-k8s-cluster-name`, `goog-k8s-node-pool-name`), Compute Engine VM rows have
`resource.name` = `projects/<PROJECT_NUMBER>/instances/<NAME>` as in Google's sample output,
and `resource.global_name` ends in the numeric ID, Cloud SQL and Cloud Storage rows are
identified by `resource.global_name` only (no `resource.name`), `currency_conversion_rate` is
local currency per USD (1 for USD), `seller_name` is only for Marketplace rows (null here).
Costs are mlgov test numbers, not prices.

Each `Usage` is one billed thing in one project; `rows` spreads its daily cost over time slots
(6 h for tests, 1 h for the bench) over the days before `now`, each slot exported `lag` after it
ended (rows not yet exported at `now` do not exist). The generated rows are the ground truth:
tests compute expected sums from them in Python, independently of the SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "recorded"
ACCOUNT = "01D4EE-079462-DFD6EC"  # the billing account of stacks/Pulumi.*.yaml
STANDARD_SCHEMA = json.loads((DATA / "gcp_billing_export_v1.schema.json").read_text())
DETAILED_SCHEMA = json.loads((DATA / "gcp_billing_export_resource_v1.schema.json").read_text())

COMPUTE = ("6F81-5844-456A", "Compute Engine")
GKE = ("CCD8-9BF1-090E", "Kubernetes Engine")
SQL = ("9662-B51E-5089", "Cloud SQL")
BIGQUERY = ("24E6-581D-38E5", "BigQuery")
STORAGE = ("95FF-2EF5-5EA1", "Cloud Storage")
TPU = ("E000-3F24-B8AA", "Cloud TPU")
NETWORKING = ("E505-1604-58F8", "Networking")


@dataclass(frozen=True)
class Credit:
    """A credit on every row of a usage: `fraction` of the row's cost, as a negative amount.

    `credits.id` is documented as either an alphanumeric ID (then `full_name` describes it) or
    a description of the credit type (then `full_name` is empty).
    """

    type: str
    name: str
    fraction: float
    id: str
    full_name: str | None = None


SUD = Credit(
    "SUSTAINED_USAGE_DISCOUNT", "Sustained Usage Discount", 0.2, "Sustained Usage Discount"
)
FREE_TIER = Credit("FREE_TIER", "Free tier", 0.5, "FREE_TIER")
PROMO = Credit("PROMOTION", "Free Trial", 1.0, "12-b34-c56-d78", "Free trial credit")


@dataclass(frozen=True)
class Usage:
    """One billed thing: a SKU of a resource (or of no resource) in a project."""

    project: str
    number: str
    service: tuple[str, str]
    sku: tuple[str, str]
    daily_cost: float
    region: str = "us-central1"
    zone: str | None = None
    resource: str | None = None
    global_name: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    credits: tuple[Credit, ...] = ()
    unit: tuple[str, str] = ("seconds", "hour")


def _vm(number: str, zone: str, instance_id: str) -> str:
    return f"//compute.googleapis.com/projects/{number}/zones/{zone}/instances/{instance_id}"


def _disk(number: str, zone: str, disk_id: str) -> str:
    return f"//compute.googleapis.com/projects/{number}/zones/{zone}/disk/{disk_id}"


def stack_usages(stack: str) -> list[Usage]:
    """What each shipped stack's resources bill, by the physical names in its plan."""
    if stack == "dev":
        p, n, zone = "acme-ml-dev", "123456789012", "us-central1-a"
        base = {"team": "research", "cost-center": "cc-1234", "env": "dev", "managed-by": "mlgov"}
        nb = {**base, "workload": "notebook"}
        pool = {"goog-k8s-cluster-name": "acme-dev-ml", "goog-k8s-node-pool-name": "system"}
        t4 = {"goog-k8s-cluster-name": "acme-dev-ml", "goog-k8s-node-pool-name": "t4-spot"}
        nap = {"goog-k8s-cluster-name": "acme-dev-ml", "goog-k8s-node-pool-name": "nap-n1-4-x1"}
        alice, bob = "acme-dev-nb-alice", "acme-dev-nb-bob"
        return [
            Usage(
                p,
                n,
                COMPUTE,
                ("2E27-4F75-95CD", "N1 Predefined Instance Core running in Americas"),
                0.80,
                zone=zone,
                resource=alice,
                global_name=_vm(n, zone, "8812345678901234567"),
                labels=nb,
                credits=(SUD,),
            ),
            Usage(
                p,
                n,
                COMPUTE,
                ("6C71-D8DC-FC32", "N1 Predefined Instance Ram running in Americas"),
                0.30,
                zone=zone,
                resource=alice,
                global_name=_vm(n, zone, "8812345678901234567"),
                labels=nb,
                credits=(SUD,),
            ),
            Usage(
                p,
                n,
                COMPUTE,
                ("039F-D0DA-4055", "Nvidia Tesla T4 GPU running in Americas"),
                0.90,
                zone=zone,
                resource=alice,
                global_name=_vm(n, zone, "8812345678901234567"),
                labels=nb,
            ),
            Usage(
                p,
                n,
                COMPUTE,
                ("D973-5D65-BAB2", "Balanced PD Capacity in Iowa"),
                0.15,
                zone=zone,
                resource=f"{alice}-data-workspace",
                global_name=_disk(n, zone, "9912345678901234567"),
                labels=nb,
                unit=("byte-seconds", "gibibyte month"),
            ),
            Usage(
                p,
                n,
                COMPUTE,
                ("4E32-F036-B1D1", "E2 Instance Core running in Americas"),
                0.50,
                zone="us-central1-b",
                resource=bob,
                global_name=_vm(n, "us-central1-b", "7712345678901234567"),
                labels=nb,
            ),
            Usage(
                p,
                n,
                COMPUTE,
                ("4E32-F036-B1D1", "E2 Instance Core running in Americas"),
                1.20,
                zone=zone,
                resource="gke-acme-dev-ml-system-1a2b3c4d-k9zq",
                global_name=_vm(n, zone, "6612345678901234567"),
                labels={**pool, "goog-gke-node": ""},
            ),
            Usage(
                p,
                n,
                COMPUTE,
                ("BB7E-A48A-0879", "E2 Instance Ram running in Americas"),
                0.60,
                zone=zone,
                resource="gke-acme-dev-ml-system-1a2b3c4d-k9zq",
                global_name=_vm(n, zone, "6612345678901234567"),
                labels={**pool, "goog-gke-node": ""},
            ),
            Usage(
                p,
                n,
                COMPUTE,
                (
                    "1DE5-A8F4-0B2C",
                    "Spot Preemptible N1 Predefined Instance Core running in Americas",
                ),
                0.40,
                zone=zone,
                resource="gke-acme-dev-ml-t4-spot-5e6f7a8b-w2lx",
                global_name=_vm(n, zone, "5512345678901234567"),
                labels={**t4, "goog-gke-node": ""},
            ),
            Usage(
                p,
                n,
                COMPUTE,
                (
                    "0ACF-C2AC-2F58",
                    "Nvidia Tesla T4 GPU attached to Spot Preemptible VMs running in Americas",
                ),
                0.35,
                zone=zone,
                resource="gke-acme-dev-ml-t4-spot-5e6f7a8b-w2lx",
                global_name=_vm(n, zone, "5512345678901234567"),
                labels={**t4, "goog-gke-node": ""},
            ),
            Usage(
                p,
                n,
                COMPUTE,
                ("2E27-4F75-95CD", "N1 Predefined Instance Core running in Americas"),
                0.70,
                zone=zone,
                resource="gke-acme-dev-ml-nap-n1-4-x1-0f1e2d3c-m4tt",
                global_name=_vm(n, zone, "4412345678901234567"),
                labels={**nap, "goog-gke-node": ""},
            ),
            Usage(
                p,
                n,
                GKE,
                ("B561-BFBD-1264", "Regional Kubernetes Clusters"),
                2.40,
                resource="acme-dev-ml",
                global_name=f"//container.googleapis.com/projects/{p}/locations/us-central1/clusters/acme-dev-ml",
                labels={**base, "workload": "training"},
                credits=(FREE_TIER,),
                unit=("seconds", "hour"),
            ),
            Usage(
                p,
                n,
                SQL,
                ("4B1A-8B6E-2D11", "Cloud SQL for PostgreSQL: Zonal - vCPU in Americas"),
                0.85,
                resource="acme-dev-metadata",
                global_name=f"//cloudsql.googleapis.com/projects/{p}/instances/acme-dev-metadata",
                labels={**base, "workload": "metadata"},
            ),
            Usage(
                p,
                n,
                BIGQUERY,
                ("5E1A-F2B2-8C54", "Analysis"),
                0.60,
                region="us-central1",
                credits=(PROMO,),
                unit=("bytes", "tebibyte"),
            ),
            Usage(
                p,
                n,
                BIGQUERY,
                ("7B5E-3D5B-8C2A", "Active Logical Storage"),
                0.05,
                resource="features",
                labels={**base, "workload": "features"},
                unit=("byte-seconds", "gibibyte month"),
            ),
            Usage(
                p,
                n,
                NETWORKING,
                ("984A-1F7E-2F1B", "Network Internet Egress from Americas to Americas"),
                0.25,
                unit=("bytes", "gibibyte"),
            ),
            Usage(
                p,
                n,
                STORAGE,
                ("E5F0-6A5D-7BAD", "Standard Storage US Regional"),
                0.01,
                resource="acme-ml-dev-mlgov-fn-source",
                global_name="//storage.googleapis.com/projects/_/buckets/acme-ml-dev-mlgov-fn-source",
                labels={**base, "workload": "governance"},
            ),
        ]
    if stack == "staging":
        p, n, zone = "acme-ml-staging", "234567890123", "us-central1-a"
        base = {"team": "platform", "cost-center": "cc-2000", "env": "staging"}
        return [
            Usage(
                p,
                n,
                COMPUTE,
                ("8A9B-1C2D-3E4F", "G2 Instance Core running in Americas"),
                2.10,
                zone=zone,
                resource="acme-stg-gpu-nightly-eval",
                global_name=_vm(n, zone, "3312345678901234567"),
                labels={**base, "workload": "training"},
            ),
            Usage(
                p,
                n,
                COMPUTE,
                (
                    "9F8E-7D6C-5B4A",
                    "Nvidia L4 GPU attached to Spot Preemptible VMs running in Americas",
                ),
                1.40,
                zone=zone,
                resource="acme-stg-gpu-nightly-eval",
                global_name=_vm(n, zone, "3312345678901234567"),
                labels={**base, "workload": "training"},
            ),
            Usage(
                p,
                n,
                COMPUTE,
                ("2E27-4F75-95CD", "N1 Predefined Instance Core running in Americas"),
                3.00,
                zone=zone,
                resource="acme-stg-nb-pipelines",
                global_name=_vm(n, zone, "2212345678901234567"),
                labels={**base, "workload": "notebook"},
                credits=(SUD,),
            ),
            Usage(p, n, BIGQUERY, ("5E1A-F2B2-8C54", "Analysis"), 4.00),
        ]
    if stack == "prod":
        p, n, zone = "acme-ml-prod", "345678901234", "europe-west4-b"
        base = {"team": "research", "cost-center": "cc-9000", "env": "prod"}
        tpu_pool = {"goog-k8s-cluster-name": "acme-prod-ml", "goog-k8s-node-pool-name": "tpu-v5e"}
        return [
            Usage(
                p,
                n,
                TPU,
                ("C1D2-E3F4-A5B6", "TPU v5e Spot running in Netherlands"),
                30.00,
                region="europe-west4",
                zone=zone,
                resource="acme-prod-tpu-research-v5e",
                global_name=f"//tpu.googleapis.com/projects/{p}/locations/{zone}/nodes/acme-prod-tpu-research-v5e",
                labels={**base, "workload": "training"},
            ),
            Usage(
                p,
                n,
                COMPUTE,
                (
                    "A1B2-C3D4-E5F6",
                    "TPU v5 Lite PodSlice chip attached to Spot Preemptible VMs running in Netherlands",
                ),
                25.00,
                region="europe-west4",
                zone=zone,
                resource="gke-acme-prod-ml-tpu-v5e-9a8b7c6d-q1w2",
                global_name=_vm(n, zone, "1112345678901234567"),
                labels={**tpu_pool, "goog-gke-node": ""},
            ),
            Usage(
                p,
                n,
                SQL,
                ("4B1A-8B6E-2D11", "Cloud SQL for PostgreSQL: Regional - vCPU in Netherlands"),
                7.50,
                region="europe-west4",
                resource="acme-prod-metadata",
                global_name=f"//cloudsql.googleapis.com/projects/{p}/instances/acme-prod-metadata",
                labels={**base, "workload": "metadata"},
            ),
        ]
    if stack == "other":  # a project on the same billing account that no stack governs
        p, n = "acme-data-lake", "456789012345"
        return [
            Usage(p, n, BIGQUERY, ("5E1A-F2B2-8C54", "Analysis"), 50.00, labels={"team": "data"})
        ]
    raise ValueError(stack)


def renamed(usages: Sequence[Usage], project: str, number: str) -> list[Usage]:
    """The same usages in another project (the bench's 200 projects)."""
    return [replace(u, project=project, number=number) for u in usages]


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _labels(values: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"key": k, "value": v} for k, v in values.items()]


def row(
    u: Usage, start: datetime, hours: float, exported: datetime, account: str
) -> dict[str, Any]:
    """One standard-export row for `hours` of a usage starting at `start`."""
    cost = round(u.daily_cost * hours / 24, 6)
    location = {
        "location": u.zone or u.region,
        "country": "NL" if u.region.startswith("europe") else "US",
        "region": u.region,
        "zone": u.zone,
    }
    return {
        "billing_account_id": account,
        "service": {"id": u.service[0], "description": u.service[1]},
        "sku": {"id": u.sku[0], "description": u.sku[1]},
        "usage_start_time": _stamp(start),
        "usage_end_time": _stamp(start + timedelta(hours=hours)),
        "project": {
            "id": u.project,
            "number": u.number,
            "name": u.project,
            "labels": [],
            "ancestry_numbers": f"/987654321/{u.number}/",
            "ancestors": [
                {"resource_name": f"projects/{u.number}", "display_name": u.project},
                {"resource_name": "organizations/987654321", "display_name": "acme.example"},
            ],
        },
        "labels": _labels(u.labels),
        "system_labels": [{"key": "compute.googleapis.com/machine_spec", "value": "n1-standard-4"}]
        if u.service == COMPUTE and u.resource
        else [],
        "location": location,
        "tags": [],
        "transaction_type": "GOOGLE",
        "seller_name": None,
        "export_time": _stamp(exported),
        "cost": cost,
        "currency": "USD",
        "currency_conversion_rate": 1.0,
        "usage": {
            "amount": hours * 3600,
            "unit": u.unit[0],
            "amount_in_pricing_units": hours,
            "pricing_unit": u.unit[1],
        },
        "credits": [
            {
                "name": c.name,
                "amount": round(-cost * c.fraction, 6),
                "full_name": c.full_name,
                "id": c.id,
                "type": c.type,
            }
            for c in u.credits
        ],
        "invoice": {"month": start.strftime("%Y%m"), "publisher_type": "GOOGLE"},
        "cost_type": "regular",
        "adjustment_info": None,
        "cost_at_list": cost,
        "price": {
            "effective_price": f"{round(u.daily_cost / 24, 6):.6f}",
            "tier_start_amount": "0",
            "unit": u.unit[1],
            "pricing_unit_quantity": "1",
        },
    }


def _resource_name(u: Usage) -> str | None:
    """`resource.name` as the detailed export fills it for this usage (data/SOURCES.md)."""
    if u.resource is None or u.service in (SQL, STORAGE):
        return None  # identified by resource.global_name only
    if u.service == COMPUTE and u.global_name and "/instances/" in u.global_name:
        return f"projects/{u.number}/instances/{u.resource}"
    return u.resource


def detailed(standard: Mapping[str, Any], u: Usage, hours: float) -> dict[str, Any]:
    """The detailed-export row for a standard row: plus resource and subscription."""
    return {
        **standard,
        "resource": {"name": _resource_name(u), "global_name": u.global_name},
        "subscription": {"instance_id": None},
    }


def rows(
    usages: Sequence[Usage],
    now: datetime,
    days: int,
    *,
    slot_hours: int = 6,
    lag: timedelta = timedelta(hours=5),
    account: str = ACCOUNT,
    with_resource: bool = False,
) -> Iterator[dict[str, Any]]:
    """Rows for every slot of the `days` days before `now` that was exported by `now`.

    The export has caught up with every whole day before `now`: in the first hours of a UTC day
    the lag shrinks to the time since midnight. Otherwise a run between 00:00 and 05:00 UTC
    would miss yesterday's last slot, and the tests' and the demo's whole-day sums (30 days of
    a usage's daily cost) would hold only at some hours of the day.
    """
    midnight = datetime.combine(now.astimezone(UTC).date(), datetime.min.time(), UTC)
    lag = max(timedelta(0), min(lag, now - midnight))
    start = midnight - timedelta(days=days)
    slots = int((now - start) / timedelta(hours=slot_hours)) + 1
    for i in range(slots):
        begin = start + timedelta(hours=i * slot_hours)
        exported = begin + timedelta(hours=slot_hours) + lag
        if exported > now:
            break
        for u in usages:
            base = row(u, begin, slot_hours, exported, account)
            yield detailed(base, u, slot_hours) if with_resource else base


def net(r: Mapping[str, Any]) -> float:
    """Cost plus credits of one generated row (the ground truth tests sum)."""
    return float(r["cost"]) + sum(float(c["amount"]) for c in r["credits"])


def label(r: Mapping[str, Any], key: str) -> str:
    """A generated row's label value, '' when absent."""
    return next((kv["value"] for kv in r["labels"] if kv["key"] == key), "")
