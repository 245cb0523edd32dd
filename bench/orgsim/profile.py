"""The call profile: what one project costs a job, measured, in a form the simulation reads.

bench/org_profile.py writes it (bench/profiles/*.json); model.py reads it. Per job (budget,
reap_idle_vms, ...) and project kind (with or without accelerators) it holds:

- `calls`: the calls one project received, by service and discovery-document method, with
  their class (read/write/poll), the quota they count against and their role (stop/unlink),
  measured over many projects (min/median/max per project: they should not differ);
- `trace`: the dependency graph of one project's calls. The fake cloud answers each call after
  a random latency; a call depends on another when, in EVERY one of several runs with different
  latencies, it started only after the other had answered (happens-before in all runs; with
  random latencies, calls that merely happened to come later fall out after a few runs). Kept
  transitively reduced. Each call keeps the median gap between its last dependency's answer
  and its own start (the function's own time), and polls name the write whose operation they
  confirm.

`unit` says how the calls were made: "invocation" (today's one invocation over N projects) or
"work_item" (on_work_item, one project per item, once it exists): the same format serves both.
Standard library only; `derive_trace` is pure (tests/bench/test_orgsim.py).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

FORMAT: Final = "mlgov-call-profile/1"


@dataclass(frozen=True)
class Observed:
    """One request of one traced run: its identity across runs, and when it started and ended."""

    key: str
    """Stable across runs: service, method, path (operation ids replaced by their write's key)."""
    service: str
    method: str
    call_class: str
    role: str
    start: float
    end: float
    cluster: str = ""
    """The GKE cluster a cluster-scoped write or poll acts on ("" otherwise)."""
    confirms: str = ""
    """For a poll: the key of the write whose operation it reads."""


@dataclass(frozen=True)
class TraceCall:
    """One call of a project's dependency graph."""

    key: str
    service: str
    method: str
    call_class: str
    role: str
    after: tuple[int, ...]
    """Indices (into the trace) of the calls it waits for; empty: starts with the item."""
    gap_s: float
    """Median seconds between the last of `after` answering (or the item starting) and this."""
    cluster: str = ""
    confirms: int | None = None
    """For a poll: the index of the write whose operation it waits for."""
    token: bool = True
    """Whether it takes a token of the functions' per-project rate limiter."""


@dataclass(frozen=True)
class KindProfile:
    """What one project of one kind costs one job."""

    kind: str
    projects: int
    calls: list[dict[str, Any]]
    """One row per (service, method): class, quota scope, role, per-project min/median/max."""
    trace: list[TraceCall]
    trace_runs: int
    stops: float
    unlinks: float
    calls_per_project: float

    def stop_indices(self) -> list[int]:
        """The trace calls that stop something."""
        return [i for i, c in enumerate(self.trace) if c.role == "stop"]


@dataclass(frozen=True)
class JobProfile:
    """One job (entry point and alert kind) over both project kinds."""

    job: str
    entry_point: str
    kinds: dict[str, KindProfile]
    wall_s: list[float] = field(default_factory=list[float])
    cpu_s: list[float] = field(default_factory=list[float])
    calls_total: list[int] = field(default_factory=list[int])

    @property
    def cpu_s_per_call(self) -> float:
        """Median CPU seconds the function process spent per call it made (0 if unmeasured)."""
        ratios = [c / n for c, n in zip(self.cpu_s, self.calls_total, strict=True) if n]
        return statistics.median(ratios) if ratios else 0.0


@dataclass(frozen=True)
class Profile:
    """A whole profile file."""

    unit: str
    jobs: dict[str, JobProfile]
    meta: dict[str, Any]


def _reachable(graph: Sequence[set[int]], start: int) -> set[int]:
    seen: set[int] = set()
    todo = list(graph[start])
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(graph[n])
    return seen


Unrelated = Callable[[Observed, Observed], bool]


def never(_d: Observed, _c: Observed) -> bool:
    """No pair of calls is known to be unrelated."""
    return False


CLUSTER_LEVEL: Final = frozenset(
    {
        "container.projects.locations.clusters.setResourceLabels",
        "container.projects.locations.clusters.update",
    }
)


def _acts_on(o: Observed) -> str:
    """The method a call is, or for a poll the method of the write it confirms."""
    if o.call_class == "poll" and o.confirms:
        return o.confirms.split()[1] if len(o.confirms.split()) > 1 else ""
    return o.method


def gke_clusters_unrelated(d: Observed, c: Observed) -> bool:
    """Whether `d` cannot hold up `c` because they belong to different clusters' chains.

    The functions cap each GKE cluster under its own lock, every cluster at once
    (functions/govern/actions/gke.py), and run the cluster-level steps (NAP labels and limits)
    for every cluster before any node pool's (flows/budget.py: `reach.first`, then `later`).
    So a call on one cluster waits for another cluster's calls only across that one barrier:
    a node-pool step after the other clusters' cluster-level steps. Timing alone cannot tell the
    two apart when the clusters' chains move in step, which is why it is said here.
    """
    if not (d.cluster and c.cluster) or d.cluster == c.cluster:
        return False
    barrier = _acts_on(d) in CLUSTER_LEVEL and ".nodePools." in _acts_on(c)
    return not barrier


def derive_trace(
    runs: Sequence[Sequence[Observed]], unrelated: Unrelated = never
) -> list[TraceCall]:
    """The dependency graph of calls seen in every run (see the module docstring).

    A call depends on each call that answered before it started in all runs, except where
    `unrelated(d, c)` says the code cannot make `c` wait for `d`; the graph is then
    transitively reduced. Calls missing from some run are left out (they are not part of what
    a project always costs). Raises ValueError without runs.
    """
    if not runs:
        raise ValueError("derive_trace: no runs")
    by_run = [{o.key: o for o in run} for run in runs]
    common = [k for k in by_run[0] if all(k in r for r in by_run[1:])]
    # Order by median start, so every dependency gets a smaller index than its dependants.
    common.sort(key=lambda k: statistics.median(r[k].start for r in by_run))
    index = {k: i for i, k in enumerate(common)}
    before: list[set[int]] = []
    for k in common:
        deps = {
            index[d]
            for d in common
            if d != k
            and all(r[d].end <= r[k].start for r in by_run)
            and not unrelated(by_run[0][d], by_run[0][k])
        }
        before.append(deps)
    reduced: list[set[int]] = []
    for deps in before:
        implied = set[int]().union(*(_reachable(before, d) for d in deps)) if deps else set[int]()
        reduced.append(deps - implied)
    trace: list[TraceCall] = []
    for i, k in enumerate(common):
        first = by_run[0][k]
        gaps = []
        for r in by_run:
            ready = max((r[common[d]].end for d in reduced[i]), default=_origin(r))
            gaps.append(max(0.0, r[k].start - ready))
        confirms = index.get(first.confirms) if first.confirms else None
        trace.append(
            TraceCall(
                key=k,
                service=first.service,
                method=first.method,
                call_class=first.call_class,
                role=first.role,
                after=tuple(sorted(reduced[i])),
                gap_s=round(statistics.median(gaps), 4),
                cluster=first.cluster,
                confirms=confirms,
                token=_takes_token(first),
            )
        )
    return trace


def _origin(run: Mapping[str, Observed]) -> float:
    return min(o.start for o in run.values())


def _takes_token(o: Observed) -> bool:
    # Runner.call takes one token of the per-project limiter per read, per write, and per wait
    # for a stop's operation (one wait = all its polls: actions/stop.py `later(...)`). GKE writes
    # wait for their operation inside the write's own call (gcp/container.py), so their polls
    # take none (functions/govern/execute.py).
    if o.call_class != "poll":
        return True
    return o.service != "container"


def dump(profile: Profile, path: Path) -> None:
    """Write `profile` as JSON (stable key order, one file)."""
    doc: dict[str, Any] = {"format": FORMAT, "unit": profile.unit, **profile.meta, "jobs": {}}
    for name, job in profile.jobs.items():
        doc["jobs"][name] = {
            "entry_point": job.entry_point,
            "wall_s": job.wall_s,
            "cpu_s": job.cpu_s,
            "calls_total": job.calls_total,
            "cpu_s_per_call": round(job.cpu_s_per_call, 6),
            "kinds": {k: asdict(v) for k, v in job.kinds.items()},
        }
    path.write_text(json.dumps(doc, indent=1) + "\n")


class ProfileError(ValueError):
    """A profile file that is not in this format."""


def load(path: Path) -> Profile:
    """Read a profile written by `dump`.

    Raises:
        ProfileError: not a profile of this format (names the key).
    """
    doc = json.loads(path.read_text())
    if doc.get("format") != FORMAT:
        raise ProfileError(f"{path}: format is {doc.get('format')!r}, expected {FORMAT!r}")
    jobs: dict[str, JobProfile] = {}
    for name, raw in doc["jobs"].items():
        kinds: dict[str, KindProfile] = {}
        for kind, k in raw["kinds"].items():
            trace = [TraceCall(**{**c, "after": tuple(c["after"])}) for c in k.pop("trace")]
            kinds[kind] = KindProfile(**{**k, "trace": trace})
        jobs[name] = JobProfile(
            name,
            raw["entry_point"],
            kinds,
            list(raw["wall_s"]),
            list(raw["cpu_s"]),
            list(raw["calls_total"]),
        )
    meta = {k: v for k, v in doc.items() if k not in ("format", "unit", "jobs")}
    return Profile(doc["unit"], jobs, meta)
