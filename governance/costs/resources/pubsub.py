"""Pub/Sub topics and subscriptions: message throughput and retained-message storage.

A topic bills the bytes published (`pubsub_gb_per_month`, or a usage file's
`monthly_message_gib`) and, when it retains messages (`messageRetentionDuration`), their
storage: in steady state the last that many days of what is published. A subscription bills the
bytes delivered to it and, when it retains acknowledged messages or has snapshots, their storage
(https://cloud.google.com/pubsub/pricing; catalog keys `pubsub.throughput`, `pubsub.storage`).
A subscription's volume is usage: without a declaration each part is a "depends on usage" line.
Topics and subscriptions themselves are free; the first 10 GiB a month per billing account are
not credited. The baseline is the same.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.errors import CostError
from governance.costs.model import Resource
from governance.costs.month import DAYS_PER_MONTH
from governance.costs.usage_models import usage_model
from mlgov_policies.props import as_bool, as_str, is_unknown

GIB_PER_TIB = 1024.0


@usage_model(place=90)
class PubSubUsage(BaseModel):
    """How much is published to each topic."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pubsub_gb_per_month: float = Field(
        default=0.01, ge=0, description="GiB published per topic per month."
    )


class TopicDeclared(BaseModel):
    """A topic's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_message_gib: float | None = Field(
        default=None, ge=0, description="GiB published to the topic a month."
    )


class SubscriptionDeclared(BaseModel):
    """A subscription's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_message_gib: float | None = Field(
        default=None, ge=0, description="GiB delivered to the subscription a month."
    )
    retained_acked_gib: float | None = Field(
        default=None, ge=0, description="GiB of acknowledged messages it retains."
    )
    snapshot_gib: float | None = Field(
        default=None, ge=0, description="GiB held by its snapshots (unacknowledged backlog)."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Throughput in TiB; the baseline is the same."""
    q = Quote()
    price = ctx.catalog.price("pubsub.throughput", "global")
    declared = ctx.usage_of(res, TopicDeclared).monthly_message_gib
    gib = ctx.knobs(PubSubUsage).pubsub_gb_per_month if declared is None else declared
    source = "pubsub_gb_per_month" if declared is None else "usage file monthly_message_gib"
    retention = _days(res.inputs.get("messageRetentionDuration"))
    storage = ctx.catalog.price("pubsub.storage", "global")
    for b in (q.governed, q.baseline):
        b.charge(
            "throughput",
            price,
            gib / GIB_PER_TIB,
            f"{gib:g} GiB ({source}; topics themselves are free)",
        )
        if retention:
            # a topic that retains messages holds, in steady state, the last `retention` days
            held = gib * retention / DAYS_PER_MONTH
            b.charge("retained messages", storage, held,
                     f"{gib:g} GiB a month x {retention:g} days kept (messageRetentionDuration) "
                     f"/ {DAYS_PER_MONTH:g} days")  # fmt: skip
    return q


def _days(duration: object) -> float:
    """Days in a topic's `messageRetentionDuration` ("86400s"); 0 when it sets none.

    `CostError` for a value that is not a duration (Pub/Sub would refuse it) or that is not
    known until apply (the storage it bills cannot be told).
    """
    if duration is None or duration == "":
        return 0.0
    if is_unknown(duration):
        raise CostError("messageRetentionDuration is not known until apply: the storage of "
                        "the messages the topic retains cannot be estimated")  # fmt: skip
    text = as_str(duration) or ""
    try:
        seconds = float(text[:-1]) if text.endswith("s") else -1.0
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        raise CostError(f"messageRetentionDuration is {duration!r}, not a duration like '86400s'")
    return seconds / 86400


def subscription(res: Resource, ctx: PlanContext) -> Quote:
    """Delivered TiB and retained GiB, declared or shown as depending on usage."""
    q = Quote()
    d = ctx.usage_of(res, SubscriptionDeclared)
    throughput = ctx.catalog.price("pubsub.throughput", "global")
    storage = ctx.catalog.price("pubsub.storage", "global")
    retains = as_bool(res.inputs.get("retainAckedMessages")) is True
    for b in (q.governed, q.baseline):
        if d.monthly_message_gib is None:
            b.depends_on_usage("delivery", throughput, "monthly_message_gib")
        else:
            b.charge(
                "delivery",
                throughput,
                d.monthly_message_gib / GIB_PER_TIB,
                f"{d.monthly_message_gib:g} GiB delivered",
            )
        if d.retained_acked_gib is not None:
            b.charge(
                "retained acknowledged messages",
                storage,
                d.retained_acked_gib,
                f"{d.retained_acked_gib:g} GiB",
            )
        elif retains:
            b.depends_on_usage("retained acknowledged messages", storage, "retained_acked_gib")
        if d.snapshot_gib is not None:
            b.charge("snapshots", storage, d.snapshot_gib, f"{d.snapshot_gib:g} GiB")
    return q
