"""What a stack governs and declares, as `mlgov cap` needs it: where to look, and the ceilings.

Where: every project the stack's budget function governs (the `projects` of the policy the
Pulumi program renders, components/action_settings.py), their zones, and those zones' regions
(GKE clusters and Vertex AI live in regions). The cap acts on every cluster and opted-in
endpoint there, not only on the stack's own cluster, so restore looks at all of them.

Ceilings: restore never raises anything above what the stack declares, whatever a label says
(labels can be edited by anyone who can update the resource). A training pool of the stack's
cluster is bounded by its `max_nodes`, the cluster's NAP limits by
`gke.autoprovisioning.accelerators`. A pool or cluster the stack does not declare (another
cluster in a governed project, a pool node auto-provisioning made) is bounded by the largest
value the stack declares of that kind: its largest training pool, its NAP limit for that
accelerator (none declared: 0, so such a limit stays closed and the report says why).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from governance.settings import Settings


def region_of(zone: str) -> str:
    """`us-central1` for `us-central1-a` (a region stays as it is)."""
    head, _, tail = zone.rpartition("-")
    return head if head and len(tail) == 1 else zone


@dataclass(frozen=True)
class Ceiling:
    """The most restore may set, and where the stack says so (for the report)."""

    value: int
    source: str


@dataclass(frozen=True)
class Stack:
    """A stack as `mlgov cap` sees it."""

    name: str
    governed: Mapping[str, tuple[str, ...]]  # project -> zones
    own_cluster: tuple[str, str, str] | None  # (project, region, name) if the stack has `gke:`
    pools: Mapping[str, int] = field(default_factory=dict[str, int])  # pool name -> max_nodes
    pool_keys: Mapping[str, str] = field(default_factory=dict[str, str])  # pool name -> key
    nap: Mapping[str, int] = field(default_factory=dict[str, int])  # accelerator -> max
    unlinks_billing: bool = False  # some governed project lets the cap unlink its billing
    # Fan-out (docs/architecture.md#fan-out): the project the functions log in and their service
    # names, where `cap status` reads each run's outcome per project. Empty: no fan-out.
    project: str = ""
    function_services: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()  # governed folders/organizations (their projects are not read)

    @property
    def fans_out(self) -> bool:
        """Whether the stack's functions publish one work item per project."""
        return bool(self.function_services)

    def regions(self, project: str) -> tuple[str, ...]:
        """The regions of a governed project's zones."""
        return tuple(sorted({region_of(z) for z in self.governed.get(project, ())}))

    def _own(self, project: str, location: str, cluster: str) -> bool:
        return self.own_cluster == (project, location, cluster)

    def pool_ceiling(self, project: str, location: str, cluster: str, pool: str) -> Ceiling:
        """The most nodes (in total) restore may give a node pool."""
        if self._own(project, location, cluster) and pool in self.pools:
            key = self.pool_keys[pool]
            return Ceiling(self.pools[pool], f"training_pools.{key}.max_nodes")
        if not self.pools:
            return Ceiling(0, "the stack declares no training pools")
        largest = max(self.pools, key=lambda n: (self.pools[n], n))
        where = f"training_pools.{self.pool_keys[largest]}.max_nodes"
        return Ceiling(self.pools[largest], f"not declared by the stack; its largest pool, {where}")

    def nap_ceiling(self, project: str, location: str, cluster: str, kind: str) -> Ceiling:
        """The most restore may set an accelerator's NAP maximum to."""
        where = f"gke.autoprovisioning.accelerators.{kind}"
        if kind in self.nap:
            if self._own(project, location, cluster):
                return Ceiling(self.nap[kind], where)
            return Ceiling(self.nap[kind], f"not the stack's cluster; the stack's {where}")
        return Ceiling(0, f"the stack declares no NAP limit for {kind} ({where})")


def stack_of(name: str, s: Settings) -> Stack:
    """The Stack of validated settings (the governed projects as the program renders them)."""
    from governance.components.action_settings import ENTRY_POINTS, action_settings, function_name
    from governance.naming import cluster_name, resource_name

    # The budget id only keys the policy's budgets; the projects are what matter here.
    policy = action_settings(s, "cap")
    governed = {p: tuple(pp.zones) for p, pp in sorted(policy.projects.items())}
    unlinks = any(pp.allow_billing_disable for pp in policy.projects.values()) or any(
        sp.allow_billing_disable for sp in policy.scopes.values()
    )
    fan_out = s.automation.enabled and s.automation.fan_out
    services = tuple(function_name(s.prefix, ep) for ep in ENTRY_POINTS) if fan_out else ()
    scopes = tuple(sorted(policy.scopes))
    if s.gke is None:
        return Stack(
            name,
            governed,
            None,
            unlinks_billing=unlinks,
            project=s.project,
            function_services=services,
            scopes=scopes,
        )
    pool_keys = {resource_name("", key, max_length=40): key for key in s.training_pools}
    return Stack(
        name,
        governed,
        (s.project, s.region, cluster_name(s.prefix)),
        pools={n: s.training_pools[k].max_nodes for n, k in pool_keys.items()},
        pool_keys=pool_keys,
        nap=dict(s.gke.autoprovisioning.accelerators),
        unlinks_billing=unlinks,
        project=s.project,
        function_services=services,
        scopes=scopes,
    )
