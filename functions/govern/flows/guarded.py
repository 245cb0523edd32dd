"""How a reaper carries out what it decided, within its blast-radius limits (govern/blast.py).

The three reapers (flows/expired.py, idle_vms.py, idle_gpus.py) decide as before, then hand
their actions here instead of to execute.apply:

1. `acting_reapers`: a reaper the policy does not list runs as a dry run (so does a fan-out
   item that asks for one: an item can only make a run drier, never wetter);
2. the ceiling: more planned stops than the run's ceiling (or the item's allowance) and none
   is acted on: each is reported `skipped`, "held: blast-radius ceiling ...", one CRITICAL
   line pages, and the run answers 2xx (a retry would only be held again);
3. the canary: the canary projects' actions run first; if any of them failed (or a canary
   folder could not be resolved through Asset Inventory), every other project's actions are
   held, CRITICAL, non-2xx (a fan-out work item skips this: its dispatcher ran the canary
   before publishing, flows/dispatch.py);
4. the error-rate breaker, armed on the Runner: once it trips, actions not yet started are
   held (execute._one), CRITICAL, non-2xx. It counts one invocation's calls: with fan-out,
   each work item (one project) has its own breaker.

Held actions are reported like every other outcome, never dropped. The budget kill switch
does not come here (flows/budget.py): it is exempt from all of this.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from govern import blast, execute
from govern.actions import Action, Skip
from govern.execute import Runner
from govern.flows import scoped
from govern.logs import log
from govern.models import Hold, Report, Result
from govern.ports import Ports

Resolver = Callable[[str], Sequence[str]]
"""Lists a canary folder's projects (Asset Inventory, like a scope: flows/scoped.py)."""


@dataclass(frozen=True)
class Bounds:
    """What a caller adds to the policy's limits for one reaper run (a fan-out work item).

    `dry_run`: simulate even where the policy would act (never the other way round).
    `allowance`: the item's share of its run's ceiling (blast.split_ceiling), instead of the
    run's own ceiling. `resolve`: lists a canary folder's projects (default: Asset Inventory,
    flows/scoped.canary_resolver). `canary_first`: False when the canary is not this run's
    to wait for: a fan-out work item, whose dispatcher acted on the canary projects before it
    published anything (flows/dispatch.py), or the dispatcher's canary run itself.
    """

    dry_run: bool = False
    allowance: int | None = None
    resolve: Resolver | None = None
    canary_first: bool = True


SINGLE_RUN: Final = Bounds()
"""A reaper run in one invocation: the policy's limits, nothing added."""


def planned_stops(actions: Sequence[Action]) -> list[Action]:
    """The actions that stop something (what the ceiling counts: blast.stops_in)."""
    return blast.stops_in(actions)


def _held(actions: Sequence[Action], hold: Hold) -> list[Action]:
    """Every action that would act becomes a Skip saying which limit held it (Skips stay)."""
    return [
        a if isinstance(a, Skip) else Skip(a.target, f"{hold.reason}; it was: {a.reason}")
        for a in actions
    ]


def reap(
    entry_point: str,
    actions: Sequence[Action],
    ports: Ports,
    runner: Runner,
    *,
    running: int | None,
    bounds: Bounds = SINGLE_RUN,
) -> Report:
    """Carry out a reaper's actions within its limits; the run's Report.

    `running`: the running estate the run read (what max_stop_percent is a share of; None:
    not known). `bounds`: what the caller adds (a fan-out item's dry_run and allowance, and
    that its dispatcher ran the canary; a canary folder resolver other than Asset Inventory).
    """
    dry_run, allowance, resolve = bounds.dry_run, bounds.allowance, bounds.resolve
    policy = runner.policy
    limits = policy.blast_radius
    simulate = dry_run or blast.simulates(entry_point, policy)
    if simulate and not policy.dry_run:
        why = (
            "its work item asks for a dry run"
            if dry_run
            else blast.dry_run_reason(entry_point, policy)
        )
        log("INFO", f"{entry_point} simulates: {why}", entry_point=entry_point)
    runner.arm_breaker(limits)
    todo = list(actions)
    stops = planned_stops(todo)
    hold = blast.ceiling_verdict(len(stops), running, limits, allowance)
    if hold is not None:
        runner.hold(
            hold,
            page=not simulate,
            entry_point=entry_point,
            planned_stops=len(stops),
            running_estate=running,
            targets=[a.target for a in stops],
        )
        todo = _held(todo, hold)
    if bounds.canary_first:
        first, rest = _canary_first(
            todo, resolve or scoped.canary_resolver(runner, ports), runner, entry_point, simulate
        )
    else:
        first, rest = todo, []
    results = _run(first, ports, runner, simulate)
    failed = [r.target for r in results if r.outcome == "failed"]
    if failed and any(not isinstance(a, Skip) for a in rest) and not simulate:
        canary = blast.canary_hold(failed)
        runner.hold(canary, entry_point=entry_point, canary_failed=failed)
        rest = _held(rest, canary)
    results += _run(rest, ports, runner, simulate)
    execute.log_results(results, entry_point)
    report = execute.report(entry_point, results, runner)
    return dataclasses.replace(report, dry_run=simulate)


def _run(actions: Sequence[Action], ports: Ports, runner: Runner, simulate: bool) -> list[Result]:
    if not actions:
        return []
    return execute.finish(execute.start(actions, ports, runner, dry_run=simulate), runner)


def _canary_first(
    actions: list[Action],
    resolve: Resolver,
    runner: Runner,
    entry_point: str,
    simulate: bool,
) -> tuple[list[Action], list[Action]]:
    """(the canary projects' actions, everyone else's); all in `first` without a canary.

    A canary folder that could not be resolved holds everyone else at once. A dry run acts on
    nothing, so it has no canary to wait for: it only warns of a folder it could not resolve.
    """
    limits = runner.policy.blast_radius
    if not limits.canary or all(isinstance(a, Skip) for a in actions):
        # Nothing to act on: no canary to wait for, and no folder searched for nothing.
        return actions, []
    canary = blast.canary_projects(limits, resolve)
    if simulate:
        if canary.unresolved:
            log(
                "WARNING",
                f"{entry_point}: canary {', '.join(canary.unresolved)} could not be resolved; "
                "an acting run would hold every project outside the known canary",
                entry_point=entry_point,
            )
        return actions, []
    first = [a for a in actions if a.project in canary.projects]
    rest = [a for a in actions if a.project not in canary.projects]
    if canary.unresolved and any(not isinstance(a, Skip) for a in rest):
        hold = blast.canary_hold((), canary.unresolved)
        runner.hold(hold, entry_point=entry_point, unresolved=list(canary.unresolved))
        rest = _held(rest, hold)
    return first, rest
