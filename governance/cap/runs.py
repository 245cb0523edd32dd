# Raw Cloud Logging JSON (LogEntry.jsonPayload) is handled as Any at this boundary.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""The fan-out runs of a stack, per run: projects done, failed, still pending, dead-lettered.

Read from Cloud Logging v2 (`POST /v2/entries:list`, every page) in the stack's project: the
lines the governance functions write (docs/architecture.md#on-work-item; its wire names): one
`dispatch` line per run from a dispatcher (`{"job", "run", "items", "projects"}`), one line per
delivery of a work item from `on_work_item` (`work_item` {job, project, run, key, scope} and its
`outcome`), and one `"outcome": "dead-lettered"` line per item `on_dead_letter` received. Pure
aggregation (`runs_of`) apart from the reading (`read_entries`); cli.py shows and prints them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from governance.cap.api import Api

PAGE_SIZE: Final = 1000
MAX_PAGES: Final = 200
"""At most 200,000 entries a read (10,000 projects with every item delivered 20 times)."""
DONE_OUTCOMES: Final = frozenset({"done", "nothing to do", "duplicate"})
FAILED_OUTCOMES: Final = frozenset({"failed", "refused"})
DEAD: Final = "dead-lettered"


def log_filter(project: str, services: Sequence[str], since: datetime) -> str:
    """The Logging query for the functions' dispatch and work-item lines since `since`.

    Restricted on indexed fields (resource type and labels, timestamp) first, as Google advises
    for speed; 2nd gen functions log as their Cloud Run service.
    """
    names = " OR ".join(f'"{s}"' for s in services)
    stamp = since.strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        'resource.type="cloud_run_revision" '
        f'AND resource.labels.project_id="{project}" '
        f"AND resource.labels.service_name=({names}) "
        f'AND timestamp>="{stamp}" '
        "AND (jsonPayload.dispatch.run:* OR jsonPayload.work_item.run:*)"
    )


@dataclass(frozen=True)
class Entries:
    """What a read returned, and whether it stopped before the last page."""

    entries: list[dict[str, Any]]
    truncated: bool


def read_entries(api: Api, project: str, services: Sequence[str], since: datetime) -> Entries:
    """Every matching entry, oldest first, over every page (MAX_PAGES at most).

    Raises:
        governance.cap.api.ApiError: a page could not be read.
    """
    body: dict[str, Any] = {
        "resourceNames": [f"projects/{project}"],
        "filter": log_filter(project, services, since),
        "orderBy": "timestamp asc",
        "pageSize": PAGE_SIZE,
    }
    found: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        page = api.call("POST", "logging", "entries:list", body=body)
        found += [e for e in page.get("entries") or [] if isinstance(e, dict)]
        token = page.get("nextPageToken")
        if not token:
            return Entries(found, truncated=False)
        body = {**body, "pageToken": str(token)}
    return Entries(found, truncated=True)


@dataclass
class Run:
    """One dispatcher decision and what became of each of its projects."""

    run: str
    job: str
    started: str
    dispatched: set[str] = field(default_factory=set[str])
    items: int = 0
    outcomes: dict[str, str] = field(default_factory=dict[str, str])  # project -> last outcome
    dead: set[str] = field(default_factory=set[str])
    deliveries: int = 0

    def status(self) -> dict[str, list[str]]:
        """The run's projects by state: done, failed, pending, dead_lettered (sorted)."""
        projects = self.dispatched | set(self.outcomes) | self.dead
        by: dict[str, list[str]] = {"done": [], "failed": [], "pending": [], "dead_lettered": []}
        for project in sorted(projects):
            outcome = self.outcomes.get(project)
            if project in self.dead:
                by["dead_lettered"].append(project)
            elif outcome in DONE_OUTCOMES:
                by["done"].append(project)
            elif outcome in FAILED_OUTCOMES:
                by["failed"].append(project)
            else:  # dispatched, no delivery yet (or only one whose outcome is unknown)
                by["pending"].append(project)
        return by

    def as_dict(self) -> dict[str, Any]:
        """The `--json` entry: counts, and the projects that are not done."""
        by = self.status()
        projects = sum(len(v) for v in by.values())
        return {
            "run": self.run,
            "job": self.job,
            "started": self.started,
            "items": max(self.items, projects),
            "deliveries": self.deliveries,
            **{key: len(value) for key, value in by.items()},
            "failed_projects": by["failed"],
            "pending_projects": by["pending"],
            "dead_lettered_projects": by["dead_lettered"],
        }


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def runs_of(entries: Iterable[Mapping[str, Any]]) -> list[Run]:
    """The runs the entries tell of, newest first; each project's last outcome wins.

    Entries are read oldest first, so a later delivery of the same item (a redelivery that
    succeeded after a failure) replaces the earlier outcome; a dead letter is final.
    """
    runs: dict[str, Run] = {}
    for entry in sorted(entries, key=lambda e: _str(e.get("timestamp"))):
        payload = entry.get("jsonPayload")
        if not isinstance(payload, Mapping):
            continue
        stamp = _str(entry.get("timestamp"))
        dispatch = payload.get("dispatch")
        item = payload.get("work_item")
        if isinstance(dispatch, Mapping):
            run = _run(runs, _str(dispatch.get("run")), _str(dispatch.get("job")), stamp)
            projects = dispatch.get("projects")
            if isinstance(projects, list):
                run.dispatched.update(p for p in projects if isinstance(p, str))
            items = dispatch.get("items")
            if isinstance(items, int) and not isinstance(items, bool):
                run.items = max(run.items, items)
        elif isinstance(item, Mapping):
            run = _run(runs, _str(item.get("run")), _str(item.get("job")), stamp)
            project = _str(item.get("project"))
            if not project:
                continue
            outcome = _str(payload.get("outcome"))
            if outcome == DEAD:
                run.dead.add(project)
            else:
                run.deliveries += 1
                run.outcomes[project] = outcome
    return sorted(runs.values(), key=lambda r: (r.started, r.run), reverse=True)


def _run(runs: dict[str, Run], run_id: str, job: str, stamp: str) -> Run:
    run = runs.get(run_id)
    if run is None:
        run = runs[run_id] = Run(run_id or "(no run id)", job, stamp)
    elif not run.job and job:
        run.job = job
    return run


def since(now: datetime, hours: float) -> datetime:
    """The start of the window `cap status` reads runs in."""
    return now - timedelta(hours=hours)


def lines(runs: Sequence[Mapping[str, Any]], hours: float, truncated: bool) -> Iterator[str]:
    """The text view of the runs (`--json` prints them whole)."""
    yield f"fan-out runs of the last {hours:g} h (Cloud Logging):"
    if not runs:
        yield "  none: no dispatcher logged a run in that window"
    for r in runs:
        yield (
            f"  {r['job'] or '?'} run {r['run']} started {r['started']}: {r['items']} project(s): "
            f"{r['done']} done, {r['failed']} failed, {r['pending']} pending, "
            f"{r['dead_lettered']} dead-lettered"
        )
        for key, word in (
            ("dead_lettered_projects", "dead-lettered (never acted on; see on_dead_letter's log)"),
            ("failed_projects", "failed (retried until dead-lettered)"),
            ("pending_projects", "pending"),
        ):
            named: list[str] = r[key]
            if named:
                shown = ", ".join(named[:10]) + (
                    f" and {len(named) - 10} more" if len(named) > 10 else ""
                )
                yield f"    {word}: {shown}"
    if truncated:
        yield f"  (stopped after {MAX_PAGES * PAGE_SIZE:,} entries: older runs may be incomplete)"
