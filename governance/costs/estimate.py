"""Monthly cost of each resource in a plan, governed and as an ungoverned team would run it.

`estimate_resources(resources, assumptions, catalog)` prices plan-document resources (type, name,
inputs) with list prices from catalog.py and usage from assumptions.py. Each resource gets two
numbers: `monthly_usd` (as configured: spot, idle shutdown, office hours, autoscale-from-0,
maxRunDuration, expiry) and `baseline_monthly_usd` (the same thing on-demand, on 730 h a month,
with no idle shutdown, schedule, expiry or scale-to-zero). Every number comes with explanation
lines naming catalog keys and assumption values. Budget checks live in budget_fit.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from governance.costs.assumptions import HOURS_PER_MONTH, UsageAssumptions
from governance.costs.catalog import Catalog, Price, default_catalog
from governance.costs.errors import CostError, UnknownResourceType, add_context
from governance.costs.machines import Shape, gpu_model, machine_shape, tpu_chips, tpu_from_config

_QUARTER = HOURS_PER_MONTH / 4
_WEEKS_PER_MONTH = HOURS_PER_MONTH / 168
_CUSTOM_PREMIUM = 1.05  # custom machine shapes list at ~5% over predefined vCPU/RAM SKUs
_LONG_TERM_DAYS = 90.0  # BigQuery data untouched for 90 days is billed at the long-term rate
_ZONE = re.compile(r"([a-z]+-[a-z]+\d+)-[a-z]")
_SCHEDULE_URI = re.compile(r"/instances/([^/:]+):(start|stop)$")


@dataclass(frozen=True, slots=True)
class ResourceCost:
    """Monthly cost of one resource, governed and baseline, with the arithmetic behind it."""

    name: str
    type: str
    monthly_usd: float
    baseline_monthly_usd: float
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class CostReport:
    """Costs of every resource in a plan; totals are sums of the per-resource numbers."""

    resources: list[ResourceCost] = field(default_factory=list[ResourceCost])
    catalog_version: int = 0
    catalog_generated: str = ""

    @property
    def monthly_usd(self) -> float:
        """Estimated monthly total (USD)."""
        return math.fsum(r.monthly_usd for r in self.resources)

    @property
    def baseline_monthly_usd(self) -> float:
        """Monthly total of the ungoverned baseline (USD)."""
        return math.fsum(r.baseline_monthly_usd for r in self.resources)

    def as_dict(self) -> dict[str, float]:
        """The plan document's "cost" key, rounded to cents."""
        return {
            "monthly_usd": round(self.monthly_usd, 2),
            "baseline_monthly_usd": round(self.baseline_monthly_usd, 2),
        }

    def by_name(self) -> dict[str, float]:
        """Monthly USD per resource name (rounded to cents), for the plan's "monthly_usd"."""
        return {r.name: round(r.monthly_usd, 2) for r in self.resources}

    def get(self, name: str, type_: str | None = None) -> ResourceCost:
        """The cost of the resource called `name` (and of `type_`, if given)."""
        for r in self.resources:
            if r.name == name and (type_ is None or r.type == type_):
                return r
        raise KeyError(name)


# -- small readers for inputs (numbers may arrive as strings or floats) ----------------------
def _num(value: Any, default: float = 0.0) -> float:
    if value is None or value == "":
        return default
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []  # pyright: ignore[reportUnknownArgumentType]


def _region_of(location: Any) -> str:
    text = str(location or "").strip()
    if m := _ZONE.fullmatch(text):
        return m.group(1)
    return text.lower()


class _Bill:
    """Accumulates charges with one explanation line each."""

    __slots__ = ("label", "lines", "total")

    def __init__(self, label: str, lines: list[str]) -> None:
        self.label = label
        self.lines = lines
        self.total = 0.0

    def charge(self, what: str, price: Price, qty: float, detail: str) -> None:
        usd = price.usd * qty
        self.total += usd
        self.lines.append(
            f"{self.label}{what}: {price.key}[{price.region}/{price.usage}] "
            f"${price.usd:g}/{price.unit} x {detail} = ${usd:.2f}"
        )

    def note(self, text: str) -> None:
        self.lines.append(f"{self.label}{text}")


