"""Cloud Run services and jobs: vCPU-seconds, GiB-seconds and requests at the region's tier.

Prices from https://cloud.google.com/run/pricing, by the region's pricing tier
(https://cloud.google.com/run/docs/locations); catalog keys `run.request.*` (CPU allocated only
during requests, the default) and `run.instance.*` (CPU always allocated, and jobs).

- A service billed per request (`cpuIdle` unset or true) bills requests x seconds x its CPU and
  memory limits (defaults 1 vCPU, 512 MiB), divided by the requests that share an instance
  (declared; without a declaration none overlap, an upper bound), and every request. Minimum
  instances are also billed while idle (https://cloud.google.com/run/docs/configuring/min-instances:
  Cloud Run keeps them running "even if they're not processing requests"), their CPU at the idle
  rate and their memory at the request-time rate (catalog `run.idle.*`, from Google's page as
  transcribed in Google's firebase-tools): `idle_instance_hours` declared, else every minimum
  instance idle all month (an upper bound: while one serves a request it is billed above instead).
- A service with CPU always allocated (`cpuIdle: false`) bills its instances' lifetime: declared
  `instance_hours`, else its `minInstanceCount` all month (a lower bound when it scales out).
- A job bills executions x tasks x seconds per task.

Requests, seconds and executions are usage: without a usage file each part is a "depends on
usage" line. The free tier (per billing account) is not applied. The baseline is the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Bill, Quote
from governance.costs.catalog import Catalog
from governance.costs.context import PlanContext
from governance.costs.inputs import number, text
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.resources.functions import memory_gib
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_bool, as_list, as_mapping, as_str, dig

DEFAULT_CPU = 1.0
DEFAULT_MEMORY = "512Mi"


def _first(items: object) -> Mapping[str, Any]:
    """The first element of a list input as a mapping (empty when there is none)."""
    found = as_list(items)
    return as_mapping(found[0]) if found else {}


class ServiceDeclared(BaseModel):
    """A Cloud Run service's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_requests: float | None = Field(default=None, ge=0, description="Requests a month.")
    average_request_seconds: float | None = Field(
        default=None, ge=0, description="Seconds an instance works on one request."
    )
    concurrent_requests_per_instance: float | None = Field(
        default=None, gt=0, description="Requests that share an instance's billed time."
    )
    instance_hours: float | None = Field(
        default=None, ge=0, description="Instance-hours a month (CPU always allocated)."
    )
    idle_instance_hours: float | None = Field(
        default=None,
        ge=0,
        description="Instance-hours a month minimum instances spend idle (CPU only allocated "
        "during requests; default: minimum instances x 730 h).",
    )


