"""Cloud Run functions (2nd gen): CPU-seconds, GiB-seconds and requests.

Invocations and seconds per invocation are usage assumptions; CPU defaults follow the memory
size as Cloud Functions does. The free tier is not applied (it is per billing account). The
baseline is the same.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.errors import CostError
from governance.costs.inputs import number, text
from governance.costs.model import Resource
from governance.costs.usage_models import usage_model
from mlgov_policies.props import as_mapping

DEFAULT_MEMORY = "256M"  # Cloud Functions' default availableMemory
_MEMORY = re.compile(r"\s*([\d.]+)\s*([KMGT]i?)?B?\s*", re.IGNORECASE)
_GIB_PER_UNIT = {"k": 1 / 1024**2, "m": 1 / 1024, "g": 1.0, "t": 1024.0}
# Default vCPU per memory size (GiB upper bound -> vCPU) for 2nd gen functions.
# Source: https://cloud.google.com/functions/docs/configuring/memory
_DEFAULT_CPU = ((0.125, 0.083), (0.25, 0.167), (0.5, 0.333), (1.0, 0.583), (2.0, 1.0))


@usage_model(place=80)
class FunctionsUsage(BaseModel):
    """How often functions run and for how long."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    function_invocations_per_month: float = Field(
        default=3000.0, ge=0, description="Invocations per function per month."
    )
    function_invocations: dict[str, float] = Field(
        default_factory=dict, description="Per-function invocations/month, keyed by name."
    )
    function_seconds_per_invocation: float = Field(
        default=2.0, ge=0, description="Average billed seconds per invocation."
    )


class Declared(BaseModel):
    """A function's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_invocations: float | None = Field(default=None, ge=0, description="Calls a month.")
    average_seconds: float | None = Field(
        default=None, ge=0, description="Billed seconds per call."
    )


def memory_gib(memory: str) -> float:
    """GiB from an availableMemory string such as "256M", "1Gi" or "2G"."""
    m = _MEMORY.fullmatch(memory)
    if m is None:
        raise CostError(f"cannot read function memory {memory!r}")
    return float(m.group(1)) * _GIB_PER_UNIT[(m.group(2) or "M")[0].lower()]


def default_cpu(gib: float) -> float:
    """The vCPU Cloud Functions gives a function of `gib` memory when availableCpu is unset."""
    for limit, cpu in _DEFAULT_CPU:
        if gib <= limit + 1e-9:
            return cpu
    return 2.0 if gib <= 8 else 4.0


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """CPU, memory and requests for the assumed calls; the baseline is the same."""
    q = Quote()
    svc = as_mapping(res.inputs.get("serviceConfig"))
    gib = memory_gib(
        text(svc.get("availableMemory"), DEFAULT_MEMORY, "serviceConfig.availableMemory")
    )
    cpu = number(svc.get("availableCpu"), default_cpu(gib))
    u = ctx.knobs(FunctionsUsage)
    d = ctx.usage_of(res, Declared)
    calls = res.override(u.function_invocations, u.function_invocations_per_month)
    calls = calls if d.monthly_invocations is None else d.monthly_invocations
    per_call = (
        u.function_seconds_per_invocation if d.average_seconds is None else (d.average_seconds)
    )
    seconds = calls * per_call
    cat = ctx.catalog
    for b in (q.governed, q.baseline):
        b.charge(
            "CPU",
            cat.price("functions.vcpu_second", "global"),
            seconds * cpu,
            f"{calls:g} calls x {per_call:g} s x {cpu:g} vCPU",
        )
        b.charge("memory", cat.price("functions.gib_second", "global"), seconds * gib,
                 f"{seconds:g} s x {gib:g} GiB")  # fmt: skip
        b.charge("requests", cat.price("functions.invocation", "global"), calls,
                 f"{calls:g} calls (free tier not applied)")  # fmt: skip
    return q
