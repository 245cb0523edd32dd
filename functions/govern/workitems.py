"""Work items: one project's share of a budget alert or a reaper run, as a Pub/Sub message.

With fan-out on (MLGOV_WORK_TOPIC), the four dispatchers judge, resolve the governed projects and
publish one item per project (flows/dispatch.py); `on_work_item` does that project's part with
the same flows (flows/work.py). The wire format is fixed (docs/architecture.md#work-items): the
message's `data` is the JSON below, its attributes `mlgov-key`, `mlgov-job` and `mlgov-run` repeat
it.

- budget: `{"job": "budget", "project", "run", "key", "scope", "budget_id", "ratio",
  "period_start", "stop", "unlink"}`; key = sha256("budget|<budget_id>|<period_start>|<level>|
  <project>") where level is the highest policy level the ratio reached (`stop_at` or
  `disable_billing_at`, as %g): every alert of one period at one level makes the same keys.
- reapers: `{"job", "project", "run", "key", "scope", "allowance", "dry_run", "started"}`;
  key = sha256("<job>|<run>|<project>").

Keys are hex, the first 32 characters. Reading an item back is parse/workitem.py's job.
Standard library only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

ReaperJob = Literal["reap_idle_vms", "reap_expired", "reap_idle_gpus"]
Job = Literal["budget", "reap_idle_vms", "reap_expired", "reap_idle_gpus"]
REAPER_JOBS: Final[tuple[ReaperJob, ...]] = ("reap_idle_vms", "reap_expired", "reap_idle_gpus")
KEY_ATTRIBUTE: Final = "mlgov-key"
JOB_ATTRIBUTE: Final = "mlgov-job"
RUN_ATTRIBUTE: Final = "mlgov-run"
KEY_LENGTH: Final = 32
# Pub/Sub's publish limits: "The value for message_count is too large ... maximum value is 1000"
# and "Request payload size exceeds the limit: 10485760 bytes" (the REST body, base64 included).
MAX_MESSAGES_PER_PUBLISH: Final = 1000
MAX_PUBLISH_BYTES: Final = 10 * 1024 * 1024


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_LENGTH]


def level_text(level: float) -> str:
    """A budget level as the key writes it (`%g`: 1.0 -> "1", 1.2 -> "1.2")."""
    return f"{level:g}"


def budget_key(budget_id: str, period_start: str, level: float, project: str) -> str:
    """The idempotency key of one project's share of a budget level in one period."""
    return _key(f"budget|{budget_id}|{period_start}|{level_text(level)}|{project}")


def reaper_key(job: str, run: str, project: str) -> str:
    """The idempotency key of one project's share of one reaper run."""
    return _key(f"{job}|{run}|{project}")


@dataclass(frozen=True)
class BudgetItem:
    """One project's share of a budget alert: stop its workloads, and unlink billing?"""

    project: str
    run: str
    key: str
    scope: str | None
    budget_id: str
    ratio: float
    period_start: str
    stop: bool
    unlink: bool
    job: Literal["budget"] = "budget"

    def fields(self) -> dict[str, Any]:
        """The message data, in the contract's key order."""
        return {
            "job": self.job,
            "project": self.project,
            "run": self.run,
            "key": self.key,
            "scope": self.scope,
            "budget_id": self.budget_id,
            "ratio": self.ratio,
            "period_start": self.period_start,
            "stop": self.stop,
            "unlink": self.unlink,
        }


@dataclass(frozen=True)
class ReaperItem:
    """One project's share of a reaper run.

    `allowance`: the most stops this item may make (the run's blast-radius ceiling split over
    its projects; None: no ceiling was given). `dry_run`: the dispatcher's verdict; an item can
    only make the worker MORE dry than its policy. `started`: when the dispatcher's run started
    (UTC, ISO 8601), the run's "now" for claims and expiry dates.
    """

    job: ReaperJob
    project: str
    run: str
    key: str
    scope: str | None
    allowance: int | None
    dry_run: bool
    started: str

    def fields(self) -> dict[str, Any]:
        """The message data, in the contract's key order."""
        return {
            "job": self.job,
            "project": self.project,
            "run": self.run,
            "key": self.key,
            "scope": self.scope,
            "allowance": self.allowance,
            "dry_run": self.dry_run,
            "started": self.started,
        }


WorkItem: TypeAlias = BudgetItem | ReaperItem


def identity(item: WorkItem) -> dict[str, Any]:
    """The `work_item` field of every log line about an item (docs/architecture.md#on-work-item)."""
    return {
        "job": item.job,
        "project": item.project,
        "run": item.run,
        "key": item.key,
        "scope": item.scope,
    }


@dataclass(frozen=True)
class Message:
    """A Pub/Sub message to publish: `data` (raw bytes; base64 on the wire) and attributes."""

    data: bytes
    attributes: Mapping[str, str] = field(default_factory=dict[str, str])

    def wire_size(self) -> int:
        """Bytes it adds to a publish request's JSON body (base64 data, attributes, syntax)."""
        b64 = 4 * ((len(self.data) + 2) // 3)
        attrs = sum(len(k) + len(v) + 6 for k, v in self.attributes.items())
        return b64 + attrs + 40


def message(item: WorkItem) -> Message:
    """The message that carries `item`."""
    data = json.dumps(item.fields(), separators=(",", ":"), sort_keys=False).encode()
    return Message(
        data,
        {KEY_ATTRIBUTE: item.key, JOB_ATTRIBUTE: item.job, RUN_ATTRIBUTE: item.run},
    )


# The envelope of a publish request ({"messages": [...]}) and a margin for the JSON around it.
_REQUEST_OVERHEAD: Final = 1024


def batches(
    messages: Iterable[Message],
    max_count: int = MAX_MESSAGES_PER_PUBLISH,
    max_bytes: int = MAX_PUBLISH_BYTES,
) -> list[list[Message]]:
    """Split messages into publish requests within Pub/Sub's count and size limits, in order.

    Raises:
        ValueError: one message alone is larger than a request may be.
    """
    out: list[list[Message]] = []
    batch: list[Message] = []
    size = _REQUEST_OVERHEAD
    for m in messages:
        grows = m.wire_size()
        if grows + _REQUEST_OVERHEAD > max_bytes:
            raise ValueError(f"a message of {len(m.data)} bytes cannot be published")
        if batch and (len(batch) >= max_count or size + grows > max_bytes):
            out.append(batch)
            batch, size = [], _REQUEST_OVERHEAD
        batch.append(m)
        size += grows
    if batch:
        out.append(batch)
    return out
