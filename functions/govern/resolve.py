"""Which projects a policy governs in one invocation: its listed projects and its scopes' (pure).

A scope (`folders/N` or `organizations/N`) governs the ACTIVE projects anywhere under it whose
labels carry every pair of the scope's `labels` (Cloud Asset Inventory finds them:
flows/scoped.py). A project both listed in MLGOV_POLICY.projects and found under a scope is
governed by its listed entry (explicit wins: its zones, environment, billing opt-in). A project
found only through scopes has no zones (every zone and region is governed) and is governed by
the first of its scopes in key order, except that its billing may be unlinked only when every
scope that found it allows that. Its Vertex AI jobs are read in the scope's `vertex_regions`,
by default the regions of every listed project's zones, else `us-central1`.

A scope whose search failed or found nothing acts on nothing: it adds no project (never
"everything"); flows/scoped.py reports it as a failure so the run is retried. Standard library
only; no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from govern.models import ActionPolicy, BudgetPolicy, FoundProject, ProjectPolicy, ScopePolicy
from govern.vertex import region_of

ACTIVE: Final = "ACTIVE"
DEFAULT_VERTEX_REGION: Final = "us-central1"


def selected(found: Iterable[FoundProject], scope: ScopePolicy) -> tuple[str, ...]:
    """The ids of the ACTIVE projects whose labels match every label of the scope (sorted)."""
    return active_with_labels(found, scope.labels)


def active_with_labels(found: Iterable[FoundProject], labels: Mapping[str, str]) -> tuple[str, ...]:
    """The ids of the ACTIVE projects whose labels match every one of `labels` (sorted)."""
    wanted = labels.items()
    return tuple(
        sorted(
            {
                p.project_id
                for p in found
                if p.state == ACTIVE and all(p.labels.get(k) == v for k, v in wanted)
            }
        )
    )


def default_vertex_regions(policy: ActionPolicy) -> tuple[str, ...]:
    """The regions of every listed project's zones, else `us-central1`."""
    regions = {region_of(z) for p in policy.projects.values() for z in p.zones}
    return tuple(sorted(regions)) or (DEFAULT_VERTEX_REGION,)


@dataclass(frozen=True)
class Resolution:
    """What each scope resolved to: its selected projects, or why it acts on nothing."""

    projects: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    failed: Mapping[str, str] = field(default_factory=dict[str, str])

    def found_through_scopes(self) -> set[str]:
        """Every project some scope selected."""
        return {p for ids in self.projects.values() for p in ids}


def governed(policy: ActionPolicy, resolution: Resolution) -> ActionPolicy:
    """`policy` with the projects the resolved scopes add, and its budgets over them.

    Listed projects keep their entry; every other project a scope selected gets one without
    zones. Each budget covers its listed projects, then its scopes' projects (in order, once).
    """
    projects: dict[str, ProjectPolicy] = dict(policy.projects)
    regions = default_vertex_regions(policy)
    scopes_of: dict[str, list[str]] = {}
    for key in sorted(resolution.projects):
        for project in resolution.projects[key]:
            scopes_of.setdefault(project, []).append(key)
    for project, keys in sorted(scopes_of.items()):
        if project in projects:
            continue  # explicit wins
        first = policy.scopes[keys[0]]
        projects[project] = ProjectPolicy(
            environment=first.environment,
            zones=(),
            allow_billing_disable=all(policy.scopes[k].allow_billing_disable for k in keys),
            scope=keys[0],
            vertex_regions=first.vertex_regions or regions,
        )
    budgets = {bid: _covering(b, resolution) for bid, b in policy.budgets.items()}
    return dataclasses.replace(policy, projects=projects, budgets=budgets)


def _covering(budget: BudgetPolicy, resolution: Resolution) -> BudgetPolicy:
    if not budget.scopes:
        return budget
    covered = list(budget.projects)
    for key in budget.scopes:
        covered += [p for p in resolution.projects.get(key, ()) if p not in covered]
    return dataclasses.replace(budget, projects=tuple(covered))


def scope_of(policy: ActionPolicy, project: str) -> str | None:
    """The scope a governed project was found through (None: listed explicitly)."""
    governed_project = policy.projects.get(project)
    return None if governed_project is None else governed_project.scope