class _Estimator:
    """Plan-wide context (assumptions, catalog, cross-resource facts) and per-type pricing."""

    def __init__(
        self, resources: Sequence[Mapping[str, Any]], usage: UsageAssumptions, catalog: Catalog
    ) -> None:
        self.usage = usage
        self.catalog = catalog
        self.as_of = usage.as_of or datetime.now(UTC).date()
        self.windows = _office_hours(resources)
        self.tables: dict[str, list[Mapping[str, Any]]] = {}
        self.free_jobs: set[str] = set()
        self.free_cluster = ""
        jobs: list[str] = []
        for res in resources:
            type_ = res.get("type")
            inputs = _map(res.get("inputs"))
            if type_ == "gcp:bigquery/table:Table":
                self.tables.setdefault(str(inputs.get("datasetId", "")), []).append(inputs)
            elif type_ == "gcp:cloudscheduler/job:Job":
                jobs.append(str(res.get("name", "")))
            elif (
                type_ == "gcp:container/cluster:Cluster"
                and not self.free_cluster
                and _ZONE.fullmatch(str(inputs.get("location", "")))
            ):
                self.free_cluster = str(res.get("name", ""))
        free = int(catalog.price("scheduler.free_jobs", "global").usd)
        self.free_jobs = set(sorted(jobs)[:free])

    # -- shared pieces -----------------------------------------------------------------------
    def region(self, inputs: Mapping[str, Any], *keys: str) -> str:
        for key in keys:
            if inputs.get(key):
                return _region_of(inputs[key])
        return self.usage.default_region

    def sud_hours(self, family: str, hours: float, usage: str) -> float:
        """Hours after sustained-use discounts (on-demand N1/N2/N2D only)."""
        if usage != "ondemand" or self.catalog.find(f"sud.{family}.q1", "global") is None:
            return hours
        effective = 0.0
        for q in range(4):
            segment = min(max(hours - q * _QUARTER, 0.0), _QUARTER)
            effective += segment * self.catalog.price(f"sud.{family}.q{q + 1}", "global").usd
        return effective

    def machine(
        self,
        bill: _Bill,
        shape: Shape,
        region: str,
        usage: str,
        hours: float,
        units: float = 1.0,
        extra_gpus: Sequence[tuple[str, int]] = (),
    ) -> None:
        """vCPU, RAM, built-in and attached GPUs of `units` machines for `hours` each."""
        h = self.sud_hours(shape.family, hours, usage)
        h_note = f"{hours:g} h" + (f" (SUD-adjusted {h:.1f} h)" if h != hours else "")
        many = f"{units:g} x " if units != 1 else ""
        cat = self.catalog
        if shape.tpu:
            price = cat.price(f"tpu.{shape.tpu}.chip", region, usage)
            bill.charge("TPU", price, shape.tpu_chips * units * hours,
                        f"{many}{shape.tpu_chips} chips x {hours:g} h")  # fmt: skip
            return
        if shape.fixed_key:
            bill.charge("machine", cat.price(shape.fixed_key, region, usage), units * h,
                        f"{many}{h_note}")  # fmt: skip
        else:
            premium = _CUSTOM_PREMIUM if shape.custom else 1.0
            vcpu = cat.price(f"gce.{shape.family}.vcpu", region, usage)
            ram = cat.price(f"gce.{shape.family}.ram", region, usage)
            bill.charge("vCPU", vcpu, shape.vcpus * premium * units * h,
                        f"{many}{shape.vcpus:g} vCPU x {h_note}")  # fmt: skip
            bill.charge("RAM", ram, shape.memory_gib * premium * units * h,
                        f"{many}{shape.memory_gib:g} GiB x {h_note}")  # fmt: skip
            if shape.custom:
                bill.note(f"custom shape: vCPU/RAM x {_CUSTOM_PREMIUM} premium")
        gpus = [(shape.gpu, shape.gpu_count)] if shape.gpu else list(extra_gpus)
        if shape.gpu and extra_gpus:
            bill.note(f"{shape.family} has built-in GPUs; listed accelerators not added again")
        for model, count in gpus:
            if count <= 0:
                continue
            gh = h if shape.family == "n1" else hours  # GPUs on N1 share N1's SUD
            bill.charge("GPU", cat.price(f"gpu.{model}", region, usage), count * units * gh,
                        f"{many}{count} x {model} x {gh:g} h")  # fmt: skip

    def disk(self, bill: _Bill, disk_type: str, size_gb: float, region: str, units: float = 1.0):
        kind = disk_type.lower().replace("_", "-")
        price = self.catalog.price(f"disk.{kind}", region)
        many = f"{units:g} x " if units != 1 else ""
        bill.charge(
            "disk", price, size_gb * units, f"{many}{size_gb:g} GiB (billed while it exists)"
        )

    def expiry_factor(self, bill: _Bill, labels: Mapping[str, Any]) -> float:
        """Share of the month a workload runs before `mlgov-expires-on` stops it."""
        raw = labels.get("mlgov-expires-on")
        if not raw:
            return 1.0
        try:
            expires = date.fromisoformat(str(raw))
        except ValueError:
            bill.note(f"mlgov-expires-on {raw!r} is not YYYY-MM-DD: expiry not credited")
            return 1.0
        days = (expires - self.as_of).days + 1  # it runs through the expiry day
        factor = min(max(days, 0) / (HOURS_PER_MONTH / 24), 1.0)
        if factor == 1.0:
            bill.note(f"mlgov-expires-on {expires}: after this month, nothing to prorate")
            return factor
        bill.note(
            f"mlgov-expires-on {expires}: runs {max(days, 0)} day(s) of the month from "
            f"{self.as_of} -> running hours x {factor:.3f} (disks still billed)"
        )
        return factor

    # -- resource types ----------------------------------------------------------------------
    def workbench(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        gce = _map(inputs.get("gceSetup"))
        region = self.region(inputs, "location")
        shape = machine_shape(str(gce.get("machineType") or "n1-standard-4"))
        gpus = [
            (gpu_model(str(a.get("type", ""))), int(_num(a.get("coreCount"), 1)))
            for a in map(_map, _list(gce.get("acceleratorConfigs")))
        ]
        metadata = _map(gce.get("metadata"))
        gcp_name = str(inputs.get("name") or name)
        idle_s = _num(metadata.get("idle-timeout-seconds"), -1.0)
        u = self.usage
        window = self.windows.get(gcp_name)
        if idle_s > 0:
            active = u.notebook_active_hours.get(name, u.notebook_active_hours.get(
                gcp_name, u.notebook_active_hours_per_month))  # fmt: skip
            hours = active + u.notebook_sessions_per_month * idle_s / 3600
            bill.note(
                f"running {active:g} active h + {u.notebook_sessions_per_month} sessions x "
                f"{idle_s / 3600:g} h idle timeout = {hours:g} h"
            )
        else:
            hours = HOURS_PER_MONTH
            bill.note("no idle-timeout-seconds: runs until someone stops it (730 h)")
        if window is not None:
            hours = min(hours, window)
            bill.note(f"office-hours schedule allows {window:.1f} h/month")
        hours = min(hours, HOURS_PER_MONTH) * self.expiry_factor(bill, _map(inputs.get("labels")))
        base.note("always on: 730 h, no idle shutdown, no schedule, no expiry")
        for b, h in ((bill, hours), (base, HOURS_PER_MONTH)):
            self.machine(b, shape, region, "ondemand", h, extra_gpus=gpus)
            fee = self.catalog.price("workbench.mgmt.vcpu", region)
            b.charge("Workbench fee", fee, shape.vcpus * h, f"{shape.vcpus:g} vCPU x {h:g} h")
            for model, count in gpus:
                gfee = self.catalog.price(f"workbench.mgmt.gpu.{model}", region)
                b.charge("Workbench GPU fee", gfee, count * h, f"{count} x {h:g} h")
            boot = _map(gce.get("bootDisk"))
            self.disk(b, str(boot.get("diskType") or "pd-balanced"),
                      _num(boot.get("diskSizeGb"), 150.0), region)  # fmt: skip
            for data in map(_map, _list(gce.get("dataDisks"))):
                self.disk(b, str(data.get("diskType") or "pd-balanced"),
                          _num(data.get("diskSizeGb"), 100.0), region)  # fmt: skip

    def instance(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        region = self.region(inputs, "zone")
        shape = machine_shape(str(inputs.get("machineType", "")))
        gpus = [
            (gpu_model(str(a.get("type", ""))), int(_num(a.get("count"), 1)))
            for a in map(_map, _list(inputs.get("guestAccelerators")))
        ]
        sched = _map(inputs.get("scheduling"))
        spot = sched.get("provisioningModel") == "SPOT" or bool(sched.get("preemptible"))
        u = self.usage
        hours = u.gpu_vm_hours_per_month
        max_run_h = _num(_map(sched.get("maxRunDuration")).get("seconds")) / 3600
        if max_run_h > 0:
            hours = min(hours, u.gpu_vm_runs_per_month * max_run_h)
            bill.note(
                f"maxRunDuration {max_run_h:g} h x {u.gpu_vm_runs_per_month} runs/month, "
                f"capped at {u.gpu_vm_hours_per_month:g} h -> {hours:g} h"
            )
        hours *= self.expiry_factor(bill, _map(inputs.get("labels")))
        base.note("on-demand, 730 h, no maxRunDuration, no expiry")
        if _list(inputs.get("scratchDisks")):
            raise CostError(f"compute instance {name!r}: local SSD scratch disks are not priced")
        boot = _map(_map(inputs.get("bootDisk")).get("initializeParams"))
        for b, h, usage in ((bill, hours, "spot" if spot else "ondemand"),
                            (base, HOURS_PER_MONTH, "ondemand")):  # fmt: skip
            self.machine(b, shape, region, usage, h, extra_gpus=gpus)
            self.disk(b, str(boot.get("type") or "pd-standard"), _num(boot.get("size"), 10.0),
                      region)  # fmt: skip

    def node_pool(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        region = self.region(inputs, "location")
        node = _map(inputs.get("nodeConfig"))
        shape = machine_shape(str(node.get("machineType") or "e2-medium"))
        gpus = [
            (gpu_model(str(a.get("type", ""))), int(_num(a.get("count"), 1)))
            for a in map(_map, _list(node.get("guestAccelerators")))
        ]
        spot = bool(node.get("spot")) or bool(node.get("preemptible"))
        zones = max(len(_list(inputs.get("nodeLocations"))), 1)
        auto = _map(inputs.get("autoscaling"))
        fixed = _num(inputs.get("nodeCount"), _num(inputs.get("initialNodeCount"), 1.0)) * zones
        if auto:
            if "totalMinNodeCount" in auto or "totalMaxNodeCount" in auto:
                low, high = _num(auto.get("totalMinNodeCount")), _num(auto.get("totalMaxNodeCount"))
            else:
                low = _num(auto.get("minNodeCount")) * zones
                high = _num(auto.get("maxNodeCount")) * zones
            high = max(high, low)
            pool = str(inputs.get("name") or name)
            u = self.usage
            guess = u.training_pool_nodes.get(name, u.training_pool_nodes.get(pool))
            if guess is None:
                guess = u.training_pool_average_nodes if low == 0 else low
            nodes = min(max(guess, low), high)
            bill.note(f"autoscaling {low:g}..{high:g} nodes: average {nodes:g} nodes running")
        else:
            low = high = nodes = fixed
            bill.note(f"fixed size: {nodes:g} nodes")
        base_nodes = max(1.0, low, float(math.ceil(nodes)))
        base.note(f"on-demand, {base_nodes:g} node(s) always on (no scale-to-zero)")
        disk_type = str(node.get("diskType") or "pd-balanced")
        disk_gb = _num(node.get("diskSizeGb"), 100.0)
        for b, n, usage in ((bill, nodes, "spot" if spot else "ondemand"),
                            (base, base_nodes, "ondemand")):  # fmt: skip
            if n <= 0:
                b.note("no nodes running: $0")
                continue
            slots = float(math.ceil(n))  # node-hours spread over whole nodes for SUD
            self.machine(b, shape, region, usage, n * HOURS_PER_MONTH / slots, slots, gpus)
            if not shape.tpu:
                self.disk(b, disk_type, disk_gb, region, n)

    def cluster(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        fee = self.catalog.price("gke.cluster", "global")
        for b in (bill, base):
            b.charge("cluster management", fee, HOURS_PER_MONTH, "730 h")
            if name == self.free_cluster:
                credit = self.catalog.price("gke.free_tier_credit", "global")
                b.total -= min(credit.usd, fee.usd * HOURS_PER_MONTH)
                b.note(f"minus GKE free tier ${credit.usd:g}/month ({credit.note})")
        if _map(inputs.get("clusterAutoscaling")).get("enabled"):
            bill.note("auto-provisioned node pools are not priced (bounded by resourceLimits)")

    def tpu_vm(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        region = self.region(inputs, "zone")
        if inputs.get("acceleratorType"):
            gen, chips = tpu_chips(str(inputs["acceleratorType"]))
        else:
            cfg = _map(inputs.get("acceleratorConfig"))
            gen, chips = tpu_from_config(str(cfg.get("type", "")), str(cfg.get("topology", "")))
        sched = _map(inputs.get("schedulingConfig"))
        spot = bool(sched.get("spot")) or bool(sched.get("preemptible"))
        hours = self.usage.tpu_vm_hours_per_month
        bill.note(f"READY {hours:g} h/month (tpu_vm_hours_per_month)")
        hours *= self.expiry_factor(bill, _map(inputs.get("labels")))
        base.note("on-demand, 730 h, no expiry")
        shape = Shape("tpu", tpu=gen, tpu_chips=chips)
        self.machine(bill, shape, region, "spot" if spot else "ondemand", hours)
        self.machine(base, shape, region, "ondemand", HOURS_PER_MONTH)

    def sql(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        region = self.region(inputs, "region")
        cfg = _map(inputs.get("settings"))
        tier = str(cfg.get("tier", ""))
        edition = str(cfg.get("edition") or "ENTERPRISE").lower().replace("_", "-")
        ha = str(cfg.get("availabilityType", "ZONAL")) == "REGIONAL"
        cat = self.catalog
        mult = cat.price("sql.ha_multiplier", "global").usd if ha else 1.0
        hours = 0.0 if cfg.get("activationPolicy") == "NEVER" else HOURS_PER_MONTH
        ha_note = f" x {mult:g} HA" if ha else ""
        if m := re.fullmatch(r"db-custom-(\d+)-(\d+)", tier):
            vcpus, mem = float(m.group(1)), int(m.group(2)) / 1024
        elif m := re.fullmatch(r"db-n1-(standard|highmem)-(\d+)", tier):
            vcpus = float(m.group(2))
            mem = vcpus * (3.75 if m.group(1) == "standard" else 6.5)
        elif tier in ("db-f1-micro", "db-g1-small"):
            vcpus = mem = 0.0
        else:
            raise CostError(f"Cloud SQL instance {name!r}: unknown tier {tier!r}")
        if vcpus:
            vp = cat.price(f"sql.{edition}.vcpu", region)
            rp = cat.price(f"sql.{edition}.ram", region)
            bill.charge("vCPU", vp, vcpus * hours * mult, f"{vcpus:g} vCPU x {hours:g} h{ha_note}")
            bill.charge("RAM", rp, mem * hours * mult, f"{mem:g} GiB x {hours:g} h{ha_note}")
        else:
            bill.charge("shared core", cat.price(f"sql.shared.{tier}", region), hours * mult,
                        f"{hours:g} h{ha_note}")  # fmt: skip
        disk_kind = "pd-hdd" if str(cfg.get("diskType", "PD_SSD")) == "PD_HDD" else "pd-ssd"
        size = _num(cfg.get("diskSize"), 10.0)
        bill.charge("storage", cat.price(f"sql.storage.{disk_kind}", region), size * mult,
                    f"{size:g} GiB{ha_note}")  # fmt: skip
        if _map(cfg.get("backupConfiguration")).get("enabled"):
            gcp_name = str(inputs.get("name") or name)
            backup = self.usage.sql_backup_gb.get(
                name, self.usage.sql_backup_gb.get(gcp_name, size)
            )
            bill.charge("backups", cat.price("sql.backup", region), backup, f"{backup:g} GiB")
        base.total = bill.total
        base.note("same as estimate: governance does not change the instance's size")

    def dataset(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        dataset_id = str(inputs.get("datasetId") or name)
        region = self.region(inputs, "location")
        u = self.usage
        ingest = u.bigquery_ingest.get(dataset_id, u.bigquery_ingest_gb_per_day)
        retention, why = self._retention(dataset_id, inputs)
        unbounded = u.bigquery_unbounded_retention_days
        active_p = self.catalog.price("bigquery.storage.active", region)
        lt_p = self.catalog.price("bigquery.storage.longterm", region)
        for b, days, reason in ((bill, retention, why), (base, None, "no expiration")):
            if dataset_id in u.bigquery_stored_gb:
                stored = u.bigquery_stored_gb[dataset_id]
                b.charge("active storage", active_p, stored, f"{stored:g} GiB (bigquery_stored_gb)")
                continue
            keep = unbounded if days is None else days
            b.note(f"{ingest:g} GiB/day x {keep:g} days kept ({reason}) = {ingest * keep:g} GiB")
            active = ingest * min(keep, _LONG_TERM_DAYS)
            b.charge("active storage", active_p, active, f"{active:g} GiB")
            if keep > _LONG_TERM_DAYS:
                old = ingest * (keep - _LONG_TERM_DAYS)
                b.charge("long-term storage", lt_p, old, f"{old:g} GiB older than 90 days")

    def _retention(self, dataset_id: str, inputs: Mapping[str, Any]) -> tuple[float | None, str]:
        day_ms = 86_400_000
        for key in ("defaultPartitionExpirationMs", "defaultTableExpirationMs"):
            ms = _num(inputs.get(key))
            if ms > 0:
                return ms / day_ms, key
        tables = self.tables.get(dataset_id, [])
        expirations = [_num(_map(t.get("timePartitioning")).get("expirationMs")) for t in tables]
        if expirations and all(e > 0 for e in expirations):
            return max(expirations) / day_ms, "longest table partition expiration"
        return None, "no expiration: bigquery_unbounded_retention_days"

    def scheduler_job(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill):
        price = self.catalog.price("scheduler.job", "global")
        for b in (bill, base):
            if name in self.free_jobs:
                b.note("free tier: 3 jobs per billing account (first 3 jobs by name) = $0.00")
            else:
                b.charge("job", price, 1, "1 job")

    def topic(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        price = self.catalog.price("pubsub.throughput", "global")
        gib = self.usage.pubsub_gb_per_month
        for b in (bill, base):
            b.charge("throughput", price, gib / 1024, f"{gib:g} GiB (topics themselves are free)")

    def bucket(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        region = self.region(inputs, "location")
        storage_class = str(inputs.get("storageClass") or "STANDARD").lower()
        price = self.catalog.price(f"storage.{storage_class}", region)
        gcp_name = str(inputs.get("name") or name)
        u = self.usage
        gib = u.storage_gb.get(name, u.storage_gb.get(gcp_name, u.storage_gb_per_bucket))
        for b in (bill, base):
            b.charge("storage", price, gib, f"{gib:g} GiB")

    def function(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        svc = _map(inputs.get("serviceConfig"))
        gib = _memory_gib(str(svc.get("availableMemory") or "256M"))
        cpu = _num(svc.get("availableCpu"), _default_cpu(gib))
        gcp_name = str(inputs.get("name") or name)
        u = self.usage
        calls = u.function_invocations.get(name, u.function_invocations.get(
            gcp_name, u.function_invocations_per_month))  # fmt: skip
        seconds = calls * u.function_seconds_per_invocation
        cat = self.catalog
        for b in (bill, base):
            b.charge(
                "CPU",
                cat.price("functions.vcpu_second", "global"),
                seconds * cpu,
                f"{calls:g} calls x {u.function_seconds_per_invocation:g} s x {cpu:g} vCPU",
            )
            b.charge("memory", cat.price("functions.gib_second", "global"), seconds * gib,
                     f"{seconds:g} s x {gib:g} GiB")  # fmt: skip
            b.charge("requests", cat.price("functions.invocation", "global"), calls,
                     f"{calls:g} calls (free tier not applied)")  # fmt: skip

    def nat(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        u = self.usage
        cat = self.catalog
        for b in (bill, base):
            if u.nat_vm_count > 32:
                b.charge("gateway", cat.price("nat.gateway_max", "global"), HOURS_PER_MONTH,
                         f"730 h ({u.nat_vm_count} VMs > 32)")  # fmt: skip
            else:
                b.charge(
                    "gateway",
                    cat.price("nat.gateway_vm", "global"),
                    u.nat_vm_count * HOURS_PER_MONTH,
                    f"{u.nat_vm_count} VMs x 730 h",
                )
            b.charge("data", cat.price("nat.data", "global"), u.nat_gb_per_month,
                     f"{u.nat_gb_per_month:g} GiB")  # fmt: skip

    def disk_resource(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill):
        region = self.region(inputs, "zone", "region")
        for b in (bill, base):
            self.disk(b, str(inputs.get("type") or "pd-standard"), _num(inputs.get("size"), 10.0),
                      region)  # fmt: skip

    def address(self, name: str, inputs: Mapping[str, Any], bill: _Bill, base: _Bill) -> None:
        if str(inputs.get("addressType", "EXTERNAL")) != "INTERNAL":
            raise CostError(f"global address {name!r}: external static IPs are not priced")
        bill.note("internal (VPC peering) range: no charge")


def _memory_gib(text: str) -> float:
    m = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]i?)?B?\s*", text, re.IGNORECASE)
    if m is None:
        raise CostError(f"cannot read function memory {text!r}")
    scale = {"k": 1 / 1024**2, "m": 1 / 1024, "g": 1.0, "t": 1024.0}
    return float(m.group(1)) * scale[(m.group(2) or "M")[0].lower()]


def _default_cpu(gib: float) -> float:
    # Cloud Functions (2nd gen) default CPU per memory size
    for limit, cpu in ((0.125, 0.083), (0.25, 0.167), (0.5, 0.333), (1.0, 0.583), (2.0, 1.0)):
        if gib <= limit + 1e-9:
            return cpu
    return 2.0 if gib <= 8 else 4.0


# -- office-hours schedules: two Cloud Scheduler jobs per notebook -------------------------------
_DOW_NAMES = {"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}


def _dow(field_: str) -> set[int] | None:
    days: set[int] = set()
    for part in field_.lower().split(","):
        if part == "*":
            return set(range(7))
        lo, _, hi = part.partition("-")
        try:
            a = _DOW_NAMES[lo] if lo in _DOW_NAMES else int(lo)
            b = (_DOW_NAMES[hi] if hi in _DOW_NAMES else int(hi)) if hi else a
        except ValueError:
            return None
        days.update(d % 7 for d in range(a, b + 1))
    return days


def _cron_minutes(schedule: str) -> list[int] | None:
    """Minutes-of-week at which a simple `M H * * DOW` cron fires (None if not that form)."""
    parts = schedule.split()
    if len(parts) != 5 or parts[2] != "*" or parts[3] != "*":
        return None
    if not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    days = _dow(parts[4])
    if days is None:
        return None
    at = int(parts[1]) * 60 + int(parts[0])
    return sorted(d * 1440 + at for d in days)


def window_hours_per_month(start_cron: str, stop_cron: str) -> float | None:
    """Hours per month between each start and the next stop; None if a cron is not simple."""
    starts, stops = _cron_minutes(start_cron), _cron_minutes(stop_cron)
    if not starts or not stops:
        return None
    week = 7 * 1440
    minutes = 0
    for s in starts:
        minutes += min((t - s) % week or week for t in stops)
    return min(minutes / 60 * _WEEKS_PER_MONTH, HOURS_PER_MONTH)


def _office_hours(resources: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    crons: dict[str, dict[str, str]] = {}
    for res in resources:
        if res.get("type") != "gcp:cloudscheduler/job:Job":
            continue
        inputs = _map(res.get("inputs"))
        uri = str(_map(inputs.get("httpTarget")).get("uri", ""))
        if m := _SCHEDULE_URI.search(uri):
            crons.setdefault(m.group(1), {})[m.group(2)] = str(inputs.get("schedule", ""))
    windows: dict[str, float] = {}
    for notebook, pair in crons.items():
        if "start" in pair and "stop" in pair:
            hours = window_hours_per_month(pair["start"], pair["stop"])
            if hours is not None:
                windows[notebook] = hours
    return windows


# -- the registry ----------------------------------------------------------------------------
_Pricer = Callable[[_Estimator, str, Mapping[str, Any], _Bill, _Bill], None]
PRICED: dict[str, _Pricer] = {
    "gcp:workbench/instance:Instance": _Estimator.workbench,
    "gcp:compute/instance:Instance": _Estimator.instance,
    "gcp:container/nodePool:NodePool": _Estimator.node_pool,
    "gcp:container/cluster:Cluster": _Estimator.cluster,
    "gcp:tpu/v2Vm:V2Vm": _Estimator.tpu_vm,
    "gcp:sql/databaseInstance:DatabaseInstance": _Estimator.sql,
    "gcp:bigquery/dataset:Dataset": _Estimator.dataset,
    "gcp:cloudscheduler/job:Job": _Estimator.scheduler_job,
    "gcp:pubsub/topic:Topic": _Estimator.topic,
    "gcp:storage/bucket:Bucket": _Estimator.bucket,
    "gcp:cloudfunctionsv2/function:Function": _Estimator.function,
    "gcp:compute/routerNat:RouterNat": _Estimator.nat,
    "gcp:compute/disk:Disk": _Estimator.disk_resource,
    "gcp:compute/globalAddress:GlobalAddress": _Estimator.address,
}
FREE: dict[str, str] = {
    "gcp:compute/network:Network": "VPC networks have no charge",
    "gcp:compute/subnetwork:Subnetwork": "subnets have no charge (traffic is not estimated)",
    "gcp:compute/router:Router": "Cloud Router has no charge (NAT is priced on RouterNat)",
    "gcp:compute/resourcePolicy:ResourcePolicy": "instance schedules have no charge",
    "gcp:servicenetworking/connection:Connection": "private service access has no charge",
    "gcp:serviceaccount/account:Account": "service accounts have no charge",
    "gcp:serviceaccount/iAMMember:IAMMember": "IAM bindings have no charge",
    "gcp:projects/iAMCustomRole:IAMCustomRole": "IAM roles have no charge",
    "gcp:projects/iAMMember:IAMMember": "IAM bindings have no charge",
    "gcp:projects/service:Service": "enabling an API has no charge",
    "gcp:cloudfunctionsv2/functionIamMember:FunctionIamMember": "IAM bindings have no charge",
    "gcp:cloudrunv2/serviceIamMember:ServiceIamMember": "IAM bindings have no charge",
    "gcp:pubsub/topicIAMMember:TopicIAMMember": "IAM bindings have no charge",
    "gcp:storage/bucketIAMMember:BucketIAMMember": "IAM bindings have no charge",
    "gcp:bigquery/datasetIamMember:DatasetIamMember": "IAM bindings have no charge",
    "gcp:sql/database:Database": "priced on its Cloud SQL instance",
    "gcp:sql/user:User": "priced on its Cloud SQL instance",
    "gcp:bigquery/table:Table": "stored bytes are priced on its dataset (ingest is per dataset)",
    "gcp:storage/bucketObject:BucketObject": "stored bytes are priced on its bucket",
    "gcp:billing/budget:Budget": "budgets have no charge",
    "random:index/randomPassword:RandomPassword": "generated locally, not a cloud resource",
    "pulumi:pulumi:Stack": "the stack itself has no charge",
}
FREE_PREFIXES: dict[str, str] = {
    "mlgov:index:": "component resource: its children are priced",
    "pulumi:providers:": "provider resource: no charge",
}


def _free_reason(type_: str) -> str | None:
    if type_ in FREE:
        return FREE[type_]
    for prefix, reason in FREE_PREFIXES.items():
        if type_.startswith(prefix):
            return reason
    return None


def estimate_resources(
    resources: Sequence[Mapping[str, Any]],
    assumptions: UsageAssumptions | None = None,
    catalog: Catalog | None = None,
) -> CostReport:
    """Price every resource (plan-document shape: type, name, inputs).

    Raises:
        UnknownResourceType: a type has no estimator and no stated reason to be free.
        CatalogError: a resource uses something the catalog has no price for.
        CostError: inputs that cannot be priced (e.g. an unknown Cloud SQL tier).
    """
    usage = assumptions or UsageAssumptions()
    cat = catalog or default_catalog()
    est = _Estimator(resources, usage, cat)
    out: list[ResourceCost] = []
    for res in resources:
        type_ = str(res.get("type", ""))
        name = str(res.get("name", ""))
        pricer = PRICED.get(type_)
        if pricer is None:
            reason = _free_reason(type_)
            if reason is None:
                raise UnknownResourceType(type_, name)
            out.append(ResourceCost(name, type_, 0.0, 0.0, (f"$0.00: {reason}",)))
            continue
        lines: list[str] = []
        bill, base = _Bill("", lines), _Bill("baseline ", lines)
        try:
            pricer(est, name, _map(res.get("inputs")), bill, base)
        except CostError as err:
            raise add_context(err, f"{type_} {name!r}: ") from None
        out.append(ResourceCost(name, type_, max(bill.total, 0.0), max(base.total, 0.0),
                                tuple(lines)))  # fmt: skip
    return CostReport(out, cat.version, cat.generated)
