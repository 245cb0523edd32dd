"""Blast-radius limits of the reapers: how much one run may stop before it stops and pages.

Pure decisions over `BlastRadius` (MLGOV_POLICY.blast_radius), reused by the single-invocation
reapers (flows/guarded.py) and by a fan-out dispatcher that splits a run across work items:

- `simulates`: a reaper that `acting_reapers` does not list runs as a dry run, so a reaper kind
  added later stays dry until a stack lists it;
- the ceiling (`run_ceiling`, `ceiling_verdict`): a run whose planned stops exceed
  `max_stops_per_run`, or `max_stop_percent` of the running estate it read, acts on NONE of
  them (a runaway decision is the failure the ceiling exists for: half of it is no better);
- `allowances`, `split_ceiling`: the run's ceiling split across projects (a fan-out item's
  `allowance`), from what the index counted (census.py), or the hold of the whole run;
- the breaker (`breaker_tripped`): once a run made BREAKER_MIN_CALLS calls and more than
  `max_error_rate` of them failed, it starts no new action;
- the canary (`canary_projects`, `canary_hold`): projects under the canary entries act first,
  and a failure there holds every other project.

The budget kill switch is held to none of these (it is the last line against spend); scopes
bound it like everything else. Standard library only; I/O and sequencing live in
flows/guarded.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from govern import scopes
from govern.actions import Action, ConfirmStop, ReapRecommendation, StopWorkload
from govern.models import ActionPolicy, BlastRadius, Hold, Workload

BREAKER_MIN_CALLS: Final = 20
"""Calls a run makes before its error rate is judged: two failures in five calls is noise."""
HELD: Final = "held"
"""Every reason of an action a limit held back starts with this word."""


def simulates(entry_point: str, policy: ActionPolicy) -> bool:
    """Whether this reaper runs as a dry run: the policy's dry_run, or not in acting_reapers."""
    acting = policy.blast_radius.acting_reapers
    return policy.dry_run or (acting is not None and entry_point not in acting)


def dry_run_reason(entry_point: str, policy: ActionPolicy) -> str:
    """Why the reaper simulates, for its log line ("" when it acts)."""
    if policy.dry_run:
        return "dry_run is true"
    if simulates(entry_point, policy):
        return f"{entry_point} is not in blast_radius.acting_reapers"
    return ""


# -- the ceiling ---------------------------------------------------------------------------------


def stops_in(actions: Iterable[Action]) -> list[Action]:
    """The actions that stop something (what the ceiling counts).

    Not claims released, nor checks of VMs an earlier run's stop left STOPPING (that stop was
    counted by its own run).
    """
    return [
        a
        for a in actions
        if isinstance(a, StopWorkload | ReapRecommendation) and not isinstance(a, ConfirmStop)
    ]


def running_estate(workloads: Iterable[Workload], policy: ActionPolicy) -> int:
    """How many governed workloads run, of those a run read (a VM under a Workbench counts once).

    What max_stop_percent is a share of: the running workloads of the kinds the reaper reads,
    in the zones of the projects it covers (every zone of a project found through a scope).
    """
    seen: set[tuple[str, str, str]] = set()
    for w in workloads:
        if w.running and scopes.governs_zone(policy, w.project, w.zone):
            seen.add(w.key)
    return len(seen)


def run_ceiling(limits: BlastRadius, running: int | None) -> tuple[int, str]:
    """The most stops the run may make, and which limit sets it (in words).

    `running`: the running estate the run read (None: unknown, the percentage is not applied).
    The percentage rounds down: 10% of 15 VMs is 1 stop, never 2.
    """
    ceiling, source = limits.max_stops_per_run, f"max_stops_per_run {limits.max_stops_per_run}"
    if limits.max_stop_percent is not None and running is not None:
        share = math.floor(running * limits.max_stop_percent / 100 + 1e-9)
        if share < ceiling:
            ceiling = share
            source = (
                f"max_stop_percent {limits.max_stop_percent:g}% of {running} running "
                f"workload(s) = {share}"
            )
    return ceiling, source


def ceiling_verdict(
    planned_stops: int,
    running_estate: int | None,
    limits: BlastRadius,
    allowance: int | None = None,
) -> Hold | None:
    """None when the run may make its planned stops; else the ceiling's Hold (no retry).

    `allowance`: a fan-out item's share of its run's ceiling (the dispatcher computed it from
    the run's limits, `allowances`); it replaces the limits for that item.
    """
    if allowance is not None:
        ceiling, source = allowance, f"this work item's allowance of {allowance} stop(s)"
    else:
        ceiling, source = run_ceiling(limits, running_estate)
    if planned_stops <= ceiling:
        return None
    return Hold(
        "ceiling",
        f"{HELD}: blast-radius ceiling: {planned_stops} stop(s) planned, more than {source}; "
        "none acted on (check why so many, then raise the limit or stop them by hand)",
        retry=False,
    )


def allowances(
    candidates_by_project: Mapping[str, int], limits: BlastRadius, running: int | None = None
) -> dict[str, int]:
    """The run's ceiling split across projects: how many stops each project's item may make.

    Each project gets at most its candidates (the stops it may plan; pass 1 each when nobody
    knows yet, for an even split); when they all fit under the ceiling each gets exactly its
    own. Otherwise the ceiling is shared in proportion to the candidates (largest remainder,
    ties by project id), so the allowances never add up to more than the run's ceiling.
    """
    ceiling, _ = run_ceiling(limits, running)
    wanted = {p: max(0, n) for p, n in candidates_by_project.items()}
    total = sum(wanted.values())
    if total <= ceiling:
        return dict(wanted)
    shares = {p: ceiling * n / total for p, n in wanted.items()}
    given = {p: math.floor(s) for p, s in shares.items()}
    left = ceiling - sum(given.values())
    by_remainder = sorted(wanted, key=lambda p: (-(shares[p] - given[p]), p))
    for p in by_remainder[:left]:
        given[p] += 1
    return given


