"""What a fan-out dispatcher counts before it publishes a reaper run, from Cloud Asset Inventory.

A reaper run fanned out over thousands of projects is decided by thousands of workers, none of
which sees the run whole. So before publishing, the dispatcher asks the index, once per scope,
for what the run could stop, and splits the run's blast-radius ceiling across the projects from
that (blast.split_ceiling):

- reap_expired: the running VMs, TPU VMs and Workbench instances labelled `mlgov-expires-on`
  with a date before today, in governed zones, not exempt: what decide.reap_expired would stop
  if the index were live. Their total is the run's planned stops, so a total above the ceiling
  holds the whole run before anything is published.
- reap_idle_gpus: the running VMs and TPU VMs whose `workload` label the idle policy names
  (the index does not say which VMs have GPUs, nor how busy they are): an upper bound of what
  the run may stop, so it shapes the allowances but never holds the run.
- reap_idle_vms: nothing to count (the index does not hold the recommender's verdicts).

With `max_stop_percent`, one search per scope reads the whole running estate of the reaper's
kinds instead (and the candidates are picked out of it), so the ceiling can be a share of it.

Only the projects a scope search covers are counted (their ids in `counted`); the others
(projects listed without a scope) are not, and blast.split_ceiling shares the rest of the
ceiling among them. The index is eventually consistent (minutes): it is a count, never a
decision; every worker reads live state before it acts. Standard library only.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Final

from govern import blast, decide, scopes
from govern.labels import EXPIRES_LABEL, WORKLOAD_LABEL
from govern.models import ActionPolicy, Workload

COMPUTE: Final = "compute.googleapis.com/Instance"
TPU: Final = "tpu.googleapis.com/Node"
WORKBENCH: Final = "notebooks.googleapis.com/Instance"
# Each kind's index `state` while it runs (compute v1 Instance.status RUNNING, tpu v2 Node.state
# READY, notebooks v2 Instance.state ACTIVE); the search filters on it, Workload.running again.
_RUNNING: Final = {COMPUTE: "RUNNING", TPU: "READY", WORKBENCH: "ACTIVE"}


def running_query(asset_types: Iterable[str]) -> str:
    """The query for what runs of `asset_types`: `state:RUNNING`, `state:(RUNNING OR READY)`."""
    states = [_RUNNING[t] for t in asset_types]
    return f"state:{states[0]}" if len(states) == 1 else f"state:({' OR '.join(states)})"


@dataclass(frozen=True)
class Search:
    """One searchAllResources query the dispatcher runs over each scope."""

    asset_types: tuple[str, ...]
    query: str
    counts_candidates: bool  # False: only the running estate is counted


def search_for(job: str, policy: ActionPolicy) -> Search | None:
    """The query that counts `job`'s candidates (or its estate), or None: nothing to count."""
    estate = policy.blast_radius.max_stop_percent is not None
    if job == "reap_expired":
        kinds = (COMPUTE, TPU, WORKBENCH)
        query = running_query(kinds) if estate else f"labels.{EXPIRES_LABEL}:*"
        return Search(kinds, query, counts_candidates=True)
    if job == "reap_idle_gpus":
        kinds = (COMPUTE, TPU)
        query = running_query(kinds) if estate else f"labels.{WORKLOAD_LABEL}:*"
        return Search(kinds, query, counts_candidates=True)
    if job == "reap_idle_vms" and estate:
        return Search((COMPUTE,), running_query((COMPUTE,)), counts_candidates=False)
    return None


@dataclass(frozen=True)
class Census:
    """What the index counted: candidates per counted project, and the running estate.

    `candidates`: every counted project, 0 included (absent: not counted). `running`: the
    running workloads of the reaper's kinds in the counted projects, when max_stop_percent
    asked for it (None otherwise, or when nothing was counted).
    """

    candidates: dict[str, int] = field(default_factory=dict[str, int])
    running: int | None = None


def census(
    job: str,
    search: Search,
    found: Iterable[Workload],
    policy: ActionPolicy,
    counted: Collection[str],
    today: date,
) -> Census:
    """Count `found` (the search's results) for the `counted` projects of `policy`."""
    mine = [w for w in found if w.project in counted]
    running: int | None = None
    if policy.blast_radius.max_stop_percent is not None and counted:
        running = blast.running_estate(mine, policy)
    candidates = dict.fromkeys(counted, 0)
    if search.counts_candidates:
        for w in _candidates(job, mine, policy, today):
            candidates[w] += 1
    return Census(candidates if search.counts_candidates else {}, running)


def _candidates(
    job: str, found: list[Workload], policy: ActionPolicy, today: date
) -> Iterable[str]:
    """The project of each candidate (once per candidate)."""
    if job == "reap_expired":
        # decide.py's own decision, on what the index holds (no owner, disks or accelerators:
        # a GKE node labelled expired counts here although the worker leaves it to GKE).
        return (a.project for a in blast.stops_in(decide.reap_expired(found, policy, today)))
    wanted = {"compute": set(policy.idle_gpu.workloads), "tpu": set(policy.idle_tpu.workloads)}
    return (
        w.project
        for w in found
        if w.running
        and w.labels.get(WORKLOAD_LABEL) in wanted.get(w.kind, set())
        and not policy.is_exempt(w.labels)
        and scopes.governs_zone(policy, w.project, w.zone)
    )
