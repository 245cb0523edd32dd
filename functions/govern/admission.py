"""Whether the policy lets a work item act, and under what policy it acts (pure).

The worker (on_work_item) re-reads MLGOV_POLICY for every item: an item can never widen what the
policy allows. Its project must be listed in MLGOV_POLICY.projects, or its `scope` must be one of
MLGOV_POLICY.scopes; a budget item's budget must exist and name that project or scope; it may
unlink billing only where the project (or its scope) allows it and the budget's
`disable_billing_at` is at or below the item's ratio; its ratio must reach `stop_at`; its period
must be the budget's current one (a stale item is refused); its key must be the one its fields
make (workitems.py), so a hand-made item cannot pose as another. A reaper item's `dry_run` can
only make it MORE dry. Anything else is refused: the worker acts on nothing, logs ERROR and
acknowledges it (a forged or stale item must not loop to the dead-letter topic).

What this cannot check: that a project named with a scope is really under that scope (Asset
Inventory would cost one organization-quota call per item); only the four dispatchers may publish
to the work topic (its IAM), which is what keeps an item's project honest.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from govern import decide, periods, resolve, workitems
from govern.models import ActionPolicy, BudgetPolicy, ProjectPolicy
from govern.notifications import DEFAULT_PERIOD
from govern.workitems import BudgetItem, ReaperItem, WorkItem

STAMP = "%Y-%m-%dT%H:%M:%SZ"


def period_stamp(moment: datetime) -> str:
    """A period start as the items carry it (`2026-11-01T07:00:00Z`)."""
    return moment.strftime(STAMP)


@dataclass(frozen=True)
class Admitted:
    """An item the policy lets act, and the one-project policy it acts under."""

    policy: ActionPolicy
    scope: decide.BudgetScope | None = None  # budget items: what to stop and unlink


@dataclass(frozen=True)
class Refused:
    """An item the policy does not let act; `reason` says why (for the ERROR line)."""

    reason: str


def admit(item: WorkItem, policy: ActionPolicy, now: datetime) -> Admitted | Refused:
    """Check `item` against `policy` at `now` (UTC)."""
    governed = _project_policy(item, policy)
    if isinstance(governed, Refused):
        return governed
    if isinstance(item, BudgetItem):
        return _budget(item, policy, governed, now)
    return _reaper(item, policy, governed)


def _project_policy(item: WorkItem, policy: ActionPolicy) -> ProjectPolicy | Refused:
    listed = policy.projects.get(item.project)
    if listed is not None:
        return listed  # explicit wins, whatever scope the item names
    if item.scope is None or item.scope not in policy.scopes:
        named = f"and its scope {item.scope!r} is not" if item.scope else "and it names no scope"
        return Refused(
            f"project {item.project!r} is not in MLGOV_POLICY.projects {named} in "
            "MLGOV_POLICY.scopes"
        )
    scope = policy.scopes[item.scope]
    return ProjectPolicy(
        environment=scope.environment,
        zones=(),
        allow_billing_disable=scope.allow_billing_disable,
        scope=item.scope,
        vertex_regions=scope.vertex_regions or resolve.default_vertex_regions(policy),
    )


def _one_project(policy: ActionPolicy, project: str, governed: ProjectPolicy) -> ActionPolicy:
    """`policy` over this one project, its scopes dropped (nothing is resolved again)."""
    return dataclasses.replace(policy, projects={project: governed}, scopes={})


def _budget(
    item: BudgetItem, policy: ActionPolicy, governed: ProjectPolicy, now: datetime
) -> Admitted | Refused:
    budget = policy.budgets.get(item.budget_id)
    if budget is None:
        return Refused(f"budget {item.budget_id!r} is not in MLGOV_POLICY.budgets")
    # Listed in the budget, or found through one of the budget's scopes (a project listed in
    # MLGOV_POLICY.projects too keeps its own entry, but is covered through the scope).
    covers = item.project in budget.projects or (
        item.scope is not None and item.scope in budget.scopes
    )
    if not covers:
        return Refused(
            f"budget {item.budget_id} covers neither project {item.project!r} nor its scope "
            f"{item.scope!r}"
        )
    current = period_stamp(periods.period_start(budget.period or DEFAULT_PERIOD, now))
    if item.period_start != current:
        return Refused(
            f"period_start {item.period_start} is not the budget's current period "
            f"({current}): stale"
        )
    spent = f"actual spend at {item.ratio:.0%} of budget {item.budget_id} (work item)"
    level = decide.ratio_level(item.ratio, budget, spent)
    if level.level is None:
        return Refused(f"ratio {item.ratio:g} is below stop_at {budget.stop_at:g}")
    expected = workitems.budget_key(item.budget_id, item.period_start, level.level, item.project)
    if item.key != expected:
        return Refused(f"key {item.key} is not the one its fields make ({expected})")
    if item.unlink and not (governed.allow_billing_disable and level.unlinks):
        return Refused(
            f"unlink asked, but billing may not be unlinked in {item.project} at ratio "
            f"{item.ratio:g} (allow_billing_disable {governed.allow_billing_disable}, "
            f"disable_billing_at {budget.disable_billing_at})"
        )
    one = _one_project(policy, item.project, governed)
    scope = decide.BudgetScope(
        item.ratio,
        (item.project,) if item.stop else (),
        (item.project,) if item.unlink else (),
        level.reason,
    )
    only: BudgetPolicy = dataclasses.replace(budget, projects=(item.project,), scopes=())
    return Admitted(dataclasses.replace(one, budgets={item.budget_id: only}), scope)


def _reaper(item: ReaperItem, policy: ActionPolicy, governed: ProjectPolicy) -> Admitted | Refused:
    expected = workitems.reaper_key(item.job, item.run, item.project)
    if item.key != expected:
        return Refused(f"key {item.key} is not the one its fields make ({expected})")
    try:
        periods.parse_instant(item.started)
    except periods.PeriodError as err:
        return Refused(f"started: {err}")
    one = _one_project(policy, item.project, governed)
    # An item can only make the run MORE dry: dry_run false never overrides a dry policy.
    return Admitted(dataclasses.replace(one, dry_run=policy.dry_run or item.dry_run))
