"""mlgov's marks on idle-VM recommendations: the stateMetadata it writes, and reading it back.

Claiming a recommendation writes `{"mlgov": "claimed", "run": <run id>, "runstart": <UTC>}`.
If the claiming run cannot finish (the stop kept failing transiently, the platform killed the
function), the recommendation stays CLAIMED; the next run lists CLAIMED ones too, recognises
mlgov's metadata and resumes the claim once the claiming run is certainly over (`stale`).
The Recommender list filter cannot select on stateMetadata (supported filter fields:
state_info.state, recommenderSubtype, priority, targetResources; recommender v1 discovery doc,
recommendations.list `filter`), so this is read client-side.
Values follow the API's rules for stateMetadata values, `^[a-zA-Z0-9_./-]{0,255}$`
(MarkRecommendationClaimedRequest.stateMetadata, same doc): hence the ':'-free timestamps and
`value` for free text. Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from govern.models import Recommendation

KEY: Final = "mlgov"
CLAIMED: Final = "claimed"
STOPPED: Final = "stopped"
FAILED: Final = "failed"
# What mlgov before run ids wrote on claim; such claims have no start time and count as stale.
_LEGACY_CLAIM: Final = "reap_idle_vms"
# ISO 8601 basic format: no ':' (not allowed in stateMetadata values).
_STAMP: Final = "%Y%m%dT%H%M%SZ"
_NOT_ALLOWED = re.compile(r"[^a-zA-Z0-9_./-]+")
MAX_VALUE: Final = 255
RUN_MARGIN_SECONDS: Final = 120.0
"""How long a run may outlast its time budget: it finishes actions already started (execute.py,
CONTINUATION_GRACE_SECONDS = 30) and answers; the platform kills it at its timeout, which
governance sets to the budget + 60 s (automation.py REPORT_MARGIN_SECONDS)."""


@dataclass(frozen=True)
class Run:
    """The invocation that makes marks: its id and when it started (UTC)."""

    run_id: str
    started: datetime


@dataclass(frozen=True)
class Claim:
    """mlgov's claim found on a recommendation: the claiming run, and when it started."""

    run_id: str
    started: datetime | None


def value(text: str) -> str:
    """`text` as a stateMetadata value: runs of other characters become '_', at most 255."""
    return _NOT_ALLOWED.sub("_", text).strip("_")[:MAX_VALUE]


def metadata(state: str, run: Run, reason: str = "") -> dict[str, str]:
    """The stateMetadata mlgov writes with a mark (`state`: CLAIMED, STOPPED or FAILED)."""
    meta = {KEY: state, "run": value(run.run_id), "runstart": run.started.strftime(_STAMP)}
    if reason:
        meta["reason"] = value(reason)
    return meta


def claim_of(rec: Recommendation) -> Claim | None:
    """The claim mlgov holds on `rec`; None unless it is CLAIMED with mlgov's metadata."""
    meta = rec.state_metadata
    if rec.state != "CLAIMED" or meta.get(KEY) not in (CLAIMED, _LEGACY_CLAIM):
        return None
    try:
        started = datetime.strptime(meta.get("runstart", ""), _STAMP).replace(tzinfo=UTC)
    except ValueError:
        started = None
    return Claim(meta.get("run", ""), started)


def stale(claim: Claim, now: datetime, time_budget_seconds: float) -> bool:
    """True once the claiming run is certainly over, so resuming cannot race it.

    A claim without a readable start time (written by an older mlgov) counts as stale.
    """
    if claim.started is None:
        return True
    lasts = timedelta(seconds=time_budget_seconds + RUN_MARGIN_SECONDS)
    return now - claim.started > lasts