class JobDeclared(BaseModel):
    """A Cloud Run job's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_executions: float | None = Field(default=None, ge=0, description="Runs a month.")
    average_task_seconds: float | None = Field(
        default=None, ge=0, description="Seconds one task runs."
    )


def _cpu(value: object) -> float:
    """VCPUs from a limit such as "1", "2", "1000m" (default 1)."""
    raw = as_str(value) or ""
    if raw.endswith("m"):
        return number(raw[:-1], DEFAULT_CPU * 1000) / 1000
    return number(value, DEFAULT_CPU) or DEFAULT_CPU


def _limits(container: Mapping[str, Any], where: str) -> tuple[float, float]:
    limits = as_mapping(dig(container, "resources", "limits"))
    memory = memory_gib(text(limits.get("memory"), DEFAULT_MEMORY, f"{where}.resources.limits"))
    return _cpu(limits.get("cpu")), memory


def _seconds(
    b: Bill,
    cat: Catalog,
    region: str,
    billing: str,
    seconds: float | None,
    cpu: float,
    gib: float,
    detail: str,
    usage_key: str,
) -> None:
    vcpu_s = cat.price(f"run.{billing}.vcpu_second", region)
    gib_s = cat.price(f"run.{billing}.gib_second", region)
    if seconds is None:
        b.depends_on_usage("CPU", vcpu_s, usage_key, f"per vCPU-second ({cpu:g} vCPU)")
        b.depends_on_usage("memory", gib_s, usage_key, f"per GiB-second ({gib:g} GiB)")
        return
    b.charge("CPU", vcpu_s, seconds * cpu, f"{detail} x {cpu:g} vCPU")
    b.charge("memory", gib_s, seconds * gib, f"{detail} x {gib:g} GiB")


def service(res: Resource, ctx: PlanContext) -> Quote:
    """A service's CPU, memory and requests (request-based or instance-based billing)."""
    q = Quote()
    inputs = res.inputs
    region = ctx.region(inputs, "location")
    if res.type == v.CLOUD_RUN_V1_SERVICE:
        spec = as_mapping(dig(inputs, "template", "spec"))
        container = _first(spec.get("containers"))
        notes = as_mapping(dig(inputs, "template", "metadata", "annotations"))
        always = str(notes.get("run.googleapis.com/cpu-throttling", "")).lower() == "false"
        minimum = number(notes.get("autoscaling.knative.dev/minScale"))
        where = "template.spec.containers[0]"
    else:
        template = as_mapping(inputs.get("template"))
        container = _first(template.get("containers"))
        always = as_bool(dig(container, "resources", "cpuIdle")) is False
        minimum = number(dig(template, "scaling", "minInstanceCount")) or number(
            dig(inputs, "scaling", "minInstanceCount")
        )
        where = "template.containers[0]"
    cpu, gib = _limits(container, where)
    d = ctx.usage_of(res, ServiceDeclared)
    cat = ctx.catalog
    for b in (q.governed, q.baseline):
        if always:
            hours = (
                d.instance_hours
                if d.instance_hours is not None
                else (minimum * HOURS_PER_MONTH if minimum else None)
            )
            why = (
                "usage file instance_hours"
                if d.instance_hours is not None
                else f"{minimum:g} minimum instance(s) x 730 h"
            )
            b.note("CPU always allocated: billed for instance lifetime")
            _seconds(
                b,
                cat,
                region,
                "instance",
                None if hours is None else hours * 3600,
                cpu,
                gib,
                f"{why} = {(hours or 0) * 3600:g} s",
                "instance_hours",
            )
            continue
        concurrency = d.concurrent_requests_per_instance or 1.0
        seconds = None
        if d.monthly_requests is not None and d.average_request_seconds is not None:
            seconds = d.monthly_requests * d.average_request_seconds / concurrency
        share = (
            f"/ {concurrency:g} concurrent"
            if d.concurrent_requests_per_instance
            else "(no overlap assumed: an upper bound)"
        )
        detail = (
            f"{d.monthly_requests or 0:g} requests x {d.average_request_seconds or 0:g} s {share}"
        )
        _seconds(b, cat, region, "request", seconds, cpu, gib, detail, "monthly_requests")
        requests = cat.price("run.request.request", region)
        if d.monthly_requests is None:
            b.depends_on_usage("requests", requests, "monthly_requests")
        else:
            b.charge(
                "requests",
                requests,
                d.monthly_requests,
                f"{d.monthly_requests:g} requests (free tier not applied)",
            )
        if minimum:
            with b.part("idle minimum instances"):
                _idle(b, cat, region, minimum, d.idle_instance_hours, cpu, gib)
    return q


def _idle(
    b: Bill, cat: Catalog, region: str, minimum: float, declared: float | None, cpu: float,
    gib: float,
) -> None:  # fmt: skip
    """Idle minimum instances of a request-billed service: CPU at the idle rate, memory."""
    if declared is None:
        hours = minimum * HOURS_PER_MONTH
        why = (
            f"{minimum:g} minimum instance(s) x 730 h idle (the default: an upper bound, as time "
            "serving requests is billed above; declare `idle_instance_hours`)"
        )
    else:
        hours, why = declared, f"{declared:g} idle instance-hours (idle_instance_hours)"
    seconds = hours * 3600
    b.charge("CPU", cat.price("run.idle.vcpu_second", region), seconds * cpu,
             f"{why} = {seconds:g} s x {cpu:g} vCPU")  # fmt: skip
    b.charge("memory", cat.price("run.idle.gib_second", region), seconds * gib,
             f"{seconds:g} s x {gib:g} GiB")  # fmt: skip


def job(res: Resource, ctx: PlanContext) -> Quote:
    """Executions x tasks x seconds x (CPU, memory) at the instance-based price."""
    q = Quote()
    inputs = res.inputs
    region = ctx.region(inputs, "location")
    outer = as_mapping(inputs.get("template"))
    inner = as_mapping(outer.get("template"))
    container = _first(inner.get("containers"))
    cpu, gib = _limits(container, "template.template.containers[0]")
    tasks = number(outer.get("taskCount"), 1.0) or 1.0
    d = ctx.usage_of(res, JobDeclared)
    seconds = None
    if d.monthly_executions is not None and d.average_task_seconds is not None:
        seconds = d.monthly_executions * tasks * d.average_task_seconds
    detail = (
        f"{d.monthly_executions or 0:g} executions x {tasks:g} task(s) x "
        f"{d.average_task_seconds or 0:g} s"
    )
    for b in (q.governed, q.baseline):
        _seconds(
            b, ctx.catalog, region, "instance", seconds, cpu, gib, detail, "monthly_executions"
        )
    return q
