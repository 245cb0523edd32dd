"""Cloud Functions (1st gen, `gcp.cloudfunctions.Function`): invocations, compute time, egress.

Google bills 1st gen functions per invocation, per GB-second of provisioned memory and per
GHz-second of the CPU that comes with it, plus internet egress per GB
(https://cloud.google.com/functions/pricing-1stgen; catalog keys `functions1.*`, Tier 1 prices in
the Tier 1 regions of https://cloud.google.com/functions/docs/locations: other regions are
priced from the nearest Tier 1 region, and the line says so). `availableMemoryMb` (default 256)
decides the CPU: 128 MB 0.2 GHz, 256 MB 0.4 GHz, 512 MB 0.8 GHz, 1024 MB 1.4 GHz, 2048 MB
2.4 GHz, 4096 and 8192 MB 4.8 GHz (the same page). Invocations, seconds and egress are usage: a
usage file declares them, else each part is a "depends on usage" line. Compute time is billed in
100 ms increments, rounded up (same page): mlgov rounds the declared average up, which is exact
when every call takes about as long and a lower bound otherwise. The free tier (per billing
account) is not applied. The baseline is the same.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.errors import CostError
from governance.costs.inputs import number
from governance.costs.model import Resource

DEFAULT_MEMORY_MB = 256.0
GHZ_BY_MEMORY_MB = {128: 0.2, 256: 0.4, 512: 0.8, 1024: 1.4, 2048: 2.4, 4096: 4.8, 8192: 4.8}
INCREMENT_S = 0.1  # compute time is billed in 100 ms increments, rounded up


def billed_seconds(average: float) -> float:
    """A call's billed seconds: `average` rounded up to the next 100 ms."""
    # the small epsilon keeps 0.3 (0.30000000000000004 / 0.1) from rounding up to 0.4
    return math.ceil(average / INCREMENT_S - 1e-9) * INCREMENT_S


class Declared(BaseModel):
    """A 1st gen function's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_invocations: float | None = Field(default=None, ge=0, description="Calls a month.")
    average_seconds: float | None = Field(
        default=None, ge=0, description="Seconds per call (billed rounded up to 100 ms)."
    )
    monthly_egress_gb: float | None = Field(
        default=None, ge=0, description="GB sent to the internet a month."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """GB-seconds, GHz-seconds, invocations and egress for the declared usage."""
    q = Quote()
    region = ctx.region(res.inputs, "region")
    memory = number(res.inputs.get("availableMemoryMb"), DEFAULT_MEMORY_MB)
    ghz = GHZ_BY_MEMORY_MB.get(int(memory))
    if ghz is None:
        raise CostError(
            f"Cloud Function {res.name!r}: availableMemoryMb {memory:g} is not a 1st gen size "
            f"({', '.join(str(m) for m in GHZ_BY_MEMORY_MB)})"
        )
    gb = memory / 1024
    d = ctx.usage_of(res, Declared)
    cat = ctx.catalog
    prices = {
        k: cat.price(f"functions1.{k}", region)
        for k in ("gb_second", "ghz_second", "invocation", "egress")
    }
    for b in (q.governed, q.baseline):
        b.note(f"{memory:g} MB memory with {ghz:g} GHz CPU")
        if d.monthly_invocations is None or d.average_seconds is None:
            b.depends_on_usage(
                "CPU",
                prices["ghz_second"],
                "monthly_invocations",
                f"per GHz-second ({ghz:g} GHz x seconds; declare `average_seconds` too)",
            )
            b.depends_on_usage(
                "memory",
                prices["gb_second"],
                "monthly_invocations",
                f"per GB-second ({gb:g} GB x seconds)",
            )
        else:
            per_call = billed_seconds(d.average_seconds)
            seconds = d.monthly_invocations * per_call
            rounded = f" (billed {per_call:g} s)" if per_call != d.average_seconds else ""
            b.charge(
                "CPU",
                prices["ghz_second"],
                seconds * ghz,
                f"{d.monthly_invocations:g} calls x {d.average_seconds:g} s{rounded} x {ghz:g} GHz",
            )
            b.charge("memory", prices["gb_second"], seconds * gb, f"{seconds:g} s x {gb:g} GB")
        if d.monthly_invocations is None:
            b.depends_on_usage("invocations", prices["invocation"], "monthly_invocations")
        else:
            b.charge(
                "invocations",
                prices["invocation"],
                d.monthly_invocations,
                f"{d.monthly_invocations:g} calls (free tier not applied)",
            )
        if d.monthly_egress_gb is None:
            b.depends_on_usage("egress", prices["egress"], "monthly_egress_gb")
        else:
            b.charge("egress", prices["egress"], d.monthly_egress_gb, f"{d.monthly_egress_gb:g} GB")
    return q