@dataclass(frozen=True)
class Split:
    """A fanned-out reaper run's ceiling split across its projects, or the hold of the run.

    `allowances`: each project's work item's `allowance`. `bound`: their sum, the most stops
    the whole run can make. `hold`: the ceiling's Hold when the counted candidates already
    exceed it (then nothing is published).
    """

    allowances: dict[str, int]
    ceiling: int
    source: str
    counted: int
    hold: Hold | None = None

    @property
    def bound(self) -> int:
        """The most stops the whole run can make: the sum of the allowances."""
        return sum(self.allowances.values())


def split_ceiling(
    projects: Sequence[str],
    candidates: Mapping[str, int],
    limits: BlastRadius,
    running: int | None = None,
    *,
    hold_over: bool,
) -> Split:
    """Split the run's ceiling across `projects` for a fan-out dispatcher.

    `candidates`: what the index counted for the projects it covers (absent: not counted).
    `hold_over`: the counts are the run's planned stops (reap_expired), so a total above the
    ceiling holds the whole run, like one invocation would; otherwise (an upper bound only,
    reap_idle_gpus) it is shared in proportion, at least 1 to each project with a candidate.

    Within the ceiling, each counted project gets its own count; what is left of the ceiling
    is shared evenly across every project (so a project the index has not caught up with
    still has room), the remainder one each in project-id order. Every project that was not
    counted gets at least 1. The run's bound (`Split.bound`, the sum) is therefore the
    ceiling, plus 1 for each project raised from 0 to 1 (not counted while the ceiling had
    fewer stops left than the run has projects; or, above the ceiling, counted with a
    candidate but shared none). A ceiling of 0 gives every project 0.
    """
    ceiling, source = run_ceiling(limits, running)
    counted = {p: max(0, candidates[p]) for p in projects if p in candidates}
    total = sum(counted.values())
    if total > ceiling and hold_over:
        hold = Hold(
            "ceiling",
            f"{HELD}: blast-radius ceiling: {total} stop(s) counted by Cloud Asset Inventory in "
            f"{sum(1 for n in counted.values() if n)} project(s), more than {source}; no work "
            "item published, none acted on (check why so many, then raise the limit or stop "
            "them by hand)",
            retry=False,
        )
        return Split({}, ceiling, source, total, hold)
    given = dict.fromkeys(projects, 0)
    if ceiling == 0:
        return Split(given, ceiling, source, total)  # a ceiling of 0: no stop anywhere
    if total > ceiling:
        given.update(allowances(counted, limits, running))
        given.update({p: 1 for p, n in counted.items() if n and not given[p]})
    else:
        given.update(counted)
        if projects:
            each, extra = divmod(ceiling - total, len(projects))
            for i, p in enumerate(sorted(projects)):
                given[p] += each + (1 if i < extra else 0)
    for p in projects:
        if p not in counted and not given[p]:
            given[p] = 1
    return Split(given, ceiling, source, total)


# -- the error-rate breaker ----------------------------------------------------------------------


def breaker_tripped(calls: int, failures: int, limits: BlastRadius) -> bool:
    """True once `calls` >= BREAKER_MIN_CALLS and more than max_error_rate of them failed."""
    return calls >= BREAKER_MIN_CALLS and failures > limits.max_error_rate * calls


def breaker_hold(calls: int, failures: int, limits: BlastRadius) -> Hold:
    """The breaker's Hold: the run is retried (the API may be healthy again by then)."""
    return Hold(
        "breaker",
        f"{HELD}: error-rate breaker: {failures} of {calls} API calls failed "
        f"({failures / max(calls, 1):.0%} > max_error_rate {limits.max_error_rate:.0%}); "
        "no new action started",
        retry=True,
    )


# -- the canary ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Canary:
    """The projects acted on first, and the canary folders that could not be resolved."""

    projects: frozenset[str]
    unresolved: tuple[str, ...] = ()


def canary_projects(
    limits: BlastRadius, resolve: Callable[[str], Sequence[str]] | None = None
) -> Canary:
    """The canary's project ids: `projects/<id>` entries, and each folder's projects.

    `resolve(folder)` lists a folder's projects (like a scope); a folder it cannot resolve
    (no resolver, or it raised ValueError/LookupError) is `unresolved`, and the run holds every
    project that is not a known canary: acting without the canary would skip the safety the
    stack asked for.
    """
    projects: set[str] = set()
    unresolved: list[str] = []
    for entry in limits.canary:
        kind, _, ident = entry.partition("/")
        if kind == "projects":
            projects.add(ident)
            continue
        if resolve is None:
            unresolved.append(entry)
            continue
        try:
            projects.update(resolve(entry))
        except (ValueError, LookupError):
            unresolved.append(entry)
    return Canary(frozenset(projects), tuple(unresolved))


def canary_hold(failed: Sequence[str], unresolved: Sequence[str] = ()) -> Hold:
    """The Hold of the projects after the canary: it failed, or could not be resolved."""
    if unresolved:
        why = (
            f"canary {', '.join(unresolved)} could not be resolved to projects, so no project "
            "outside the known canary is acted on"
        )
    else:
        shown = ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")
        why = f"canary failed ({shown}), so no other project is acted on"
    return Hold("canary", f"{HELD}: {why}", retry=True)
